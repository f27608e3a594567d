// The JSON-RPC methods: stellar-rpc's request validation, error codes and messages, and response shapes, over an
// RpcBackend. getEvents and getEventsV2 validate with @strata/events (request-v1.ts / request-v2.ts) and page with
// @strata/match's pager over the backend's hot and cold chunk readers.
import {
  type ChunkReader,
  compileV1Filters,
  EventsError,
  encodeCursorV2,
  formatEventId,
  V2_REASON,
  v1ScanWindow,
  validateGetEventsV1,
  validateGetEventsV2,
} from '@strata/events';
import { LEDGER_ENTRY_TYPE, LedgerKeyError, readLedgerEntry, readLedgerKey } from '@strata/ledger-key';
import {
  type EventChunkSource,
  MatchError,
  type QueryScope,
  queryEvents,
  queryEventsV1,
  scopeOfCursor,
} from '@strata/match';
import type { ChunkTier, RpcBackend, ServedRange } from './backend.js';
import type { RpcConfig } from './config.js';
import { RPC_CODE, RpcError, rpcFail } from './errors.js';
import { base64, formatEventsJson } from './events-format.js';
import type { EventsWorkerPool } from './events-workers.js';
import { RawJson } from './json.js';
import { xdrToJson } from './xdr-json.js';

/** stellar-rpc's getLedgerEntriesMaxKeys. */
export const MAX_LEDGER_ENTRY_KEYS = 200;
/** Longest base64 LedgerKey accepted (ledgerKeyDecodeMaxMemory: 16 KiB of XDR). */
const MAX_KEY_BASE64 = 4 * Math.ceil((16 * 1024) / 3);

/** What a method saw while it ran: the event tiers it read (for the per-tier latency histogram). */
export interface MethodContext {
  readonly tiers: Set<ChunkTier>;
}

export type Method = (params: Record<string, unknown>, context: MethodContext) => Promise<unknown> | unknown;

