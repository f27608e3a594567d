// Shared by the Soroban state tests: entry builders, a memory cost schedule writer, an independent memory-cost
// oracle, a random ledger generator with a Map oracle of the state it leads to, and a whole-state comparison.
import { createHash } from 'node:crypto';
import {
  type ContractCodeCostInputs,
  encodeLedgerEntry,
  encodeLedgerKey,
  LEDGER_ENTRY_TYPE,
  ledgerKeyOfEntry,
} from '@strata/ledger-key';
import { expect } from 'vitest';
import type { SorobanState } from '../src/soroban-state/soroban-state.js';

export const contract = { type: 'contract' as const, contractId: new Uint8Array(32).fill(0xc0) };

const id32 = (n: number, tag: number): Uint8Array => {
  const out = new Uint8Array(32).fill(tag);
  new DataView(out.buffer).setUint32(0, n);
  return out;
};

/** Contract ids data entries belong to (most entries share a few contracts, as a token's balances do). */
const contracts = [contract, ...[1, 2].map((n) => ({ type: 'contract' as const, contractId: id32(n, 0xc1) }))];
const accountOwner = { type: 'account' as const, accountId: id32(7, 0xa0) };

/**
 * Key SCVal of data entry `n`; odd n are TEMPORARY. Entries belong to one of three contracts, every fifth to an
 * account (an owner the state stores as is; the others it stores compact).
 */
function dataKeyFields(n: number) {
  return {
    contract: n % 5 === 4 ? accountOwner : contracts[n % 3]!,
    key: {
      type: 'vec' as const,
      value: [
        { type: 'symbol' as const, value: 'Balance' },
        { type: 'u32' as const, value: n },
      ],
    },
    durability: n % 2 === 1 ? ('temporary' as const) : ('persistent' as const),
  };
}

export function dataKey(n: number): Uint8Array {
  return encodeLedgerKey({ type: 'contractData', ...dataKeyFields(n) });
}

/**
 * A CONTRACT_DATA entry whose value is `valueBytes` bytes (its size varies with them). Every seventh key's entry
 * carries a LedgerEntry v1 extension without a sponsor (its XDR ends in zero words, like ext v0's: the state must
 * tell them apart).
 */
export function dataEntry(n: number, lastModified: number, valueBytes = 8): Uint8Array {
  const value = new Uint8Array(valueBytes).fill(lastModified & 0xff);
  return encodeLedgerEntry({
    lastModifiedLedgerSeq: lastModified,
    data: { type: 'contractData', ...dataKeyFields(n), val: { type: 'bytes', value } },
    ...(n % 7 === 6 ? { v1: { sponsoringId: null } } : {}),
  });
}

export function codeKey(n: number): Uint8Array {
  return encodeLedgerKey({ type: 'contractCode', hash: id32(n, 0xcc) });
}

/** A CONTRACT_CODE entry: ext v1 with `costInputs` when given, else ext v0. */
export function codeEntry(
  n: number,
  lastModified: number,
  codeBytes = 64,
  costInputs?: ContractCodeCostInputs,
): Uint8Array {
  return encodeLedgerEntry({
    lastModifiedLedgerSeq: lastModified,
    data: {
      type: 'contractCode',
      hash: id32(n, 0xcc),
      code: new Uint8Array(codeBytes).fill(0x61),
      ...(costInputs === undefined ? {} : { costInputs }),
    },
  });
}

export function keyHashOf(key: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(key).digest());
}

export function ttlKey(key: Uint8Array): Uint8Array {
  return encodeLedgerKey({ type: 'ttl', keyHash: keyHashOf(key) });
}

export function ttlEntry(key: Uint8Array, liveUntil: number, lastModified: number): Uint8Array {
  return encodeLedgerEntry({
    lastModifiedLedgerSeq: lastModified,
    data: { type: 'ttl', keyHash: keyHashOf(key), liveUntilLedgerSeq: liveUntil },
  });
}

export function accountEntry(n: number, lastModified: number): Uint8Array {
  return encodeLedgerEntry({
    lastModifiedLedgerSeq: lastModified,
    data: { type: 'account', accountId: id32(n, 0xaa), balance: BigInt(lastModified) },
  });
}

export function accountKey(n: number): Uint8Array {
  return encodeLedgerKey({ type: 'account', accountId: id32(n, 0xaa) });
}

/** ContractCostParams XDR: each entry [constTerm, linearTerm]. */
export function costParams(entries: readonly (readonly [bigint, bigint])[]): Uint8Array {
  const out = new Uint8Array(4 + 20 * entries.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, entries.length);
  entries.forEach(([constTerm, linearTerm], i) => {
    view.setBigInt64(4 + 20 * i + 4, constTerm);
    view.setBigInt64(4 + 20 * i + 12, linearTerm);
  });
  return out;
}

