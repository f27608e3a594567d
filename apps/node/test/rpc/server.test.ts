// The JSON-RPC server over a real hot chunk of synthetic events (hot-backend.ts keeps them as the oracle), over
// real HTTP. Checks:
// 1. getHealth / getNetwork / getVersionInfo shapes; batches answer each member in order;
// 2. getEvents (v1) filters, limit and cursor paging to the window end equal the oracle; json xdrFormat decodes;
// 3. getEventsV2 paged to the end through its cursors, ascending and descending, equals the oracle (and its reverse);
// 4. bad requests (malformed JSON, wrong types, unknown method, huge limit, too many filters, bad cursors, bad
//    base64, oversized and slow bodies, a full queue, a request past its timeout) each get their JSON-RPC error or
//    HTTP status, with no stack or path in it, and the server keeps answering; random params of every shape get a
//    result or a -32600/-32602 refusal, never an internal error; 1,000 concurrent connections are all answered;
// 5. /metrics counts requests per method and reports the latest ledger and chunk counts.
import { request } from 'node:http';
import { connect } from 'node:net';
import { StrKey } from '@stellar/stellar-base';
import { seededRandom, tempDir } from '@strata/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { createRpcServer, type RpcBackend, type RpcServer, type RpcServerOptions } from '../../src/rpc/index.js';
import { CONTRACTS, type HotBackend, hotBackend, type OracleEvent, PASSPHRASE, symbol } from './hot-backend.js';
import type { TestChunkArgs } from './worker-chunks.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC replies, checked field by field against the oracle
type Json = any;

const running: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop();
});

/**
 * The backend of `data` whose getEvents pages run in `workers` events workers (worker-chunks.ts opens the chunk
 * there); its own openChunk throws, so a page served on the server's thread fails. 0: `data.backend` as it is.
 */
function backendOf(data: HotBackend, workers: number, chunkArgs: Partial<TestChunkArgs> = {}): RpcBackend {
  if (workers === 0) return data.backend;
  return {
    ...data.backend,
    openChunk: async () => {
      throw new Error('pages must run in the events workers');
    },
    eventsWorkerOpener: {
      module: new URL('./worker-chunks.ts', import.meta.url).href,
      exportName: 'openTestChunk',
      args: { path: data.path, chunkId: data.chunkId, ...chunkArgs },
    },
  };
}

async function start(
  config: RpcServerOptions['config'] = {},
  logger?: RpcServerOptions['logger'],
  workers = 0,
  chunkArgs: Partial<TestChunkArgs> = {},
): Promise<{ url: string; data: HotBackend; server: RpcServer }> {
  const data = hotBackend(tempDir('rpc'), 2, 60);
  const server = createRpcServer({
    backend: backendOf(data, workers, chunkArgs),
    config: { listen: '127.0.0.1:0', eventsWorkers: workers, ...config },
    ...(logger === undefined ? {} : { logger }),
  });
  const { url } = await server.listen();
  running.push(
    () => data.close(),
    () => server.close(),
  );
  return { url, data, server };
}

async function post(url: string, body: unknown): Promise<{ status: number; json: Json }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text) };
}

let nextId = 1;
async function call(url: string, method: string, params?: unknown): Promise<Json> {
  const { json } = await post(url, {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    ...(params === undefined ? {} : { params }),
  });
  return json;
}

