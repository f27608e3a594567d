// The JSON-RPC bench's baseline server: stellar-rpc v1's getEvents over its SQLite events table
// (../../../packages/hot-store/bench/v1-baseline.ts: one row per event, indexes (contract_id, id) and (topic1, id), a
// range scan narrowed by the filters' contract ids or first topics, each row decoded and post-filtered), behind the
// same HTTP shape as the strata server: node:http, POST /, JSON-RPC single requests and batches, the same v1
// validation (@strata/events) and the same EventInfo formatting (../src/rpc/events-format.ts). Row ids are event
// ordinals; `ledgerStarts[i]` is the first id of ledger firstLedger + i (stellar-rpc derives the id range from the
// ledgers arithmetically, its ids being TOIDs).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  compilePostFilter,
  compileV1Filters,
  EventsError,
  formatEventId,
  type PostFilter,
  v1ScanWindow,
  v1WindowEndCursor,
  validateGetEventsV1,
  viewPayload,
} from '@strata/events';
import { V1EventsTable } from '../../../packages/hot-store/bench/v1-baseline.js';
import { eventInfo } from '../src/rpc/events-format.js';

export interface V1ServeArgs {
  readonly v1Dir: string;
  /** JSON: { firstLedger, starts: number[] } (starts.length = ledgers + 1). */
  readonly startsFile: string;
  /** Written with { port } once listening; the server stops when `${controlFile}.stop` appears. */
  readonly controlFile: string;
}

/** Serves until told to stop (the stop file); returns what it answered. */
export async function serveV1(args: V1ServeArgs): Promise<{ requests: number }> {
  const table = new V1EventsTable(args.v1Dir, 'normal');
  const { firstLedger, starts } = JSON.parse(readFileSync(args.startsFile, 'utf8')) as {
    firstLedger: number;
    starts: number[];
  };
  const range = { oldestLedger: firstLedger, latestLedger: firstLedger + starts.length - 2 };
  const idOf = (ledger: number) => starts[Math.min(starts.length - 1, Math.max(0, ledger - firstLedger))]!;
  let requests = 0;

  const getEvents = (params: unknown) => {
    const request = validateGetEventsV1(params, { maxLimit: 10_000, defaultLimit: 100 });
    const window = v1ScanWindow(request, range);
    const filters = compileV1Filters(request.filters);
    const inner = compilePostFilter(filters);
    const payloads: Uint8Array[] = [];
    // V1EventsTable.page hands its post-filter each row's blob (a Uint8Array): kept when it passes.
    const keep: PostFilter = (payload) => {
      if (!inner(payload)) return false;
      payloads.push(payload as Uint8Array);
      return true;
    };
    table.page(filters, keep, idOf(window.start.ledger), idOf(window.endLedgerExclusive), request.limit);
    const last = payloads.at(-1);
    let cursor = v1WindowEndCursor(window.endLedgerExclusive);
    if (last !== undefined && payloads.length === request.limit) {
      const v = viewPayload(last);
      cursor = formatEventId({ ledger: v.ledger, tx: v.txIndex, op: v.opIndex, event: v.eventIndex });
    }
    return {
      events: payloads.map((p) => eventInfo(p, request.xdrFormat, true)),
      cursor,
      latestLedger: range.latestLedger,
      oldestLedger: range.oldestLedger,
      latestLedgerCloseTime: '0',
      oldestLedgerCloseTime: '0',
    };
  };
  const one = (call: { id?: unknown; method?: unknown; params?: unknown }) => {
    requests++;
    if (call.method !== 'getEvents')
      return { jsonrpc: '2.0', id: call.id ?? null, error: { code: -32601, message: 'method not found' } };
    try {
      return { jsonrpc: '2.0', id: call.id ?? null, result: getEvents(call.params ?? {}) };
    } catch (error) {
      const rpc = error instanceof EventsError ? error.rpc : undefined;
      return { jsonrpc: '2.0', id: call.id ?? null, error: rpc ?? { code: -32603, message: 'internal error' } };
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let reply: string;
      try {
        const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
        reply = JSON.stringify(Array.isArray(message) ? message.map(one) : one(message as object));
      } catch {
        reply = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'invalid request value' } });
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
      res.end(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  writeFileSync(args.controlFile, JSON.stringify({ port: (server.address() as AddressInfo).port }));
  await untilStopped(args.controlFile);
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  table.close();
  return { requests };
}

/**
 * Resolves once `${controlFile}.stop` exists (polled every 100 ms), or the parent is gone (the IPC channel of
 * measurePeakRss closed: a bench stopped half-way leaves no server behind).
 */
export async function untilStopped(controlFile: string): Promise<void> {
  let orphaned = false;
  process.once('disconnect', () => {
    orphaned = true;
  });
  while (!orphaned && !existsSync(`${controlFile}.stop`)) await new Promise((resolve) => setTimeout(resolve, 100));
}