/**
 * stellar-core's memory cost schedule after protocol 21 for the types the module memory cost reads
 * (NetworkConfig.cpp initialMemCostParamsEntryForV20 VmInstantiation, updateMemCostParamsEntryForV21 ParseWasm*);
 * the other types are zero here.
 */
export function v21MemoryParams(): [bigint, bigint][] {
  const params: [bigint, bigint][] = Array.from({ length: 45 }, () => [0n, 0n]);
  params[11] = [130065n, 5064n]; // VmInstantiation
  const parseWasm: [bigint, bigint][] = [
    [17564n, 6457n], // ParseWasmInstructions
    [0n, 47464n], // ParseWasmFunctions
    [0n, 13420n], // ParseWasmGlobals
    [0n, 6285n], // ParseWasmTableEntries
    [0n, 64670n], // ParseWasmTypes
    [0n, 29074n], // ParseWasmDataSegments
    [0n, 48095n], // ParseWasmElemSegments
    [0n, 103229n], // ParseWasmImports
    [0n, 36394n], // ParseWasmExports
    [0n, 257n], // ParseWasmDataSegmentBytes
  ];
  parseWasm.forEach((model, i) => {
    params[23 + i] = model;
  });
  return params;
}

const COST_INPUT_FIELDS = [
  'nInstructions',
  'nFunctions',
  'nGlobals',
  'nTableEntries',
  'nTypes',
  'nDataSegments',
  'nElemSegments',
  'nImports',
  'nExports',
  'nDataSegmentBytes',
] as const;

/** The memory cost written out plainly from parsed_module.rs / model.rs (the oracle; u64 saturation included). */
export function memoryCostOracle(
  params: readonly (readonly [bigint, bigint])[],
  code: { codeLength: number; costInputs?: ContractCodeCostInputs },
): bigint {
  const max = 2n ** 64n - 1n;
  const model = (type: number, input: number): bigint => {
    const [c, l] = params[type] ?? [0n, 0n];
    const linear = l * BigInt(input) > max ? max : l * BigInt(input);
    return c + (linear >> 7n) > max ? max : c + (linear >> 7n);
  };
  if (code.costInputs === undefined) return model(11, code.codeLength);
  let sum = 0n;
  COST_INPUT_FIELDS.forEach((field, i) => {
    sum += model(23 + i, code.costInputs![field]);
    if (sum > max) sum = max;
  });
  return sum;
}

/** What the oracle holds per key: the entry and its TTL (undefined when the TTL never arrived). */
export interface OracleEntry {
  entry: Uint8Array;
  liveUntil: number | undefined;
  lastModified: number | undefined;
}

const hexOf = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/**
 * Compares a state with an oracle keyed by hex TTL key hash: counts, sizes (data from the oracle's entries, code as
 * the caller computed it), every entry and its TTL through iteration, and every oracle entry through get / has /
 * liveUntilOf (by data key and by TTL key).
 */
export function expectStateEquals(
  state: SorobanState,
  oracle: ReadonlyMap<string, OracleEntry>,
  expectedCodeSize: number,
): void {
  let dataCount = 0;
  let dataSize = 0;
  let withoutTtl = 0;
  for (const { entry, liveUntil } of oracle.values()) {
    if (liveUntil === undefined) withoutTtl++;
    if (new DataView(entry.buffer, entry.byteOffset).getUint32(4) === LEDGER_ENTRY_TYPE.CONTRACT_DATA) {
      dataCount++;
      dataSize += entry.length;
    }
  }
  expect({ data: state.dataCount, code: state.codeCount, withoutTtl: state.entriesWithoutTtl }).toEqual({
    data: dataCount,
    code: oracle.size - dataCount,
    withoutTtl,
  });
  expect({ data: state.dataSizeBytes, code: state.codeSizeBytes }).toEqual({ data: dataSize, code: expectedCodeSize });
  expect(state.stateSizeBytes).toBe(dataSize + expectedCodeSize);
  let visited = 0;
  state.forEachEntry((entry, liveUntil, lastModified, ttlKeyHash) => {
    visited++;
    const expected = oracle.get(hexOf(ttlKeyHash));
    if (expected === undefined) throw new Error(`an entry the oracle does not hold: ${hexOf(ttlKeyHash)}`);
    expect(hexOf(entry)).toBe(hexOf(expected.entry));
    expect([liveUntil, lastModified]).toEqual([expected.liveUntil, expected.lastModified]);
  });
  expect(visited).toBe(oracle.size);
  for (const [hash, expected] of oracle) {
    const key = ledgerKeyOfEntry(expected.entry);
    const found = state.get(key);
    expect(found && hexOf(found.entry)).toBe(hexOf(expected.entry));
    expect([found?.liveUntilLedgerSeq, found?.ttlLastModifiedLedgerSeq]).toEqual([
      expected.liveUntil,
      expected.lastModified,
    ]);
    expect(state.has(key)).toBe(true);
    const hashBytes = Buffer.from(hash, 'hex');
    expect(state.liveUntilOf(hashBytes)).toBe(expected.liveUntil);
    const ttl = encodeLedgerKey({ type: 'ttl', keyHash: hashBytes });
    expect(state.has(ttl)).toBe(expected.liveUntil !== undefined);
  }
}