async function expectHealthy(url: string): Promise<void> {
  const health = await call(url, 'getHealth');
  expect(health.result.status).toBe('healthy');
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const strip = (e: Json): OracleEvent => ({
  id: e.id,
  ledger: e.ledger,
  contractId: e.contractId,
  type: e.type,
  topic: e.topic,
  value: e.value,
  closeTime: Date.parse(e.ledgerClosedAt) / 1000,
});

describe('JSON-RPC server over a hot chunk', () => {
  it('answers getHealth, getNetwork, getVersionInfo and batches', async () => {
    const { url, data } = await start();
    const health = await call(url, 'getHealth');
    expect(health).toEqual({
      jsonrpc: '2.0',
      id: health.id,
      result: {
        status: 'healthy',
        latestLedger: data.latestLedger,
        latestLedgerCloseTime: 1_700_000_000 + data.latestLedger * 5,
        oldestLedger: 2,
        oldestLedgerCloseTime: 1_700_000_010,
        ledgerRetentionWindow: 120_960,
      },
    });
    expect((await call(url, 'getNetwork')).result).toEqual({ passphrase: PASSPHRASE, protocolVersion: 23 });
    expect((await call(url, 'getVersionInfo')).result).toMatchObject({ version: '0.1.0', protocolVersion: 23 });
    const batch = await post(url, [
      { jsonrpc: '2.0', id: 'a', method: 'getNetwork' },
      { jsonrpc: '2.0', id: 'b', method: 'nope' },
      { jsonrpc: '2.0', method: 'getHealth' }, // a notification: no reply
      { jsonrpc: '2.0', id: 3, method: 'getHealth' },
    ]);
    expect(batch.json.map((r: Json) => [r.id, r.error?.code ?? 'ok'])).toEqual([
      ['a', 'ok'],
      ['b', -32601],
      [3, 'ok'],
    ]);
  });

  it.each([0, 2])(
    'getEvents (v1): filters, limits and cursor paging equal the oracle (events workers: %i)',
    async (workers) => {
      const { url, data } = await start({}, undefined, workers);
      const all = await call(url, 'getEvents', { startLedger: 2, pagination: { limit: 10_000 } });
      expect(all.result.events.map(strip)).toEqual(data.events);
      expect(all.result).toMatchObject({
        latestLedger: data.latestLedger,
        oldestLedger: 2,
        latestLedgerCloseTime: String(1_700_000_000 + data.latestLedger * 5),
        oldestLedgerCloseTime: '1700000010',
        cursor: `${((BigInt(data.latestLedger) << 32n) | 0xffffffffn).toString().padStart(19, '0')}-4294967295`,
      });
      expect(all.result.events[0].inSuccessfulContractCall).toBe(true);

      // A contract + topic filter, paged 3 at a time through the cursor.
      const contractId = StrKey.encodeContract(Buffer.from(CONTRACTS[1]!));
      const filter = { type: 'contract', contractIds: [contractId], topics: [[b64(symbol('transfer')), '**']] };
      const expected = data.events.filter(
        (e) => e.type === 'contract' && e.contractId === contractId && e.topic[0] === b64(symbol('transfer')),
      );
      expect(expected.length).toBeGreaterThan(3);
      const got: OracleEvent[] = [];
      let page = await call(url, 'getEvents', { startLedger: 2, filters: [filter], pagination: { limit: 3 } });
      for (let guard = 0; guard < 100; guard++) {
        got.push(...page.result.events.map(strip));
        if (page.result.events.length < 3) break;
        page = await call(url, 'getEvents', {
          filters: [filter],
          pagination: { cursor: page.result.cursor, limit: 3 },
        });
      }
      expect(got).toEqual(expected);

      // Exact arity: ["transfer"] alone matches only one-topic events (none here carry one topic "transfer").
      const exact = await call(url, 'getEvents', {
        startLedger: 2,
        filters: [{ topics: [[b64(symbol('burn'))]] }],
        pagination: { limit: 1000 },
      });
      expect(exact.result.events.map(strip)).toEqual(
        data.events.filter((e) => e.topic.length === 1 && e.topic[0] === b64(symbol('burn'))),
      );

      // endLedger is exclusive; json format decodes topics and values.
      const window = await call(url, 'getEvents', { startLedger: 10, endLedger: 12, xdrFormat: 'json' });
      expect(window.result.events.map((e: Json) => e.ledger)).toEqual(
        data.events.filter((e) => e.ledger >= 10 && e.ledger < 12).map((e) => e.ledger),
      );
      const first = window.result.events[0];
      expect(first.topic).toBeUndefined();
      expect(first.topicJson[0]).toEqual({ symbol: expect.any(String) });
      expect(first.valueJson).toEqual({ u32: expect.any(Number) });
    },
  );

  it.each([0, 2])(
    'getEventsV2 paged to the end in both directions equals the oracle (events workers: %i)',
    async (workers) => {
      const { url, data } = await start({}, undefined, workers);
      const contractId = StrKey.encodeContract(Buffer.from(CONTRACTS[0]!));
      const cases: { filters?: unknown[]; keep: (e: OracleEvent) => boolean }[] = [
        { keep: () => true },
        { filters: [{ contractId }], keep: (e) => e.contractId === contractId },
        {
          filters: [{ type: 'system' }, { topic0: b64(symbol('mint')) }],
          keep: (e) => e.type === 'system' || e.topic[0] === b64(symbol('mint')),
        },
      ];
      for (const { filters, keep } of cases) {
        const expected = data.events.filter(keep);
        for (const order of ['asc', 'desc'] as const) {
          const got: OracleEvent[] = [];
          let result = (
            await call(url, 'getEventsV2', {
              minLedger: 2,
              maxLedger: data.latestLedger,
              order,
              limit: 4,
              ...(filters ? { filters } : {}),
            })
          ).result;
          for (let guard = 0; guard < 500 && result !== undefined; guard++) {
            got.push(...result.events.map(strip));
            if (result.scanStatus === 'COMPLETE') break;
            expect(result.scanStatus).toBe('HAS_MORE');
            result = (await call(url, 'getEventsV2', { cursor: result.cursor, limit: 4 })).result;
          }
          expect(result.scanStatus).toBe('COMPLETE');
          expect(result.cursor).toBeUndefined();
          expect(got).toEqual(order === 'asc' ? expected : [...expected].reverse());
        }
      }
      // An open ascending query catches up: WAITING_FOR_LEDGERS with a cursor.
      const open = (await call(url, 'getEventsV2', { minLedger: data.latestLedger - 2 })).result;
      expect(open.scanStatus).toBe('WAITING_FOR_LEDGERS');
      expect(open.cursor).toMatch(/^gec1_/);
      expect(open.scannedLedger).toBe(data.latestLedger);
    },
  );

  it('refuses bad requests with the right error and stays up', async () => {
    const { url } = await start({ maxBodyBytes: 4096, bodyTimeoutMs: 300 });
    const errorOf = async (body: unknown) => (await post(url, body)).json.error;
    const rpc = (method: string, params?: unknown) => ({ jsonrpc: '2.0', id: 1, method, params });
    const cases: [unknown, number, string | RegExp][] = [
      ['{"jsonrpc":"2.0","id":1,"method":"getHealth"', -32700, 'invalid request value'],
      ['[]', -32600, 'empty request batch'],
      ['7', -32700, 'request is not a JSON object'],
      [{ jsonrpc: '1.0', id: 1, method: 'getHealth' }, -32600, 'invalid version marker'],
      [{ jsonrpc: '2.0', id: {}, method: 'getHealth' }, -32600, 'invalid request ID'],
      [{ jsonrpc: '2.0', id: 1, method: 7 }, -32700, 'invalid method name'],
      [{ jsonrpc: '2.0', id: 1, method: 'getHealth', params: 'x' }, -32600, 'parameters must be array or object'],
      [{ jsonrpc: '2.0', id: 1, method: 'getHealth', extra: true }, -32600, 'extra fields in request'],
      [[rpc('getHealth'), rpc('getNetwork')], -32600, 'duplicate request ID'],
      [rpc('getLedgers'), -32601, 'method not found'],
      [rpc('getEvents', [1, 2]), -32602, 'invalid parameters: params must be a JSON object'],
      [rpc('getEvents', { startLedger: 'abc' }), -32602, /^invalid parameters: json: cannot unmarshal string/],
      [rpc('getEvents', {}), -32602, 'startLedger must be positive'],
      [rpc('getEvents', { startLedger: 2, pagination: { limit: 1_000_000 } }), -32602, 'limit must not exceed 10000'],
      [
        rpc('getEvents', { startLedger: 2, filters: [{}, {}, {}, {}, {}, {}] }),
        -32602,
        'maximum 5 filters per request',
      ],
      [rpc('getEvents', { pagination: { cursor: 'not-a-cursor' } }), -32602, /^invalid parameters: invalid event id/],
      [rpc('getEvents', { startLedger: 2, filters: [{ topics: [['@@@']] }] }), -32602, /^invalid parameters: /],
      [rpc('getEvents', { startLedger: 100_000 }), -32600, 'startLedger must be within the ledger range: 2 - 61'],
      [
        rpc('getEvents', { startLedger: 2, xdrFormat: 'xml' }),
        -32602,
        "got 'xml': expected base64, json for optional 'xdrFormat'",
      ],
      [rpc('getEventsV2', { minLedger: 2, limit: 5000 }), -32602, 'limit must be between 1 and 1000'],
      [rpc('getEventsV2', { minLedger: 2, bogus: 1 }), -32602, /unknown field/],
      [rpc('getEventsV2', { cursor: 'gec1_AAAA' }), -32602, /^malformed cursor/],
      [
        rpc('getLedgerEntries', { keys: ['!!!not base64'] }),
        -32602,
        'cannot unmarshal key value !!!not base64 at index 0',
      ],
      [
        rpc('getLedgerEntries', { keys: new Array(201).fill('AAAA') }),
        -32602,
        'key count (201) exceeds maximum supported (200)',
      ],
      [
        rpc('getLedgerEntries', { keys: [b64(new Uint8Array([0, 0, 0, 9, ...new Array(32).fill(1)]))] }),
        -32602,
        'ledger ttl entries cannot be queried directly',
      ],
      [rpc('getLatestLedger'), -32603, 'could not get latest ledger'],
    ];
    for (const [body, code, message] of cases) {
      const error = await errorOf(body);
      expect(error?.code, JSON.stringify(body).slice(0, 200)).toBe(code);
      if (typeof message === 'string') expect(error.message).toBe(message);
      else expect(error.message).toMatch(message);
      expect(JSON.stringify(error)).not.toMatch(/\/(work|tmp|home)\/|at .*\.ts:\d+/);
    }
    const v2 = (await post(url, rpc('getEventsV2', { minLedger: 1_000_000, order: 'desc' }))).json.error;
    expect(v2.data).toEqual({
      reason: 'ledger_out_of_range',
      missingLedger: 1_000_000,
      oldestLedger: 2,
      latestLedger: 61,
    });
    const budget = (
      await post(
        url,
        rpc('getEventsV2', {
          minLedger: 2,
          filters: Array.from({ length: 16 }, (_, i) => ({ topic0: b64(symbol(`t${i}`)) })),
        }),
      )
    ).json.error;
    expect(budget.data).toEqual({ reason: 'invalid_params', termsUsed: 16, termBudget: 15 });

    // Oversized body: 413 (declared, and streamed without a length).
    const big = await post(url, JSON.stringify(rpc('getHealth', { pad: 'x'.repeat(5000) })));
    expect(big.status).toBe(413);
    expect(big.json.error.code).toBe(-32600);
    // Slow body: headers and part of the body, then nothing: 408 after bodyTimeoutMs, connection closed.
    const sendAndWait = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(url).port), '127.0.0.1');
        let received = '';
        socket.on('data', (d) => {
          received += d.toString();
        });
        socket.on('close', () => resolve(received));
        socket.on('error', reject);
        socket.write(text);
      });
    const slow = await sendAndWait(
      'POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"jsonrpc"',
    );
    expect(slow).toMatch(/^HTTP\/1\.1 408/);
    // Slow headers: node:http's headersTimeout (body-timeout-ms) closes the connection with 408.
    expect(await sendAndWait('POST / HTTP/1.1\r\nhost: x\r\n')).toMatch(/^HTTP\/1\.1 408/);
    // Not JSON, wrong HTTP method and path.
    expect((await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' })).status).toBe(
      415,
    );
    expect((await fetch(url, { method: 'GET' })).status).toBe(405);
    expect((await fetch(new URL('/nope', url), { method: 'POST', body: '{}' })).status).toBe(404);
    await expectHealthy(url);
  });

  it('a full queue answers busy, a request past its timeout -32001, and the server stays up', async () => {
    const { url, data } = await start({ maxConcurrent: 1, queueLimit: 1, requestTimeoutMs: 200 });
    const release = data.hold();
    const events = (id: number) => post(url, { jsonrpc: '2.0', id, method: 'getEvents', params: { startLedger: 2 } });
    const first = events(1); // holds the only slot (its chunk open waits on the gate)
    const second = events(2); // waits in the queue
    // The queue is full now: a third request is refused at once, whatever the method.
    let third: Json;
    for (let guard = 0; guard < 50; guard++) {
      third = (await post(url, { jsonrpc: '2.0', id: 3, method: 'getNetwork' })).json;
      if (third.error !== undefined) break;
    }
    expect(third.error).toEqual({
      code: -32098,
      message: 'rpc queue for getNetwork surpassed queue limit of 1 requests',
    });
    expect((await first).json.error).toEqual({ code: -32001, message: 'request exceeded processing limit threshold' });
    expect((await second).json.error.code).toBe(-32001);
    release();
    const after = await events(4);
    expect(after.json.result.events.length).toBe(100);
    await expectHealthy(url);
  });

  it.each([0, 2])(
    'random params of every shape get a result or a refusal, never an internal error (events workers: %i)',
    async (workers) => {
      const { url } = await start({}, undefined, workers);
      const random = seededRandom(22);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
      const fields = [
        'startLedger',
        'endLedger',
        'filters',
        'pagination',
        'cursor',
        'limit',
        'xdrFormat',
        'keys',
        'minLedger',
        'maxLedger',
        'order',
        'type',
        'contractIds',
        'topics',
        'topic0',
        'contractId',
      ];
      const scalar = (): unknown =>
        pick<() => unknown>([
          () => Math.floor(random() * 100),
          () => -1,
          () => 2 ** 40,
          () => 1.5,
          () =>
            pick([
              '',
              '*',
              '**',
              'asc',
              'desc',
              'json',
              'contract',
              'system',
              'AAAADwAAAAh0cmFuc2Zlcg==',
              'gec1_',
              '0000000008589934592-0000000001',
              '@@',
            ]),
          () => null,
          () => true,
        ])();
      const value = (depth: number): unknown => {
        const r = random();
        if (depth > 3 || r < 0.5) return scalar();
        if (r < 0.75) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
        return Object.fromEntries(
          Array.from({ length: Math.floor(random() * 4) }, () => [pick(fields), value(depth + 1)]),
        );
      };
      const methods = ['getHealth', 'getNetwork', 'getVersionInfo', 'getLedgerEntries', 'getEvents', 'getEventsV2'];
      const refusals = new Set([-32600, -32602]);
      for (let i = 0; i < 300; i++) {
        const params = Object.fromEntries(
          Array.from({ length: 1 + Math.floor(random() * 4) }, () => [pick(fields), value(0)]),
        );
        const reply = await call(url, pick(methods), params);
        expect(reply.jsonrpc).toBe('2.0');
        if (reply.error !== undefined)
          expect(refusals.has(reply.error.code), JSON.stringify([params, reply.error])).toBe(true);
        else expect(reply.result).toBeTypeOf('object');
      }
      await expectHealthy(url);
    },
  );

  it('answers 1,000 concurrent connections while getEvents requests run', async () => {
    const { url } = await start();
    const { port } = new URL(url);
    const one = (method: string, params: unknown) =>
      new Promise<Json>((resolve, reject) => {
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/',
            agent: false,
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          },
          (res) => {
            let text = '';
            res.on('data', (d) => {
              text += d;
            });
            res.on('end', () => resolve(JSON.parse(text)));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const load = Array.from({ length: 50 }, () => one('getEvents', { startLedger: 2, pagination: { limit: 1000 } }));
    const crowd = Array.from({ length: 1000 }, () => one('getHealth', {}));
    const answers = await Promise.all([...load, ...crowd]);
    expect(answers.filter((a) => a.error !== undefined)).toEqual([]);
    expect(answers.slice(0, 50).every((a) => a.result.events.length > 0)).toBe(true);
  });

  it('/metrics reports requests per method, latency per tier, the latest ledger and chunk counts; requests are logged', async () => {
    const lines: [string, object, string][] = [];
    const logger = {
      info: (fields: object, message: string) => lines.push(['info', fields, message]),
      warn: (fields: object, message: string) => lines.push(['warn', fields, message]),
      error: (fields: object, message: string) => lines.push(['error', fields, message]),
    };
    const { url } = await start({}, logger);
    await call(url, 'getEvents', { startLedger: 2 });
    await call(url, 'getHealth');
    await call(url, 'nope');
    const text = await (await fetch(new URL('/metrics', url))).text();
    expect(text).toMatch(/strata_rpc_requests_total\{method="getEvents",status="ok"\} 1/);
    expect(text).toMatch(/strata_rpc_requests_total\{method="unknown",status="-32601"\} 1/);
    expect(text).toMatch(/strata_rpc_request_duration_seconds_count\{method="getEvents",tier="hot"\} 1/);
    expect(text).toMatch(/strata_rpc_request_duration_seconds_count\{method="getHealth",tier="none"\} 1/);
    expect(text).toMatch(/strata_latest_ledger 61/);
    expect(text).toMatch(/strata_event_chunks\{tier="hot"\} 1/);
    const requests = lines.filter(([, , message]) => message === 'rpc request');
    expect(requests.length).toBe(3);
    expect(requests[0]![1]).toMatchObject({
      path: '/',
      methods: ['getEvents'],
      status: 200,
      bytes: expect.any(Number),
      ms: expect.any(Number),
    });
    expect(lines.filter(([level]) => level === 'error')).toEqual([]);
  });
});

