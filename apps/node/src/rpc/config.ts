// The JSON-RPC server's configuration: every key, its default (stellar-rpc's where it has one, spec §1.6), and
// loading from a TOML or JSON file (flat keys, or under an `[rpc]` table) with flag overrides on top. Keys are the
// kebab-case names below in files and after `--rpc-` on the command line; README "JSON-RPC" lists them.
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { badConfig } from './errors.js';

export interface RpcConfig {
  /** host:port to bind; anything but a loopback address is an explicit choice. */
  readonly listen: string;
  /** Largest request body accepted (stellar-rpc maxHTTPRequestSize: 512 KiB); larger is HTTP 413. */
  readonly maxBodyBytes: number;
  /** Most requests in one JSON-RPC batch. */
  readonly maxBatchSize: number;
  /** Time a client has to send its whole body; a slower one gets HTTP 408 and its connection closed. */
  readonly bodyTimeoutMs: number;
  /** Execution time one request may take before it is answered -32001 (stellar-rpc's 10 s for getEvents). */
  readonly requestTimeoutMs: number;
  /** Requests executing at once; the rest wait in the queue. */
  readonly maxConcurrent: number;
  /** Requests that may wait (stellar-rpc's per-method backlog 1000); past it a request is refused as busy. */
  readonly queueLimit: number;
  /** Open HTTP connections at most (stellar-rpc max_concurrent_requests 5000); more are refused by the socket. */
  readonly maxConnections: number;
  /**
   * Worker threads that run getEvents / getEventsV2 (each with its own chunk readers: a hot chunk's index is
   * rebuilt in each); 0 = on the server's thread. Used only with a backend that names an eventsWorkerOpener.
   */
  readonly eventsWorkers: number;
  /** getEvents (v1) page size: maximum and default (max-events-limit / default-events-limit). */
  readonly eventsMaxLimit: number;
  readonly eventsDefaultLimit: number;
  /** getEventsV2: page size maximum (≤ 1000) and default, filters per request, distinct-term budget. */
  readonly eventsV2MaxLimit: number;
  readonly eventsV2DefaultLimit: number;
  readonly eventsV2MaxFilters: number;
  readonly eventsV2TermBudget: number;
  /** What getHealth reports as ledgerRetentionWindow (history-retention-window). */
  readonly ledgerRetentionWindow: number;
  /** getNetwork's friendbotUrl; empty = omitted. */
  readonly friendbotUrl: string;
  /** getHealth fails when the latest ledger closed longer ago than this (seconds); 0 = never (see README). */
  readonly maxHealthyLedgerLatencySeconds: number;
}

export const DEFAULT_RPC_CONFIG: RpcConfig = {
  listen: '127.0.0.1:8000',
  maxBodyBytes: 512 * 1024,
  maxBatchSize: 100,
  bodyTimeoutMs: 10_000,
  requestTimeoutMs: 10_000,
  maxConcurrent: 8,
  queueLimit: 1000,
  maxConnections: 5000,
  eventsWorkers: 1,
  eventsMaxLimit: 10_000,
  eventsDefaultLimit: 100,
  eventsV2MaxLimit: 1000,
  eventsV2DefaultLimit: 100,
  eventsV2MaxFilters: 256,
  eventsV2TermBudget: 15,
  ledgerRetentionWindow: 120_960,
  friendbotUrl: '',
  maxHealthyLedgerLatencySeconds: 0,
};

type Key = keyof RpcConfig;

/** kebab-case file / flag name of each key. */
export const RPC_CONFIG_KEYS: Readonly<Record<Key, string>> = {
  listen: 'listen',
  maxBodyBytes: 'max-body-bytes',
  maxBatchSize: 'max-batch-size',
  bodyTimeoutMs: 'body-timeout-ms',
  requestTimeoutMs: 'request-timeout-ms',
  maxConcurrent: 'max-concurrent',
  queueLimit: 'queue-limit',
  maxConnections: 'max-connections',
  eventsWorkers: 'events-workers',
  eventsMaxLimit: 'events-max-limit',
  eventsDefaultLimit: 'events-default-limit',
  eventsV2MaxLimit: 'events-v2-max-limit',
  eventsV2DefaultLimit: 'events-v2-default-limit',
  eventsV2MaxFilters: 'events-v2-max-filters',
  eventsV2TermBudget: 'events-v2-term-budget',
  ledgerRetentionWindow: 'ledger-retention-window',
  friendbotUrl: 'friendbot-url',
  maxHealthyLedgerLatencySeconds: 'max-healthy-ledger-latency-seconds',
};

