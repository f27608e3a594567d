// The JSON-RPC 2.0 server over node:http: POST / (single requests and batches), GET /metrics (Prometheus text).
// Every request is bounded before it costs anything: the body by size and by time, a batch by count, execution by a
// fixed number of slots with a bounded wait queue (past it: a "busy" error) and a per-request timeout. A malformed
// request gets a JSON-RPC error or an HTTP status and never an exception out of the handler; error bodies hold no
// stack traces or paths (internal errors are logged, the client sees "internal error").
//
// Concurrency: one server per backend; everything runs on the thread that created it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RpcBackend } from './backend.js';
import { DEFAULT_RPC_CONFIG, parseListen, type RpcConfig, rpcConfigFrom } from './config.js';
import { RPC_CODE, type RpcErrorBody } from './errors.js';
import { EventsWorkerPool } from './events-workers.js';
import { encodeJson } from './json.js';
import { errorBodyOf, type Method, type MethodContext, rpcMethods, type VersionInfo } from './methods.js';

/** The logger the server writes to (pino's Logger is one). */
export interface RpcLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface RpcServerOptions {
  readonly backend: RpcBackend;
  /** Keys over DEFAULT_RPC_CONFIG (checked as rpcConfigFrom checks them). */
  readonly config?: Partial<RpcConfig>;
  readonly logger?: RpcLogger;
  /** What getVersionInfo reports. */
  readonly version?: VersionInfo;
}

export interface RpcServer {
  readonly config: RpcConfig;
  /** The Prometheus registry /metrics serves (the server's own, not prom-client's global one). */
  readonly registry: Registry;
  /** Binds `config.listen` (port 0: any free port); resolves with the bound address and its URL. */
  listen(): Promise<{ host: string; port: number; url: string }>;
  /**
   * Answers one request body as POST / would (JSON text, or undefined for notifications only); `seen` collects the
   * method names it dispatched (for the request log).
   */
  handleBody(body: string, seen?: string[]): Promise<string | undefined>;
  /**
   * Resolves when the events workers (if any) have started and warmed their chunks: pages sent earlier wait for
   * them. The server answers everything else from the moment it listens.
   */
  ready(): Promise<void>;
  /** Stops accepting, closes every connection, stops the events workers. */
  close(): Promise<void>;
}

type JsonRpcId = string | number | null;
interface Reply {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result?: unknown;
  error?: RpcErrorBody;
}

/** What one execution came to. */
type Outcome = { readonly result: unknown } | { readonly error: RpcErrorBody };

