// The JSON-RPC server under load (issue 22 "Must show": load, and bad requests sent while it runs): 50 getEvents/s,
// open loop (rpc-load.ts: sent on the clock, latency from the scheduled send), a pubnet-like mix — the 700 real
// requests of ../shared/fixtures/pubnet-getevents re-shaped as the engine bench re-shapes them (rpc-requests.ts),
// moved onto the served ledgers, and synthetic contract / topic / wildcard / unfiltered requests — over windows at
// the newest ledgers, at the oldest, and across both chunks, while ledgers are ingested into the hot store (20 a
// second, load-backend.ts) and, 20 % of the way in, the first chunk freezes to @strata/cold-store and is served cold.
// Meanwhile bad requests (malformed JSON, wrong types, unknown method, huge limit, too many filters, bad cursors, bad
// base64 XDR, an oversized body, a slow body) get their JSON-RPC error or HTTP status, and 1,000 concurrent
// connections are each answered. Asserted: zero errors on the load's own requests, every bad request's answer, the
// server up at the end. p50/p99 per tier are printed, never asserted.
// STRATA_RPC_LOAD_SECONDS sets the load's length (default 12; the figure is 60).
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StrKey } from '@stellar/stellar-base';
import { chunkIdOfLedger } from '@strata/events';
import { afterEach, describe, expect, it } from 'vitest';
import { checkResponse, type LoadSample, latencyOf, openLoop, post } from '../../bench/rpc-load.js';
import { type MixRequest, mixBody, pubnetMissingReason, pubnetMixRequests } from '../../bench/rpc-requests.js';
import { createRpcServer, type RpcServer } from '../../src/rpc/index.js';
import { CONTRACTS, symbol } from './hot-backend.js';
import { type IngestingBackend, ingestingBackend } from './load-backend.js';

const SECONDS = Number(process.env.STRATA_RPC_LOAD_SECONDS ?? 12);
const RATE = 50;
const INGEST_EVERY_MS = 50;
const missing = pubnetMissingReason();

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const rpc = (method: string, params?: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** The load's i-th request: a real one (3 in 5) or a synthetic one, over one of three windows; tagged by tier. */
function loadRequest(source: IngestingBackend, real: readonly MixRequest[], i: number) {
  const latest = source.latestLedger();
  const oldest = source.oldestLedger;
  const windows = [
    { start: Math.max(oldest, latest - 30), end: null }, // the newest ledgers: the hot chunk
    { start: oldest, end: oldest + 50 }, // the oldest: the first chunk, frozen part of the way in
    { start: oldest, end: null }, // from the oldest on: both chunks once the ingest crosses
  ] as const;
  const window = windows[i % 3]!;
  const lastLedger = window.end === null ? latest : window.end - 1;
  const tiers = new Set<string>();
  for (let chunk = chunkIdOfLedger(window.start); chunk <= chunkIdOfLedger(lastLedger); chunk++) {
    tiers.add(source.tierOf(chunk));
  }
  const tag = tiers.size === 2 ? 'mixed' : [...tiers][0]!;
  if (real.length > 0 && i % 5 < 3) {
    const request = real[(i * 7) % real.length]!;
    return { tag, body: mixBody(request, { startLedger: window.start, endLedger: window.end }) };
  }
  const contract = StrKey.encodeContract(Buffer.from(CONTRACTS[i % 2]!));
  const filters = [
    [{ contractIds: [contract] }],
    [{ type: 'contract', topics: [[b64(symbol('transfer')), '*']] }],
    [{ topics: [[b64(symbol('mint')), '**']] }, { contractIds: [contract], topics: [['*', '*']] }],
    [],
  ][i % 4]!;
  // Synthetic pages are mostly full (a contract holds 1 in 8 events): limit 200 keeps the load's cost near pubnet's.
  const params: Record<string, unknown> = { startLedger: window.start, filters, pagination: { limit: 200 } };
  if (window.end !== null) params.endLedger = window.end;
  return { tag, body: rpc('getEvents', params) };
}

/**
 * Sends raw bytes on a fresh connection; resolves with everything received until the server closes it (a reset after
 * an answer — the server closing with the request unread, as after a 408 — keeps the answer; one before any is the
 * error's text).
 */
function rawExchange(port: number, text: string, endAfterWrite = false): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (d) => {
      received += d.toString();
    });
    socket.on('close', () => resolve(received));
    socket.on('error', (error) => resolve(received === '' ? String(error) : received));
    socket.write(text);
    if (endAfterWrite) socket.end();
  });
}

