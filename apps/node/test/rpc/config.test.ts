// The JSON-RPC configuration. Checks:
// 1. defaults are stellar-rpc's where it has them; flag strings and camelCase or kebab-case names are accepted;
// 2. a TOML file (flat or under [rpc]) and a JSON file load over the defaults;
// 3. unknown keys, out-of-range values, a default above its maximum, a bad listen address and an unreadable or
//    malformed file are RpcError INVALID_CONFIG naming the key (and the file), also from createRpcServer.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorOf, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import type { RpcBackend } from '../../src/rpc/index.js';
import {
  createRpcServer,
  DEFAULT_RPC_CONFIG,
  loadRpcConfigFile,
  parseListen,
  RpcError,
  rpcConfigFrom,
} from '../../src/rpc/index.js';

describe('JSON-RPC configuration', () => {
  it('has stellar-rpc defaults and takes flag values', () => {
    expect(DEFAULT_RPC_CONFIG).toMatchObject({
      listen: '127.0.0.1:8000',
      maxBodyBytes: 524_288,
      requestTimeoutMs: 10_000,
      queueLimit: 1000,
      eventsMaxLimit: 10_000,
      eventsDefaultLimit: 100,
      eventsV2MaxLimit: 1000,
      eventsV2MaxFilters: 256,
      eventsV2TermBudget: 15,
      ledgerRetentionWindow: 120_960,
    });
    const config = rpcConfigFrom({ 'queue-limit': '5', requestTimeoutMs: 250, 'friendbot-url': 'http://f' });
    expect(config).toMatchObject({ queueLimit: 5, requestTimeoutMs: 250, friendbotUrl: 'http://f', maxBatchSize: 100 });
    expect(parseListen('127.0.0.1:8000')).toEqual({ host: '127.0.0.1', port: 8000 });
    expect(parseListen('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(parseListen(':9000')).toEqual({ host: '0.0.0.0', port: 9000 });
  });

  it('loads TOML and JSON files', () => {
    const dir = tempDir('rpc-config');
    const toml = join(dir, 'strata.toml');
    writeFileSync(toml, '[rpc]\nlisten = "0.0.0.0:9001"\nevents-max-limit = 5000\nmax-batch-size = 10\n');
    expect(loadRpcConfigFile(toml)).toMatchObject({
      listen: '0.0.0.0:9001',
      eventsMaxLimit: 5000,
      maxBatchSize: 10,
      queueLimit: 1000,
    });
    const json = join(dir, 'rpc.json');
    writeFileSync(json, JSON.stringify({ 'request-timeout-ms': 1500 }));
    expect(loadRpcConfigFile(json).requestTimeoutMs).toBe(1500);
  });

  it('refuses bad keys, values and files with INVALID_CONFIG', () => {
    const dir = tempDir('rpc-config');
    const bad = (call: () => unknown, field: string) => {
      const error = errorOf(RpcError, call);
      expect(error.code).toBe('INVALID_CONFIG');
      expect(error.field).toBe(field);
      return error;
    };
    bad(() => rpcConfigFrom({ 'no-such-key': 1 }), 'no-such-key');
    bad(() => rpcConfigFrom({ 'events-v2-max-limit': 1001 }), 'events-v2-max-limit');
    bad(() => rpcConfigFrom({ 'max-body-bytes': 'lots' }), 'max-body-bytes');
    bad(() => rpcConfigFrom({ 'events-default-limit': 200, 'events-max-limit': 100 }), 'events-default-limit');
    bad(() => rpcConfigFrom({ listen: 'localhost' }), 'listen');
    const missing = bad(() => loadRpcConfigFile(join(dir, 'absent.toml')), 'config');
    expect(missing.file).toBe(join(dir, 'absent.toml'));
    const broken = join(dir, 'broken.toml');
    writeFileSync(broken, 'listen = \n');
    bad(() => loadRpcConfigFile(broken), 'config');
    bad(() => createRpcServer({ backend: {} as RpcBackend, config: { maxConcurrent: 0 } }), 'max-concurrent');
  });
});