export interface VersionInfo {
  readonly version: string;
  readonly commitHash: string;
  readonly buildTimestamp: string;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** protocol.IsValidFormat. */
function checkXdrFormat(value: unknown): 'base64' | 'json' {
  if (value === undefined || value === null || value === '' || value === 'base64') return 'base64';
  if (value === 'json') return 'json';
  const shown = typeof value === 'string' ? value : JSON.stringify(value);
  return rpcFail(RPC_CODE.INVALID_PARAMS, `got '${shown}': expected base64, json for optional 'xdrFormat'`);
}

/** The methods over `backend`. */
export function rpcMethods(
  backend: RpcBackend,
  config: RpcConfig,
  version: VersionInfo,
  eventsWorkers?: EventsWorkerPool,
): Map<string, Method> {
  const methods = new Map<string, Method>();

  const range = (): ServedRange => {
    const r = backend.servedRange();
    if (r.latestLedger < 1 || r.latestLedger < r.oldestLedger) {
      rpcFail(RPC_CODE.INTERNAL_ERROR, 'data stores are not initialized');
    }
    return r;
  };

  methods.set('getHealth', () => {
    const r = range();
    const limit = config.maxHealthyLedgerLatencySeconds;
    if (limit > 0) {
      const latency = Math.round(Date.now() / 1000 - r.latestLedgerCloseTime);
      if (latency > limit) {
        rpcFail(
          RPC_CODE.INTERNAL_ERROR,
          `latency (${latency}s) since last known ledger closed is too high (>${limit}s)`,
        );
      }
    }
    return {
      status: 'healthy',
      latestLedger: r.latestLedger,
      latestLedgerCloseTime: r.latestLedgerCloseTime,
      oldestLedger: r.oldestLedger,
      oldestLedgerCloseTime: r.oldestLedgerCloseTime,
      ledgerRetentionWindow: config.ledgerRetentionWindow,
    };
  });

  methods.set('getNetwork', () => {
    const out: Record<string, unknown> = {};
    if (config.friendbotUrl !== '') out.friendbotUrl = config.friendbotUrl;
    out.passphrase = backend.networkPassphrase;
    out.protocolVersion = backend.protocolVersion();
    return out;
  });

  methods.set('getVersionInfo', () => ({
    version: version.version,
    commitHash: version.commitHash,
    buildTimestamp: version.buildTimestamp,
    captiveCoreVersion: '',
    protocolVersion: backend.protocolVersion(),
  }));

  methods.set('getLatestLedger', (params) => {
    const format = checkXdrFormat(params.xdrFormat);
    const latest = backend.latestLedger();
    if (latest === undefined) rpcFail(RPC_CODE.INTERNAL_ERROR, 'could not get latest ledger');
    const out: Record<string, unknown> = {
      id: latest.hash,
      protocolVersion: latest.protocolVersion,
      sequence: latest.sequence,
      closeTime: String(latest.closeTime),
    };
    if (format === 'json') {
      out.headerJson = xdrToJson('LedgerHeader', latest.headerXdr);
      out.metadataJson = xdrToJson('LedgerCloseMeta', latest.metadataXdr);
    } else {
      out.headerXdr = base64(latest.headerXdr);
      out.metadataXdr = base64(latest.metadataXdr);
    }
    return out;
  });

  methods.set('getLedgerEntries', (params) => {
    const format = checkXdrFormat(params.xdrFormat);
    const rawKeys = params.keys ?? [];
    if (!Array.isArray(rawKeys)) {
      rpcFail(
        RPC_CODE.INVALID_PARAMS,
        'invalid parameters: json: cannot unmarshal into Go struct field GetLedgerEntriesRequest.keys of type []string',
      );
    }
    if (rawKeys.length > MAX_LEDGER_ENTRY_KEYS) {
      rpcFail(
        RPC_CODE.INVALID_PARAMS,
        `key count (${rawKeys.length}) exceeds maximum supported (${MAX_LEDGER_ENTRY_KEYS})`,
      );
    }
    const keys = rawKeys.map((raw, i) => {
      if (typeof raw !== 'string') {
        rpcFail(RPC_CODE.INVALID_PARAMS, 'invalid parameters: json: cannot unmarshal into Go value of type string');
      }
      const shown = raw.length > 100 ? `${raw.slice(0, 100)}...` : raw;
      const bad = (): never => rpcFail(RPC_CODE.INVALID_PARAMS, `cannot unmarshal key value ${shown} at index ${i}`);
      if (raw.length > MAX_KEY_BASE64 || !BASE64.test(raw)) bad();
      const bytes = new Uint8Array(Buffer.from(raw, 'base64'));
      let type: number;
      try {
        type = readLedgerKey(bytes).type;
      } catch (error) {
        if (error instanceof LedgerKeyError) return bad();
        throw error;
      }
      if (type === LEDGER_ENTRY_TYPE.TTL)
        rpcFail(RPC_CODE.INVALID_PARAMS, 'ledger ttl entries cannot be queried directly');
      return { raw, bytes };
    });
    // stellar-rpc answers each distinct key once, in request order.
    const seen = new Set<string>();
    const unique = keys.filter((k) => !seen.has(k.raw) && seen.add(k.raw) !== undefined);
    const found = backend.ledgerEntries(unique.map((k) => k.bytes));
    const entries: Record<string, unknown>[] = [];
    unique.forEach((key, i) => {
      const hit = found.entries[i];
      if (hit === undefined) return;
      const view = readLedgerEntry(hit.entry);
      const data = view.dataBytes;
      const ext = hit.entry.subarray(4 + data.length);
      const result: Record<string, unknown> = {};
      if (format === 'json') {
        result.keyJson = xdrToJson('LedgerKey', key.bytes);
        result.dataJson = xdrToJson('LedgerEntryData', data);
        result.extJson = xdrToJson('LedgerEntryExt', ext);
      } else {
        result.key = key.raw;
        result.xdr = base64(data);
        result.extXdr = base64(ext);
      }
      result.lastModifiedLedgerSeq = view.lastModifiedLedgerSeq;
      if (hit.liveUntilLedgerSeq !== undefined) result.liveUntilLedgerSeq = hit.liveUntilLedgerSeq;
      entries.push(result);
    });
    return { entries, latestLedger: found.latestLedger };
  });

  /** The chunk source of one request: the range read once, tiers recorded. */
  const sourceOf = (r: ServedRange, context: MethodContext): EventChunkSource => ({
    ledgerRange: () => ({ oldestLedger: r.oldestLedger, latestLedger: r.latestLedger }),
    openChunk: async (chunkId: number): Promise<ChunkReader> => {
      const opened = await backend.openChunk(chunkId);
      context.tiers.add(opened.tier);
      return opened.reader;
    },
  });

  methods.set('getEvents', async (params, context) => {
    // The range as read now, unchecked: the worker checks it where this method would (after validation).
    if (eventsWorkers !== undefined) {
      return eventsWorkers.run('getEvents', params, backend.servedRange(), context.tiers);
    }
    const request = validateGetEventsV1(params, {
      maxLimit: config.eventsMaxLimit,
      defaultLimit: config.eventsDefaultLimit,
    });
    const r = range();
    const window = v1ScanWindow(request, r);
    const filters = compileV1Filters(request.filters);
    let page: Awaited<ReturnType<typeof queryEventsV1>>;
    try {
      page = await queryEventsV1(sourceOf(r, context), filters, window, request.limit);
    } catch (error) {
      if (error instanceof MatchError && error.code === 'LEDGER_OUT_OF_RANGE') {
        rpcFail(
          RPC_CODE.INVALID_REQUEST,
          `startLedger must be within the ledger range: ${r.oldestLedger} - ${r.latestLedger}`,
        );
      }
      // Upstream reports a scan failure as -32600 with its text; ours names the failure, never a file.
      if (error instanceof MatchError) rpcFail(RPC_CODE.INVALID_REQUEST, `could not read events: ${error.code}`);
      throw error;
    }
    return {
      events: new RawJson(formatEventsJson(page.events, request.xdrFormat, true)),
      cursor: formatEventId(page.cursor),
      latestLedger: r.latestLedger,
      oldestLedger: r.oldestLedger,
      latestLedgerCloseTime: String(r.latestLedgerCloseTime),
      oldestLedgerCloseTime: String(r.oldestLedgerCloseTime),
    };
  });

  methods.set('getEventsV2', async (params, context) => {
    if (eventsWorkers !== undefined) {
      return eventsWorkers.run('getEventsV2', params, backend.servedRange(), context.tiers);
    }
    const r = range();
    const ledgerRange = { oldestLedger: r.oldestLedger, latestLedger: r.latestLedger };
    const request = validateGetEventsV2(params, {
      maxLimit: config.eventsV2MaxLimit,
      defaultLimit: config.eventsV2DefaultLimit,
      maxFilters: config.eventsV2MaxFilters,
      termBudget: config.eventsV2TermBudget,
      ledgerRange,
    });
    let scope: QueryScope;
    let position: Parameters<typeof queryEvents>[2];
    if (request.kind === 'query') {
      scope =
        request.maxLedger === undefined
          ? { minLedger: request.minLedger, order: request.order, filters: request.filters }
          : {
              minLedger: request.minLedger,
              maxLedger: request.maxLedger,
              order: request.order,
              filters: request.filters,
            };
      position = undefined;
    } else {
      scope = scopeOfCursor(request.cursor);
      position = request.cursor;
    }
    let page: Awaited<ReturnType<typeof queryEvents>>;
    try {
      page = await queryEvents(sourceOf(r, context), scope, position, request.limit);
    } catch (error) {
      if (error instanceof MatchError) {
        if (error.code === 'CURSOR_MALFORMED') {
          rpcFail(RPC_CODE.INVALID_PARAMS, `malformed cursor: ${error.detail}`, {
            reason: V2_REASON.CURSOR_MALFORMED,
            ...ledgerRange,
          });
        }
        if (error.code === 'LEDGER_OUT_OF_RANGE') {
          const missingLedger = error.missingLedger ?? r.oldestLedger;
          rpcFail(
            RPC_CODE.INVALID_PARAMS,
            `ledger ${missingLedger} is outside the served range ${r.oldestLedger} - ${r.latestLedger}`,
            { reason: V2_REASON.LEDGER_OUT_OF_RANGE, missingLedger, ...ledgerRange },
          );
        }
        if (error.code === 'INVALID_SCOPE') {
          rpcFail(RPC_CODE.INVALID_PARAMS, `invalid query: ${error.detail}`, { reason: V2_REASON.INVALID_PARAMS });
        }
      }
      throw error;
    }
    const out: Record<string, unknown> = {
      events: new RawJson(formatEventsJson(page.events, request.xdrFormat, false)),
    };
    if (page.cursor !== undefined) out.cursor = encodeCursorV2(page.cursor);
    out.scanStatus = page.scanStatus;
    out.scannedLedger = page.scannedLedger;
    out.oldestLedger = page.oldestLedger;
    out.latestLedger = page.latestLedger;
    return out;
  });

  return methods;
}

/** The JSON-RPC error for anything a method threw: refusals verbatim, everything else -32603 without detail. */
export function errorBodyOf(error: unknown): {
  body: { code: number; message: string; data?: unknown };
  internal: boolean;
} {
  if (error instanceof RpcError && error.rpc !== undefined) return { body: error.rpc, internal: false };
  if (error instanceof EventsError && error.rpc !== undefined) return { body: error.rpc, internal: false };
  return { body: { code: RPC_CODE.INTERNAL_ERROR, message: 'internal error' }, internal: true };
}