/** Each bad request with its expected answer; returns the mismatches. */
async function sendBadRequests(url: string, port: number): Promise<string[]> {
  const problems: string[] = [];
  const expectRpcError = async (name: string, body: string, code: number, message: RegExp, status = 200) => {
    const response = await post(url, body);
    let error: { code?: number; message?: string } | undefined;
    try {
      error = (JSON.parse(response.text) as { error?: { code: number; message: string } }).error;
    } catch {
      error = undefined;
    }
    if (response.status !== status || error?.code !== code || !message.test(error?.message ?? '')) {
      problems.push(`${name}: HTTP ${response.status} ${response.text.slice(0, 200)}`);
    }
    if (/\/(work|tmp|home)\/|at .*\.ts:\d+/.test(response.text))
      problems.push(`${name}: a path or stack in the answer`);
  };
  const cases: [string, string, number, RegExp][] = [
    ['malformed JSON', '{"jsonrpc":"2.0","id":1,"method":"getEvents"', -32700, /^invalid request value$/],
    ['wrong types', rpc('getEvents', { startLedger: 'abc' }), -32602, /^invalid parameters: json: cannot unmarshal/],
    ['unknown method', rpc('getEverything', {}), -32601, /^method not found$/],
    ['huge limit', rpc('getEvents', { startLedger: 2, pagination: { limit: 1e9 } }), -32602, /limit must not exceed/],
    [
      'too many filters',
      rpc('getEvents', { startLedger: 2, filters: [{}, {}, {}, {}, {}, {}] }),
      -32602,
      /^maximum 5 filters per request$/,
    ],
    ['bad v1 cursor', rpc('getEvents', { pagination: { cursor: 'not-a-cursor' } }), -32602, /invalid event id/],
    ['bad v2 cursor', rpc('getEventsV2', { cursor: 'gec1_AAAA' }), -32602, /^malformed cursor/],
    ['bad base64 XDR', rpc('getLedgerEntries', { keys: ['!!!not base64'] }), -32602, /^cannot unmarshal key value/],
    ['bad topic XDR', rpc('getEvents', { startLedger: 2, filters: [{ topics: [['@@@']] }] }), -32602, /./],
  ];
  await Promise.all(cases.map(([name, body, code, message]) => expectRpcError(name, body, code, message)));
  // Oversized: over the 512 KiB default.
  await expectRpcError(
    'oversized body',
    rpc('getHealth', { pad: 'x'.repeat(600 * 1024) }),
    -32600,
    /^request body exceeds/,
    413,
  );
  // Slow: headers and part of the body, then nothing: 408 after the body timeout (10 s), connection closed.
  const slow = await rawExchange(
    port,
    'POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"jsonrpc"',
  );
  if (!slow.startsWith('HTTP/1.1 408')) problems.push(`slow body: ${slow.slice(0, 200)}`);
  return problems;
}

/**
 * 1,000 connections opened at once, each a getHealth. Each must get a well-formed answer: `healthy`, or a refusal the
 * server gives under overload (HTTP 408 from the headers timeout when a connection waited too long to be read — seen
 * on a loaded 2-core machine — or the busy error); never a reset, a hang or a crash. Returns the bad answers and how
 * many were healthy.
 */