describe('events workers', () => {
  it('answer every page request byte for byte as the server thread does, batches and refusals included', async () => {
    const inProcess = await start({}, undefined, 0);
    const workers = await start({}, undefined, 2);
    const contractId = StrKey.encodeContract(Buffer.from(CONTRACTS[1]!));
    const transfer = b64(symbol('transfer'));
    const bodies: unknown[] = [
      { startLedger: 2, pagination: { limit: 10_000 } },
      { startLedger: 5, endLedger: 30, filters: [{ contractIds: [contractId], topics: [[transfer, '**']] }] },
      { startLedger: 10, endLedger: 12, xdrFormat: 'json' },
      { startLedger: 2, filters: [{ type: 'system' }], pagination: { limit: 2 } },
      { startLedger: 1 },
      { startLedger: 2, filters: [{ contractIds: ['C'] }] },
      { pagination: { cursor: '0000000008589934592-0000000001', limit: 5 } },
    ].map((params, i) => ({ jsonrpc: '2.0', id: i, method: 'getEvents', params }));
    bodies.push(
      ...[
        { minLedger: 2, order: 'desc', limit: 7 },
        { minLedger: 3, maxLedger: 40, filters: [{ contractId }, { topic0: transfer }], limit: 5 },
        { minLedger: 2, xdrFormat: 'json', limit: 3 },
        { cursor: 'gec1_x' },
        { minLedger: 1000 },
        { minLedger: 2, bogus: 1 },
      ].map((params, i) => ({ jsonrpc: '2.0', id: `v2-${i}`, method: 'getEventsV2', params })),
    );
    bodies.push(bodies.slice(0, 5)); // a batch
    let events = 0;
    for (const body of bodies) {
      const [mine, theirs] = await Promise.all([post(workers.url, body), post(inProcess.url, body)]);
      expect(JSON.stringify(mine.json), JSON.stringify(body)).toBe(JSON.stringify(theirs.json));
      events += JSON.stringify(mine.json).split('"ledgerClosedAt"').length - 1;
    }
    // The cursor pages of the first answer, through the workers: the same pages.
    let cursor = (await call(workers.url, 'getEventsV2', { minLedger: 2, limit: 4 })).result.cursor;
    for (let page = 0; page < 5 && cursor !== undefined; page++) {
      const [mine, theirs] = await Promise.all([
        call(workers.url, 'getEventsV2', { cursor, limit: 4 }),
        call(inProcess.url, 'getEventsV2', { cursor, limit: 4 }),
      ]);
      expect({ ...mine, id: 0 }).toEqual({ ...theirs, id: 0 });
      cursor = mine.result.cursor;
    }
    expect(events).toBeGreaterThan(200);
    // The pages ran in the workers: the in-process openChunk of the workers' backend throws (see backendOf).
    const metrics = await (await fetch(new URL('/metrics', workers.url))).text();
    expect(metrics).toMatch(/strata_rpc_request_duration_seconds_count\{method="getEvents",tier="hot"\} [1-9]/);
  });

  it('a worker whose chunk opens fail answers as the server thread does, and the server stays up', async () => {
    const { url } = await start({}, undefined, 1, { fail: true });
    const reply = await call(url, 'getEvents', { startLedger: 2 });
    expect(reply.error).toEqual({ code: -32600, message: 'could not read events: READER_FAILED' });
    // refusals are still the worker's to make, before any chunk is opened
    expect((await call(url, 'getEvents', { startLedger: 1 })).error.code).toBe(-32600);
    await expectHealthy(url);
  });

  it('a worker that dies fails its requests with internal errors and is replaced', async () => {
    const { url } = await start({}, undefined, 1, { exitOnOpen: true });
    for (let i = 0; i < 3; i++) {
      const replies = await Promise.all([
        call(url, 'getEvents', { startLedger: 2 }),
        call(url, 'getEventsV2', { minLedger: 2 }),
      ]);
      for (const reply of replies) expect(reply.error).toEqual({ code: -32603, message: 'internal error' });
      await expectHealthy(url);
    }
  });
});