const TIMEOUT_ERROR: RpcErrorBody = { code: RPC_CODE.TIMEOUT, message: 'request exceeded processing limit threshold' };
const MAX_SHOWN_METHOD = 64;
/** Method names one request log line lists at most (a batch may hold more). */
const MAX_LOGGED_METHODS = 16;
const REQUEST_FIELDS = new Set(['jsonrpc', 'id', 'method', 'params']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Execution slots with a bounded FIFO of waiters; a freed slot passes straight to the oldest waiter. */
class Slots {
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  constructor(
    readonly size: number,
    readonly queueLimit: number,
  ) {}
  get running(): number {
    return this.#running;
  }
  get waiting(): number {
    return this.#waiting.length;
  }
  /** Takes a slot (waiting if needed); false when the queue is full. */
  acquire(): Promise<boolean> | boolean {
    if (this.#running < this.size) {
      this.#running++;
      return true;
    }
    if (this.#waiting.length >= this.queueLimit) return false;
    return new Promise((resolve) => this.#waiting.push(() => resolve(true)));
  }
  release(): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next();
    else this.#running--;
  }
}

/** A JSON-RPC server over `backend`; nothing listens until `listen()`. */
export function createRpcServer(options: RpcServerOptions): RpcServer {
  const config = rpcConfigFrom(options.config ?? {}, DEFAULT_RPC_CONFIG);
  const { backend, logger } = options;
  const version = options.version ?? { version: '0.1.0', commitHash: '', buildTimestamp: '' };
  const eventsWorkers =
    config.eventsWorkers > 0 && backend.eventsWorkerOpener !== undefined
      ? new EventsWorkerPool(config.eventsWorkers, { opener: backend.eventsWorkerOpener, config, version })
      : undefined;
  const methods = rpcMethods(backend, config, version, eventsWorkers);
  const slots = new Slots(config.maxConcurrent, config.queueLimit);

  const registry = new Registry();
  const requests = new Counter({
    name: 'strata_rpc_requests_total',
    help: 'JSON-RPC requests answered, by method and outcome (ok, or the JSON-RPC error code)',
    labelNames: ['method', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'strata_rpc_request_duration_seconds',
    help: 'JSON-RPC request latency (queue wait included), by method and the event tier it read (hot, cold, mixed, none)',
    labelNames: ['method', 'tier'],
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const httpRejections = new Counter({
    name: 'strata_rpc_http_rejections_total',
    help: 'HTTP requests refused before JSON-RPC dispatch, by reason',
    labelNames: ['reason'],
    registers: [registry],
  });
  new Gauge({
    name: 'strata_rpc_queue_depth',
    help: 'JSON-RPC requests waiting for an execution slot',
    registers: [registry],
    collect() {
      this.set(slots.waiting);
    },
  });
  new Gauge({
    name: 'strata_rpc_in_flight',
    help: 'JSON-RPC requests executing',
    registers: [registry],
    collect() {
      this.set(slots.running);
    },
  });
  new Gauge({
    name: 'strata_latest_ledger',
    help: 'The newest ledger served',
    registers: [registry],
    collect() {
      this.set(backend.servedRange().latestLedger);
    },
  });
  new Gauge({
    name: 'strata_event_chunks',
    help: 'Event chunks present, by tier',
    labelNames: ['tier'],
    registers: [registry],
    collect() {
      const counts = backend.chunkCounts();
      this.set({ tier: 'hot' }, counts.hot);
      this.set({ tier: 'cold' }, counts.cold);
    },
  });

  async function execute(method: Method, name: string, params: Record<string, unknown>): Promise<Outcome> {
    const started = performance.now();
    const context: MethodContext = { tiers: new Set() };
    let outcome: Outcome;
    const acquired = await slots.acquire();
    if (!acquired) {
      outcome = {
        error: {
          code: RPC_CODE.BUSY,
          message: `rpc queue for ${name} surpassed queue limit of ${config.queueLimit} requests`,
        },
      };
    } else {
      let timer: NodeJS.Timeout | undefined;
      try {
        const timeout = new Promise<{ error: RpcErrorBody }>((resolve) => {
          timer = setTimeout(() => resolve({ error: TIMEOUT_ERROR }), config.requestTimeoutMs);
        });
        const work = (async () => ({ result: await method(params, context) }))().catch((error: unknown) => {
          const { body, internal } = errorBodyOf(error);
          if (internal) logger?.error({ err: error, method: name }, 'JSON-RPC method failed');
          return { error: body };
        });
        outcome = await Promise.race([work, timeout]);
      } finally {
        clearTimeout(timer);
        slots.release();
      }
    }
    const tier = context.tiers.size === 0 ? 'none' : context.tiers.size === 2 ? 'mixed' : [...context.tiers][0]!;
    latency.observe({ method: name, tier }, (performance.now() - started) / 1000);
    requests.inc({ method: name, status: 'error' in outcome ? String(outcome.error.code) : 'ok' });
    return outcome;
  }

  async function handleOne(request: unknown, seen?: string[]): Promise<Reply | undefined> {
    const fail = (id: JsonRpcId, error: RpcErrorBody, method = 'invalid'): Reply => {
      requests.inc({ method, status: String(error.code) });
      return { jsonrpc: '2.0', id, error };
    };
    // jrpc2's checks and messages (json.go parseJSON, server.go), as stellar-rpc answers them.
    if (!isObject(request)) return fail(null, { code: RPC_CODE.PARSE_ERROR, message: 'request is not a JSON object' });
    const rawId = request.id;
    const validId =
      rawId === undefined ||
      rawId === null ||
      typeof rawId === 'string' ||
      (typeof rawId === 'number' && Number.isFinite(rawId));
    if (!validId) return fail(null, { code: RPC_CODE.INVALID_REQUEST, message: 'invalid request ID' });
    const id: JsonRpcId = rawId === undefined ? null : (rawId as JsonRpcId);
    if (request.method !== undefined && typeof request.method !== 'string') {
      return fail(id, { code: RPC_CODE.PARSE_ERROR, message: 'invalid method name' });
    }
    const rawParams = request.params ?? null;
    if (rawParams !== null && typeof rawParams !== 'object') {
      return fail(id, { code: RPC_CODE.INVALID_REQUEST, message: 'parameters must be array or object' });
    }
    if (request.jsonrpc !== '2.0')
      return fail(id, { code: RPC_CODE.INVALID_REQUEST, message: 'invalid version marker' });
    const extra = Object.keys(request).filter((key) => !REQUEST_FIELDS.has(key));
    if (extra.length > 0)
      return fail(id, { code: RPC_CODE.INVALID_REQUEST, message: 'extra fields in request', data: extra.slice(0, 16) });
    const name = typeof request.method === 'string' ? request.method : '';
    if (name === '') return fail(id, { code: RPC_CODE.INVALID_REQUEST, message: 'empty method name' });
    const method = methods.get(name);
    if (seen !== undefined && seen.length < MAX_LOGGED_METHODS) seen.push(method === undefined ? 'unknown' : name);
    if (method === undefined) {
      const shown = name.length > MAX_SHOWN_METHOD ? `${name.slice(0, MAX_SHOWN_METHOD)}...` : name;
      return fail(id, { code: RPC_CODE.METHOD_NOT_FOUND, message: 'method not found', data: shown }, 'unknown');
    }
    const params = rawParams ?? {};
    if (!isObject(params)) {
      return fail(
        id,
        { code: RPC_CODE.INVALID_PARAMS, message: 'invalid parameters: params must be a JSON object' },
        name,
      );
    }
    const outcome = await execute(method, name, params);
    if (rawId === undefined) return undefined; // a notification: executed, never answered
    return 'error' in outcome
      ? { jsonrpc: '2.0', id, error: outcome.error }
      : { jsonrpc: '2.0', id, result: outcome.result };
  }

  /** handleBody's answer as UTF-8 bytes (what POST / sends). */
  async function answerBody(body: string, seen?: string[]): Promise<Buffer | string | undefined> {
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      requests.inc({ method: 'invalid', status: String(RPC_CODE.PARSE_ERROR) });
      return JSON.stringify({
        jsonrpc: '2.0',
        id: null,
        error: { code: RPC_CODE.PARSE_ERROR, message: 'invalid request value' },
      });
    }
    if (!Array.isArray(message)) {
      const reply = await handleOne(message, seen);
      return reply === undefined ? undefined : encodeJson(reply);
    }
    const batchError = (text: string) =>
      JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: RPC_CODE.INVALID_REQUEST, message: text } });
    if (message.length === 0) return batchError('empty request batch');
    if (message.length > config.maxBatchSize) {
      return batchError(`batch of ${message.length} requests exceeds the maximum of ${config.maxBatchSize}`);
    }
    // jrpc2 refuses a batch whose calls share an id.
    const ids = new Set<string>();
    for (const member of message) {
      if (!isObject(member) || member.id === undefined || member.id === null) continue;
      const key = JSON.stringify(member.id);
      if (ids.has(key)) return batchError('duplicate request ID');
      ids.add(key);
    }
    const replies = (await Promise.all(message.map((m) => handleOne(m, seen)))).filter(
      (r): r is Reply => r !== undefined,
    );
    return replies.length === 0 ? undefined : encodeJson(replies);
  }

  async function handleBody(body: string, seen?: string[]): Promise<string | undefined> {
    const answer = await answerBody(body, seen);
    return typeof answer === 'string' || answer === undefined ? answer : answer.toString('utf8');
  }

  const send = (res: ServerResponse, status: number, body: Buffer | string | undefined, close = false): void => {
    if (res.headersSent || res.destroyed) return;
    const headers: Record<string, string | number> = {};
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    if (bytes !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = bytes.length;
    }
    if (close) headers.connection = 'close';
    res.writeHead(status, headers);
    res.end(bytes);
  };
  const httpError = (res: ServerResponse, status: number, reason: string, message: string, close = false): void => {
    httpRejections.inc({ reason });
    send(
      res,
      status,
      JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: RPC_CODE.INVALID_REQUEST, message } }),
      close,
    );
  };

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/metrics' && req.method === 'GET') {
      const text = await registry.metrics();
      res.writeHead(200, { 'content-type': registry.contentType });
      res.end(text);
      return;
    }
    if (path !== '/') {
      httpError(res, 404, 'not_found', 'not found');
      req.resume();
      return;
    }
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      httpError(res, 405, 'method', 'only POST is served at /');
      req.resume();
      return;
    }
    // jhttp's bridge insists on JSON (charset utf-8 when one is named).
    const contentType = (req.headers['content-type'] ?? '').toLowerCase();
    const [mediaType, ...mediaParams] = contentType.split(';').map((part) => part.trim());
    const charset = mediaParams
      .find((p) => p.startsWith('charset='))
      ?.slice('charset='.length)
      .replace(/"/g, '');
    if (mediaType !== 'application/json' || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
      httpError(res, 415, 'content_type', 'content-type must be application/json');
      req.resume();
      return;
    }
    const tooLarge = () => {
      httpError(res, 413, 'too_large', `request body exceeds ${config.maxBodyBytes} bytes`, true);
      req.destroy();
    };
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    if (declared > config.maxBodyBytes) {
      tooLarge();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      httpError(res, 408, 'body_timeout', `request body not received within ${config.bodyTimeoutMs} ms`, true);
      req.destroy();
    }, config.bodyTimeoutMs);
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > config.maxBodyBytes) {
        done = true;
        clearTimeout(timer);
        tooLarge();
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => {
      done = true;
      clearTimeout(timer);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const body = Buffer.concat(chunks).toString('utf8');
      const seen: string[] = [];
      answerBody(body, seen).then(
        (reply) => {
          send(res, reply === undefined ? 204 : 200, reply);
          logger?.info(
            {
              path,
              methods: seen,
              bytes: size,
              status: reply === undefined ? 204 : 200,
              ms: Number((performance.now() - started).toFixed(3)),
            },
            'rpc request',
          );
        },
        (error: unknown) => {
          logger?.error({ err: error }, 'JSON-RPC dispatch failed');
          send(
            res,
            500,
            JSON.stringify({
              jsonrpc: '2.0',
              id: null,
              error: { code: RPC_CODE.INTERNAL_ERROR, message: 'internal error' },
            }),
          );
        },
      );
    });
  }

  let server: Server | undefined;

  return {
    config,
    registry,
    handleBody,
    async listen() {
      const { host, port } = parseListen(config.listen);
      const http = createServer({ connectionsCheckingInterval: 1000, requestTimeout: 0 }, (req, res) => {
        onRequest(req, res).catch((error: unknown) => {
          logger?.error({ err: error }, 'HTTP handler failed');
          send(res, 500, undefined, true);
        });
      });
      http.maxConnections = config.maxConnections;
      http.headersTimeout = Math.min(config.bodyTimeoutMs, 60_000);
      http.on('clientError', (error: NodeJS.ErrnoException, socket) => {
        // Headers too slow (headersTimeout) is 408, as node:http's own default handler answers; anything else 400.
        const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
        httpRejections.inc({ reason: timedOut ? 'headers_timeout' : 'client_error' });
        if (socket.writable)
          socket.end(`HTTP/1.1 ${timedOut ? '408 Request Timeout' : '400 Bad Request'}\r\nconnection: close\r\n\r\n`);
        else socket.destroy();
      });
      await new Promise<void>((resolve, reject) => {
        http.once('error', reject);
        http.listen(port, host, () => {
          http.off('error', reject);
          resolve();
        });
      });
      server = http;
      const address = http.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      logger?.info({ listen: `${shownHost}:${address.port}` }, 'JSON-RPC server listening');
      return { host: address.address, port: address.port, url: `http://${shownHost}:${address.port}/` };
    },
    ready: async () => {
      await eventsWorkers?.ready();
    },
    async close() {
      const http = server;
      server = undefined;
      if (http !== undefined) {
        await new Promise<void>((resolve) => {
          http.close(() => resolve());
          http.closeAllConnections();
        });
      }
      await eventsWorkers?.close();
    },
  };
}
