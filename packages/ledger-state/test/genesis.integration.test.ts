// Genesis against every stellar-core capture stream (fixtures/stellar-core-lcm, each a test network from genesis;
// ledger 1 itself is not in the stream). Two checks per stream:
//  1. Revealed values: every account or CONFIG_SETTING entry the stream carries with lastModifiedLedgerSeq 1 (found
//     by decoding the records with @stellar/stellar-base) equals, byte for byte, the entry genesisEntries builds for
//     the stream's genesis protocol (genesisProtocolOf) with the default test Config, or else, when the test changed
//     its Config, the entry built with the Config the reveals imply (genesisTestConfigOf): a per-test override. A
//     revealed value neither explains is a porting error; there must be none.
//  2. The whole genesis: the genesis LedgerHeader, holding the bucketListHash of the genesis entries (with the
//     stream's reveals and implied Config), hashes to ledger 2's previousLedgerHash. This covers the entries no
//     stream reveals (the cost parameters, the eviction iterator, the state-size window) and the genesis protocol.
// Negative control: a genesis with one cost parameter changed fails check 2 for every Soroban stream.
// Check 1 prints its counts per setting (compared, of which per-test overrides) and the Configs the reveals imply.
import { basename } from 'node:path';
import { extractLedger, readLedgerCloseMetaStream } from '@strata/ledger-meta';
import { describeWithFixtures, lcmFixtureStreams, tempDir } from '@strata/test-kit';
import { beforeAll, expect, it } from 'vitest';
import {
  GenesisReveals,
  type GenesisTestConfig,
  genesisEntries,
  genesisLedgerHeader,
  genesisProtocolOf,
  genesisTestConfigOf,
} from '../src/genesis/index.js';
import { CAPTURE_PASSPHRASE, changedEntriesOf, genesisBucketListHash, sha256Of } from './genesis-oracle.js';

interface StreamGenesis {
  file: string;
  protocolVersion: number;
  previousLedgerHash: Uint8Array;
  revealed: Uint8Array[];
  config: GenesisTestConfig;
  /** Records stellar-base could not decode (their reveals, if any, are not seen). */
  undecoded: number;
}

/** The setting a revealed entry is for: `account` or `setting <id>`. */
function settingName(entry: Uint8Array): string {
  const view = Buffer.from(entry.buffer, entry.byteOffset, entry.length);
  return view.readUInt32BE(4) === 0 ? 'account' : `setting ${view.readUInt32BE(8)}`;
}

function byName(entries: readonly Uint8Array[]): Map<string, Buffer> {
  return new Map(entries.map((entry) => [settingName(entry), Buffer.from(entry)]));
}

async function readStreamGenesis(file: string): Promise<StreamGenesis> {
  const reveals = new GenesisReveals();
  let first: Uint8Array | undefined;
  let undecoded = 0;
  for await (const record of readLedgerCloseMetaStream(file)) {
    first ??= record.bytes;
    const entries = changedEntriesOf(record.bytes);
    if (entries === undefined) undecoded++;
    else for (const entry of entries) reveals.observe(entry);
  }
  if (first === undefined) throw new Error(`${file}: an empty stream`);
  const ledger2 = extractLedger(first);
  const protocolVersion = genesisProtocolOf(ledger2);
  const revealed = reveals.entries();
  return {
    file,
    protocolVersion,
    previousLedgerHash: ledger2.header.previousLedgerHash,
    revealed,
    config: genesisTestConfigOf(revealed, protocolVersion),
    undecoded,
  };
}

/** Check 2: the streams whose ledger 2 does not name the genesis `build` makes for them. */
function headerMismatches(
  streams: readonly StreamGenesis[],
  build: (stream: StreamGenesis) => Uint8Array[],
  dir: string,
): string[] {
  return streams
    .filter((stream) => {
      const bucketListHash = genesisBucketListHash(build(stream), stream.protocolVersion, dir);
      const header = genesisLedgerHeader({ protocolVersion: stream.protocolVersion, bucketListHash });
      return !Buffer.from(sha256Of(header)).equals(stream.previousLedgerHash);
    })
    .map((stream) => stream.file);
}