/** Two states compared entry by entry, both ways through their lookups (not their ledgerSeq). */
export function expectStatesEqual(actual: SorobanState, expected: SorobanState): void {
  const oracle = new Map<string, OracleEntry>();
  expected.forEachEntry((entry, liveUntil, lastModified, ttlKeyHash) => {
    oracle.set(hexOf(ttlKeyHash), { entry: entry.slice(), liveUntil, lastModified });
  });
  expectStateEquals(actual, oracle, expected.codeSizeBytes);
}

/** One ledger of the script: the changes as a LedgerBatch would hold them (init possibly out of key order). */
export interface ScriptLedger {
  init: Uint8Array[];
  live: Uint8Array[];
  dead: Uint8Array[];
}

export interface ScriptOptions {
  /** Data ids are 0..dataIds-1, code ids 0..codeIds-1. */
  dataIds: number;
  codeIds: number;
  /** Most changed keys per ledger. */
  maxChanges: number;
  /** Chance that a data value is large (1-3 KiB: large records in small arena chunks). */
  largeValueChance: number;
  /** Shuffle the init list (TTLs before their entries); LedgerBatch sorts, the state must not care. */
  shuffleInit: boolean;
}

/**
 * Random ledgers of creates, updates, deletes and evictions (dead entry + dead TTL), TTL extensions and restores
 * (an evicted entry re-created with its TTL, or an expired one whose TTL alone is rewritten), code creates and
 * updates (ext v0 and v1), and ACCOUNT changes the state must ignore; `oracle` holds what the state must hold after
 * each ledger, `existing` every key live now (for INIT vs LIVE of the bucket list).
 */
export class LedgerScript {
  readonly oracle = new Map<string, OracleEntry>();
  /** Code entries live now: hash → what their memory cost depends on. */
  readonly codeInputs = new Map<string, { codeLength: number; costInputs?: ContractCodeCostInputs }>();
  private readonly accounts = new Set<number>();

  constructor(
    private readonly random: () => number,
    private readonly options: ScriptOptions,
  ) {}

  /** The changes of ledger `ledger`, applied to the oracle. */
  next(ledger: number): ScriptLedger {
    const out: ScriptLedger = { init: [], live: [], dead: [] };
    const touched = new Set<string>();
    const changes = Math.floor(this.random() * (this.options.maxChanges + 1));
    for (let i = 0; i < changes; i++) {
      const roll = this.random();
      if (roll < 0.6) this.changeData(ledger, out, touched);
      else if (roll < 0.75) this.changeCode(ledger, out, touched);
      else this.changeAccount(ledger, out, touched);
    }
    if (this.options.shuffleInit) {
      for (let i = out.init.length - 1; i > 0; i--) {
        const j = Math.floor(this.random() * (i + 1));
        [out.init[i], out.init[j]] = [out.init[j]!, out.init[i]!];
      }
    }
    return out;
  }

  /** Sum of the code entries' rent sizes under `params` (the oracle's own formula). */
  codeSize(params: readonly (readonly [bigint, bigint])[]): number {
    let total = 0;
    for (const [hash, inputs] of this.codeInputs) {
      const entryLength = this.oracle.get(hash)!.entry.length;
      const cost = memoryCostOracle(params, inputs);
      total += Math.min(entryLength + Number(cost), 0xffff_ffff);
    }
    return total;
  }

  private liveUntilFor(ledger: number): number {
    return ledger + 1 + Math.floor(this.random() * 1000);
  }

  /** The hex TTL key hash of `key`, unless the ledger already changed it. */
  private claim(key: Uint8Array, touched: Set<string>): string | undefined {
    const hash = hexOf(keyHashOf(key));
    if (touched.has(hash)) return undefined;
    touched.add(hash);
    return hash;
  }