/** Inclusive integer bounds of the numeric keys. */
const BOUNDS: Partial<Record<Key, readonly [number, number]>> = {
  maxBodyBytes: [1024, 64 * 1024 * 1024],
  maxBatchSize: [1, 10_000],
  bodyTimeoutMs: [1, 3_600_000],
  requestTimeoutMs: [1, 3_600_000],
  maxConcurrent: [1, 1024],
  queueLimit: [0, 1_000_000],
  maxConnections: [1, 1_000_000],
  eventsWorkers: [0, 64],
  eventsMaxLimit: [1, 10_000],
  eventsDefaultLimit: [1, 10_000],
  eventsV2MaxLimit: [1, 1000],
  eventsV2DefaultLimit: [1, 1000],
  eventsV2MaxFilters: [1, 256],
  eventsV2TermBudget: [0, 1_000_000],
  ledgerRetentionWindow: [0, 0xffffffff],
  maxHealthyLedgerLatencySeconds: [0, 0xffffffff],
};

const BY_NAME = new Map<string, Key>(
  (Object.entries(RPC_CONFIG_KEYS) as [Key, string][]).flatMap(([key, name]) => [
    [name, key],
    [key, key],
  ]),
);

/**
 * The configuration from `values` (file or flag values by kebab-case or camelCase name; strings are parsed as
 * numbers for numeric keys, as flags arrive) over `base`. Unknown keys and bad values are INVALID_CONFIG.
 */
export function rpcConfigFrom(
  values: Record<string, unknown>,
  base: RpcConfig = DEFAULT_RPC_CONFIG,
  file?: string,
): RpcConfig {
  const out: Record<string, unknown> = { ...base };
  for (const [name, raw] of Object.entries(values)) {
    if (raw === undefined) continue;
    const key = BY_NAME.get(name);
    if (key === undefined) badConfig(name, `unknown JSON-RPC configuration key ${JSON.stringify(name)}`, file);
    const bounds = BOUNDS[key];
    if (bounds === undefined) {
      if (typeof raw !== 'string') badConfig(RPC_CONFIG_KEYS[key], 'must be a string', file);
      out[key] = raw;
      continue;
    }
    const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < bounds[0] || value > bounds[1]) {
      badConfig(RPC_CONFIG_KEYS[key], `must be an integer in ${bounds[0]}..${bounds[1]}`, file);
    }
    out[key] = value;
  }
  const config = out as unknown as RpcConfig;
  parseListen(config.listen);
  if (config.eventsDefaultLimit > config.eventsMaxLimit) {
    badConfig(RPC_CONFIG_KEYS.eventsDefaultLimit, `must not exceed ${RPC_CONFIG_KEYS.eventsMaxLimit}`, file);
  }
  if (config.eventsV2DefaultLimit > config.eventsV2MaxLimit) {
    badConfig(RPC_CONFIG_KEYS.eventsV2DefaultLimit, `must not exceed ${RPC_CONFIG_KEYS.eventsV2MaxLimit}`, file);
  }
  return config;
}

/** Reads a TOML (`.toml`) or JSON file of configuration keys (flat, or under `rpc`). */
export function loadRpcConfigFile(path: string, base: RpcConfig = DEFAULT_RPC_CONFIG): RpcConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return badConfig('config', 'cannot read the configuration file', path);
  }
  let parsed: unknown;
  try {
    parsed = extname(path).toLowerCase() === '.toml' ? parseToml(text) : JSON.parse(text);
  } catch (error) {
    return badConfig(
      'config',
      `not valid ${extname(path) === '.toml' ? 'TOML' : 'JSON'}: ${(error as Error).message.split('\n')[0]}`,
      path,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    badConfig('config', 'must hold a table of keys', path);
  const table = (parsed as Record<string, unknown>).rpc ?? parsed;
  if (typeof table !== 'object' || table === null || Array.isArray(table)) badConfig('rpc', 'must be a table', path);
  return rpcConfigFrom(table as Record<string, unknown>, base, path);
}

/** `listen` as host and port ("host:port", "[v6]:port" or ":port" for all interfaces). */
export function parseListen(listen: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(listen);
  const port = m === null ? Number.NaN : Number(m[3]);
  if (m === null || port > 65535) return badConfig(RPC_CONFIG_KEYS.listen, 'must be host:port');
  return { host: m[1] ?? (m[2] === '' ? '0.0.0.0' : (m[2] ?? '')), port };
}