const streamGenesis = (stream: StreamGenesis) =>
  genesisEntries({
    networkPassphrase: CAPTURE_PASSPHRASE,
    protocolVersion: stream.protocolVersion,
    config: stream.config,
    overrides: stream.revealed,
  });

describeWithFixtures('genesis against every stellar-core capture stream', [['stellar-core-lcm']], () => {
  const streams: StreamGenesis[] = [];

  beforeAll(async () => {
    for (const file of lcmFixtureStreams()) streams.push(await readStreamGenesis(file));
  }, 120_000);

  it('1. every revealed genesis value is the ported default or a per-test Config override, never a porting error', () => {
    const counts = new Map<string, { compared: number; override: number }>();
    const portingErrors: string[] = [];
    const defaults = new Map<number, Map<string, Buffer>>();
    for (const stream of streams) {
      const { protocolVersion, config } = stream;
      if (!defaults.has(protocolVersion)) {
        defaults.set(
          protocolVersion,
          byName(genesisEntries({ networkPassphrase: CAPTURE_PASSPHRASE, protocolVersion })),
        );
      }
      const ported = defaults.get(protocolVersion);
      const withConfig = byName(genesisEntries({ networkPassphrase: CAPTURE_PASSPHRASE, protocolVersion, config }));
      for (const entry of stream.revealed) {
        const name = settingName(entry);
        const count = counts.get(name) ?? { compared: 0, override: 0 };
        counts.set(name, count);
        count.compared++;
        if (ported?.get(name)?.equals(entry) === true) continue;
        if (withConfig.get(name)?.equals(entry) === true) count.override++;
        else portingErrors.push(`${stream.file}: ${name} (genesis protocol ${protocolVersion})`);
      }
    }
    // The counts are part of the report this suite exists for.
    const undecoded = streams.reduce((sum, stream) => sum + stream.undecoded, 0);
    const configs = streams
      .filter((stream) => Object.keys(stream.config).length > 0)
      .map((stream) => `${basename(stream.file)} ${JSON.stringify(stream.config)}`);
    process.stdout.write(
      `genesis reveals: ${streams.length} streams (${undecoded} records not decodable by stellar-base); ` +
        `${JSON.stringify(Object.fromEntries(counts))}; Configs implied: ${configs.join(', ')}\n`,
    );
    expect(streams.length).toBeGreaterThan(0);
    expect(portingErrors).toEqual([]);
    // Every stream reveals its root account (it pays the fees of ledger 2's transactions).
    expect(counts.get('account')?.compared).toBe(streams.length);
  });

  it('2. the genesis header of every stream hashes to its ledger 2 previousLedgerHash', () => {
    expect(headerMismatches(streams, streamGenesis, tempDir())).toEqual([]);
  });

  it('negative control: one cost parameter off by one breaks check 2 for every Soroban genesis', () => {
    // CONTRACT_COST_PARAMS_CPU_INSTRUCTIONS starts [count][ext 0][constTerm of WasmInsnExec]: bump its last byte.
    const CPU_COST_PARAMS = 'setting 6';
    const WASM_INSN_EXEC_CONST_END = 12 + 4 + 4 + 8;
    const broken = (stream: StreamGenesis) =>
      streamGenesis(stream).map((entry) => {
        if (settingName(entry) !== CPU_COST_PARAMS) return entry;
        const copy = entry.slice();
        copy[WASM_INSN_EXEC_CONST_END - 1] = (copy[WASM_INSN_EXEC_CONST_END - 1] ?? 0) + 1;
        return copy;
      });
    const soroban = streams.filter((stream) => stream.protocolVersion >= 20);
    expect(soroban.length).toBeGreaterThan(0);
    expect(headerMismatches(soroban, broken, tempDir()).length).toBe(soroban.length);
  });
});
