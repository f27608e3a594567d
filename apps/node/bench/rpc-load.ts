// An open-loop HTTP JSON-RPC load: requests sent on the clock (request i at start + i / rate, whatever the earlier
// ones are doing), each latency measured from its scheduled send time to the end of its response, so a slow server
// is charged for the queue it builds (no coordinated omission). node:http with a keep-alive agent; every response is
// checked (HTTP 200, a JSON body whose replies carry no `error`) and a failure kept with its reason.
import { Agent, request } from 'node:http';

export interface LoadRequest {
  readonly body: string;
  /** What the request counts under in the result (a tier, a key count, ...). */
  readonly tag?: string;
}

export interface LoadSample {
  readonly tag: string;
  /** Scheduled send to the response's end, ms. */
  readonly ms: number;
  /** Why the request failed, or undefined. */
  readonly error?: string;
  /** JSON-RPC replies in the response (a batch holds several). */
  readonly replies: number;
  /** Events over every reply (getEvents), for the notes. */
  readonly events: number;
}

export interface LoadOptions {
  /** The server's POST URL (http://host:port/). */
  readonly url: string;
  readonly rate: number;
  readonly durationMs: number;
  /** The i-th request to send. */
  readonly next: (i: number) => LoadRequest;
  /** Sockets the agent keeps at most (default 64). */
  readonly maxSockets?: number;
  /** Stops scheduling new requests once this returns true (in-flight ones are still awaited). */
  readonly stop?: () => boolean;
}

export interface LoadResult {
  readonly samples: LoadSample[];
  /** Wall time from the first scheduled send to the last response, ms. */
  readonly wallMs: number;
  /** How late the sender itself was, worst case (timer lateness), ms. */
  readonly maxSendLagMs: number;
}

/** One POST; resolves with the status and body text (never rejects: a transport failure is status 0). */
export function post(
  url: string,
  body: string,
  agent?: Agent,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (error) => resolve({ status: 0, text: String(error) }));
      },
    );
    req.on('error', (error) => resolve({ status: 0, text: String(error) }));
    req.end(body);
  });
}

/** The failure in one response, or undefined; and its replies and events. */
export function checkResponse(
  status: number,
  text: string,
): { error: string | undefined; replies: number; events: number } {
  if (status !== 200) return { error: `HTTP ${status}: ${text.slice(0, 200)}`, replies: 0, events: 0 };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { error: `not JSON: ${text.slice(0, 200)}`, replies: 0, events: 0 };
  }
  const replies = (Array.isArray(parsed) ? parsed : [parsed]) as { error?: unknown; result?: { events?: unknown[] } }[];
  let events = 0;
  for (const reply of replies) {
    if (reply.error !== undefined) return { error: JSON.stringify(reply.error), replies: replies.length, events };
    events += reply.result?.events?.length ?? 0;
  }
  return { error: undefined, replies: replies.length, events };
}

/** Runs the load; resolves when every sent request has been answered. */
export async function openLoop(options: LoadOptions): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64 });
  const interval = 1000 / options.rate;
  const total = Math.max(1, Math.floor((options.durationMs / 1000) * options.rate));
  const samples: LoadSample[] = [];
  const inFlight: Promise<void>[] = [];
  let maxSendLagMs = 0;
  const start = performance.now() + 5;
  let lastEnd = start;
  try {
    for (let i = 0; i < total; i++) {
      if (options.stop?.() === true) break;
      const scheduled = start + i * interval;
      const wait = scheduled - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      maxSendLagMs = Math.max(maxSendLagMs, performance.now() - scheduled);
      const { body, tag = '' } = options.next(i);
      inFlight.push(
        post(options.url, body, agent).then(({ status, text }) => {
          const end = performance.now();
          lastEnd = Math.max(lastEnd, end);
          const { error, replies, events } = checkResponse(status, text);
          samples.push(
            error === undefined
              ? { tag, ms: end - scheduled, replies, events }
              : { tag, ms: end - scheduled, error, replies, events },
          );
        }),
      );
    }
    await Promise.all(inFlight);
  } finally {
    agent.destroy();
  }
  return { samples, wallMs: lastEnd - start, maxSendLagMs };
}

/** The q-quantile (0..1) of ascending values (nearest rank below). */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))]!;
}

/** p50 and p99 (ms) of the samples' latencies. */
export function latencyOf(samples: readonly LoadSample[]): { p50: number; p99: number; n: number } {
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), n: sorted.length };
}