  /** A TTL extension, or the restore of an expired entry that was never evicted (only its TTL is written). */
  private extendTtl(key: Uint8Array, current: OracleEntry, ledger: number, out: ScriptLedger): void {
    const liveUntil = (current.liveUntil ?? ledger) + 1 + Math.floor(this.random() * 500);
    out.live.push(ttlEntry(key, liveUntil, ledger));
    current.liveUntil = liveUntil;
    current.lastModified = ledger;
  }

  private changeData(ledger: number, out: ScriptLedger, touched: Set<string>): void {
    const n = Math.floor(this.random() * this.options.dataIds);
    const key = dataKey(n);
    const hash = this.claim(key, touched);
    if (hash === undefined) return;
    const valueBytes =
      this.random() < this.options.largeValueChance
        ? 1024 + Math.floor(this.random() * 2048)
        : Math.floor(this.random() * 200);
    const current = this.oracle.get(hash);
    if (current === undefined) {
      // create, or restore from the hot archive: the entry and its TTL are both created
      const entry = dataEntry(n, ledger, valueBytes);
      const liveUntil = this.liveUntilFor(ledger);
      out.init.push(entry, ttlEntry(key, liveUntil, ledger));
      this.oracle.set(hash, { entry, liveUntil, lastModified: ledger });
      return;
    }
    const roll = this.random();
    if (roll < 0.3) {
      const entry = dataEntry(n, ledger, valueBytes);
      out.live.push(entry);
      current.entry = entry;
    } else if (roll < 0.55) {
      this.extendTtl(key, current, ledger, out);
    } else if (roll < 0.75) {
      const entry = dataEntry(n, ledger, valueBytes);
      const liveUntil = (current.liveUntil ?? ledger) + 1;
      out.live.push(entry, ttlEntry(key, liveUntil, ledger));
      this.oracle.set(hash, { entry, liveUntil, lastModified: ledger });
    } else {
      // deleted, or evicted: the entry and its TTL both go
      out.dead.push(key, ttlKey(key));
      this.oracle.delete(hash);
    }
  }

  private changeCode(ledger: number, out: ScriptLedger, touched: Set<string>): void {
    const n = Math.floor(this.random() * this.options.codeIds);
    const key = codeKey(n);
    const hash = this.claim(key, touched);
    if (hash === undefined) return;
    const codeLength = 4 * Math.floor(this.random() * 600);
    const costInputs =
      this.random() < 0.5
        ? undefined
        : {
            nInstructions: Math.floor(this.random() * 20_000),
            nFunctions: Math.floor(this.random() * 300),
            nGlobals: Math.floor(this.random() * 20),
            nTableEntries: Math.floor(this.random() * 50),
            nTypes: Math.floor(this.random() * 60),
            nDataSegments: Math.floor(this.random() * 10),
            nElemSegments: Math.floor(this.random() * 5),
            nImports: Math.floor(this.random() * 40),
            nExports: Math.floor(this.random() * 30),
            nDataSegmentBytes: Math.floor(this.random() * 5000),
          };
    const current = this.oracle.get(hash);
    const inputs = costInputs === undefined ? { codeLength } : { codeLength, costInputs };
    if (current === undefined) {
      const entry = codeEntry(n, ledger, codeLength, costInputs);
      const liveUntil = this.liveUntilFor(ledger);
      out.init.push(entry, ttlEntry(key, liveUntil, ledger));
      this.oracle.set(hash, { entry, liveUntil, lastModified: ledger });
      this.codeInputs.set(hash, inputs);
      return;
    }
    const roll = this.random();
    if (roll < 0.35) {
      // code entries are rewritten in place when re-uploaded with new cost inputs (ext v0 → v1)
      const entry = codeEntry(n, ledger, codeLength, costInputs);
      out.live.push(entry);
      current.entry = entry;
      this.codeInputs.set(hash, inputs);
    } else if (roll < 0.7) {
      this.extendTtl(key, current, ledger, out);
    } else {
      out.dead.push(key, ttlKey(key));
      this.oracle.delete(hash);
      this.codeInputs.delete(hash);
    }
  }

  private changeAccount(ledger: number, out: ScriptLedger, touched: Set<string>): void {
    const n = Math.floor(this.random() * 8);
    const tag = `account ${n}`;
    if (touched.has(tag)) return;
    touched.add(tag);
    if (!this.accounts.has(n)) {
      out.init.push(accountEntry(n, ledger));
      this.accounts.add(n);
    } else if (this.random() < 0.7) {
      out.live.push(accountEntry(n, ledger));
    } else {
      out.dead.push(accountKey(n));
      this.accounts.delete(n);
    }
  }
}