async function crowd(port: number): Promise<{ bad: string[]; healthy: number }> {
  const body = rpc('getHealth', {});
  const text = `POST / HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const answers = await Promise.all(Array.from({ length: 1000 }, () => rawExchange(port, text)));
  const healthy = answers.filter((a) => a.startsWith('HTTP/1.1 200') && a.includes('"status":"healthy"')).length;
  const refused = (a: string) => a.startsWith('HTTP/1.1 408') || (a.startsWith('HTTP/1.1 200') && a.includes('-32098'));
  const bad = answers.filter((a) => !(a.startsWith('HTTP/1.1 200') && a.includes('"status":"healthy"')) && !refused(a));
  return { bad: bad.slice(0, 5), healthy };
}

const report = (samples: readonly LoadSample[]) => {
  const tags = [...new Set(samples.map((s) => s.tag))].sort();
  return tags
    .map((tag) => {
      const of = samples.filter((s) => s.tag === tag);
      const { p50, p99, n } = latencyOf(of);
      const events = of.reduce((sum, s) => sum + s.events, 0) / of.length;
      return `${tag}: ${n} requests, p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, ${events.toFixed(0)} events a request`;
    })
    .join('; ');
};

describe('JSON-RPC under load', () => {
  it(`answers ${RATE} getEvents/s for ${SECONDS} s while ingest runs and a chunk freezes, and refuses bad requests alongside`, {
    timeout: (SECONDS + 120) * 1000,
  }, async () => {
    if (missing !== undefined) process.stdout.write(`load: the real requests are left out (${missing})\n`);
    const dir = mkdtempSync(join(tmpdir(), 'strata-rpc-load-'));
    cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
    const ingestPerSecond = 1000 / INGEST_EVERY_MS;
    // The first chunk's last ledgers come in during the first 20 % of the load; then the ingest crosses and it freezes.
    const remaining = Math.max(1, Math.floor(SECONDS * 0.2 * ingestPerSecond));
    const source = ingestingBackend(dir, { firstChunkLedgers: 200 + remaining, preload: 200 });
    cleanup.push(() => source.close());
    const server: RpcServer = createRpcServer({
      backend: source.backend,
      // The default body timeout (10 s; the headers timeout is the same): on a loaded 2-core machine the test's event
      // loop, shared by the server, the client and the ingest, stalls for seconds, and a timeout of 1 to 4 s was seen
      // to answer 408 to the load's own requests (bytes arrived, not yet parsed). The slow body waits it out.
      config: { listen: '127.0.0.1:0' },
    });
    const { url, port } = await server.listen();
    cleanup.push(() => server.close());
    const real = missing === undefined ? pubnetMixRequests() : [];
    const firstChunk = chunkIdOfLedger(source.oldestLedger);

    let ingestFailure: unknown;
    const ingest = setInterval(() => {
      try {
        source.ingestNext();
      } catch (error) {
        ingestFailure ??= error;
      }
    }, INGEST_EVERY_MS);
    cleanup.push(async () => clearInterval(ingest));
    const startLatest = source.latestLedger();

    const at = (fraction: number) => new Promise((resolve) => setTimeout(resolve, SECONDS * 1000 * fraction));
    // 20 % in: the first chunk's last ledgers (those the timer has not written yet, on a slow machine), one ledger of
    // the next chunk, then the freeze, served cold as soon as it is done; ingest goes on meanwhile.
    let freezeMs = 0;
    let frozenAt = Number.POSITIVE_INFINITY;
    const frozen = at(0.2).then(async () => {
      while (chunkIdOfLedger(source.latestLedger() + 1) === firstChunk) source.ingestNext();
      source.ingestNext();
      const started = performance.now();
      await source.freeze(firstChunk);
      freezeMs = performance.now() - started;
      frozenAt = performance.now();
    });
    const bad = at(0.25).then(() => sendBadRequests(url, port));
    const crowded = at(0.6).then(() => crowd(port));
    const badAfterFreeze = at(0.75).then(() => sendBadRequests(url, port));
    const pending = Promise.allSettled([frozen, bad, crowded, badAfterFreeze]);
    cleanup.push(async () => {
      await pending;
    });
    const loadStarted = performance.now();
    const load = await openLoop({
      url,
      rate: RATE,
      durationMs: SECONDS * 1000,
      next: (i) => loadRequest(source, real, i),
    });
    clearInterval(ingest);
    await frozen;

    const samples = load.samples;
    process.stdout.write(
      `load: ${samples.length} requests at ${RATE}/s over ${(load.wallMs / 1000).toFixed(1)} s (sender at most ${load.maxSendLagMs.toFixed(1)} ms late); ` +
        `${source.latestLedger() - startLatest} ledgers and ${source.events()} events ingested; chunk ${firstChunk} frozen in ${freezeMs.toFixed(0)} ms; ${report(samples)}\n`,
    );
    expect(ingestFailure).toBeUndefined();
    expect(samples.length).toBe(SECONDS * RATE);
    expect(samples.filter((s) => s.error !== undefined).slice(0, 5)).toEqual([]);
    expect(samples.some((s) => s.events > 0)).toBe(true);
    expect(source.tierOf(firstChunk)).toBe('cold');
    // Cold and mixed pages once the freeze is done (on a loaded machine it may end after the last send: then hot only).
    const tags = new Set(samples.map((s) => s.tag));
    expect(tags.has('hot')).toBe(true);
    if (frozenAt < loadStarted + SECONDS * 1000 - 2000) expect(tags).toEqual(new Set(['hot', 'cold', 'mixed']));
    expect(await bad).toEqual([]);
    expect(await badAfterFreeze).toEqual([]);
    const { bad: crowdBad, healthy } = await crowded;
    process.stdout.write(
      `load: 1,000 concurrent connections: ${healthy} answered healthy, the rest refused (408/busy)\n`,
    );
    expect(crowdBad).toEqual([]);
    expect(healthy).toBeGreaterThan(0);
    // Still up, and still serving the frozen chunk's events.
    const health = await post(url, rpc('getHealth', {}));
    expect(checkResponse(health.status, health.text).error).toBeUndefined();
    const old = await post(url, rpc('getEvents', { startLedger: source.oldestLedger, pagination: { limit: 10 } }));
    expect(checkResponse(old.status, old.text)).toMatchObject({ error: undefined, events: 10 });
  });
});
