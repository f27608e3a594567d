// Unit tests of the in-memory Soroban state: the module memory cost against the formulas of soroban-env-host
// (budget/model.rs, vm/parsed_module.rs) and stellar-core's ledgerEntrySizeForRent, and the state's operations
// and failure modes as InMemorySorobanState.cpp defines them.
import { createHash } from 'node:crypto';
import { encodeLedgerEntry, encodeLedgerKey } from '@strata/ledger-key';
import { seededRandom } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { LedgerStateError } from '../src/errors.js';
import { JS_HASH_MAX_BLOCKS, KeyHasher, SHA256_PADDING_BYTES, sha256Into } from '../src/soroban-state/key-hash.js';
import { contractCodeMemoryCost, ledgerEntrySizeForRent } from '../src/soroban-state/memory-cost.js';
import { SorobanState } from '../src/soroban-state/soroban-state.js';
import {
  accountEntry,
  accountKey,
  codeEntry,
  codeKey,
  costParams,
  dataEntry,
  dataKey,
  keyHashOf,
  memoryCostOracle,
  ttlEntry,
  ttlKey,
  v21MemoryParams,
} from './soroban-state-support.js';

const V21 = costParams(v21MemoryParams());
const inputs = {
  nInstructions: 1000,
  nFunctions: 10,
  nGlobals: 3,
  nTableEntries: 7,
  nTypes: 5,
  nDataSegments: 2,
  nElemSegments: 1,
  nImports: 12,
  nExports: 4,
  nDataSegmentBytes: 600,
};

function codeOfError(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof LedgerStateError) return error.code;
    throw error;
  }
  return undefined;
}

describe('sha256Into and KeyHasher (the TTL key hash)', () => {
  const sharedHasher = new KeyHasher();
  for (const [name, hashInto] of [
    ['sha256Into', sha256Into],
    [
      'a fresh KeyHasher per message',
      (buffer: Uint8Array, length: number, out: Uint8Array) => new KeyHasher().hashInto(buffer, length, out),
    ],
    [
      'one KeyHasher for every message',
      (buffer: Uint8Array, length: number, out: Uint8Array) => sharedHasher.hashInto(buffer, length, out),
    ],
  ] as const) {
    it(`${name} equals node:crypto for every length from 0 to 300 bytes and for random messages, leaving the message intact`, () => {
      const random = seededRandom(11);
      const buffer = new Uint8Array(2100 + SHA256_PADDING_BYTES);
      const out = new Uint8Array(32);
      const lengths = [
        ...Array.from({ length: 301 }, (_, i) => i),
        ...Array.from({ length: 200 }, () => Math.floor(random() * 2100)),
      ];
      for (const length of lengths) {
        for (let i = 0; i < buffer.length; i++) buffer[i] = Math.floor(random() * 256);
        const message = buffer.slice(0, length);
        hashInto(buffer, length, out);
        expect(Buffer.from(out).toString('hex'), `length ${length}`).toBe(
          createHash('sha256').update(message).digest('hex'),
        );
        expect(buffer.subarray(0, length)).toEqual(message);
      }
    });
  }

  /**
   * Messages each made from the one before: the same prefix up to a random point (often a whole number of blocks,
   * often inside one), then other bytes, a random length from 0 to 300; the hasher resumes from shared blocks.
   */
  function prefixRun(seed: number, count: number): Uint8Array[] {
    const random = seededRandom(seed);
    const messages: Uint8Array[] = [];
    let previous = new Uint8Array(0);
    for (let n = 0; n < count; n++) {
      const length = Math.floor(random() * 301);
      const keep = random() < 0.5 ? 64 * Math.floor(random() * 5) : Math.floor(random() * 300);
      const message = new Uint8Array(length);
      for (let i = 0; i < length; i++) message[i] = i < keep && i < previous.length ? previous[i]! : random() * 256;
      messages.push(message);
      previous = message;
    }
    return messages;
  }

  it('a KeyHasher fed messages sharing prefixes with the one before equals node:crypto for each', () => {
    const hasher = new KeyHasher();
    const buffer = new Uint8Array(300 + SHA256_PADDING_BYTES);
    const out = new Uint8Array(32);
    for (const message of prefixRun(5, 3000)) {
      buffer.set(message);
      hasher.hashInto(buffer, message.length, out);
      expect(Buffer.from(out).toString('hex'), `length ${message.length}`).toBe(
        createHash('sha256').update(message).digest('hex'),
      );
    }
  });

  it('negative control: a KeyHasher resuming from a state its blocks did not produce is caught by the same check', () => {
    const hasher = new KeyHasher();
    const buffer = new Uint8Array(300 + SHA256_PADDING_BYTES);
    const out = new Uint8Array(32);
    const messages = prefixRun(5, 200);
    let wrong = 0;
    for (const message of messages) {
      // Corrupt the kept state after block 0: a resumed message then hashes wrong.
      (hasher as unknown as { states: Int32Array }).states[0]! ^= 1;
      buffer.set(message);
      hasher.hashInto(buffer, message.length, out);
      if (Buffer.from(out).toString('hex') !== createHash('sha256').update(message).digest('hex')) wrong++;
    }
    expect(wrong).toBeGreaterThan(10);
  });

  it('KeyHasher.hashAt hashes messages laid back to back in one buffer (as population batches keys), from 4-aligned starts and others', () => {
    const check = (hasher: KeyHasher, buffer: Uint8Array, start: number, message: Uint8Array, what: string) => {
      const out = new Uint8Array(32);
      hasher.hashAt(buffer, start, message.length, out);
      expect(Buffer.from(out).toString('hex'), what).toBe(createHash('sha256').update(message).digest('hex'));
      expect(buffer.subarray(start, start + message.length)).toEqual(message);
    };
    for (const misalign of [0, 1, 2]) {
      const hasher = new KeyHasher();
      const messages = prefixRun(9, 400);
      const buffer = new Uint8Array(messages.reduce((sum, m) => sum + m.length + SHA256_PADDING_BYTES + 8, 8));
      const starts: number[] = [];
      let used = misalign;
      for (const message of messages) {
        buffer.set(message, used);
        starts.push(used);
        used += ((message.length + SHA256_PADDING_BYTES + 7) & ~7) + misalign;
      }
      for (const [i, message] of messages.entries()) {
        check(hasher, buffer, starts[i]!, message, `message ${i}, misaligned by ${misalign}`);
      }
    }
    // A at the buffer's start, B sharing A's first block, then C whose first block is another: C resumes from nothing
    // (a hasher comparing the buffer's first block instead of C's would resume it from B's)
    const a = Uint8Array.from({ length: 100 }, (_, i) => i);
    const b = Uint8Array.from({ length: 100 }, (_, i) => (i < 64 ? i : 255 - i));
    const c = Uint8Array.from({ length: 100 }, (_, i) => 7 * i + 1);
    const buffer = new Uint8Array(3 * 200);
    for (const [i, message] of [a, b, c].entries()) buffer.set(message, 200 * i);
    const hasher = new KeyHasher();
    for (const [i, message] of [a, b, c].entries()) check(hasher, buffer, 200 * i, message, `message ${'ABC'[i]}`);
  });

  it('KeyHasher hashes a message inside a larger buffer from its byte offset, 4-aligned or not (node:crypto path too)', () => {
    for (const offset of [64, 1]) {
      const backing = new Uint8Array(offset + 300 + SHA256_PADDING_BYTES);
      for (let i = 0; i < backing.length; i++) backing[i] = (i * 37 + 5) & 0xff;
      const buffer = backing.subarray(offset);
      const out = new Uint8Array(32);
      const hasher = new KeyHasher();
      for (const length of [64 * JS_HASH_MAX_BLOCKS - 9, 64 * JS_HASH_MAX_BLOCKS - 8, 300, 100, 100]) {
        hasher.hashInto(buffer, length, out);
        expect(Buffer.from(out).toString('hex'), `offset ${offset}, length ${length}`).toBe(
          createHash('sha256').update(buffer.subarray(0, length)).digest('hex'),
        );
      }
    }
  });
});

describe('contractCodeMemoryCost (soroban-env-host wasm_module_memory_cost)', () => {
  it('evaluates a model as const + ((linear × input) >> 7): the cases of model.rs test_model_evaluation_with_rounding', () => {
    // model.rs: const 3, linear 5 → input 1 costs 3 (5 >> 7 = 0), input 26 costs 4 (130 >> 7 = 1)
    const params = Array.from({ length: 12 }, () => [0n, 0n] as [bigint, bigint]);
    params[11] = [3n, 5n];
    expect(contractCodeMemoryCost(codeEntry(1, 5, 1), costParams(params))).toBe(3);
    // the code length of an ext v0 entry is the VmInstantiation input; 26 is not a multiple of 4, 28 is
    expect(contractCodeMemoryCost(codeEntry(1, 5, 28), costParams(params))).toBe(3 + ((5 * 28) >> 7));
    expect(contractCodeMemoryCost(codeEntry(1, 5, 28), costParams(params))).toBe(4);
  });

  it('prices an ext v0 entry with VmInstantiation over its code length', () => {
    // stellar-core's v20 VmInstantiation memory model: 130065 + (5064 × 8192) >> 7 = 130065 + 324096
    expect(contractCodeMemoryCost(codeEntry(1, 5, 8192), V21)).toBe(454_161);
  });

  it('prices an ext v1 entry with the sum of the ten ParseWasm* models over its cost inputs', () => {
    const expected =
      17564 +
      Math.floor((6457 * 1000) / 128) +
      Math.floor((47464 * 10) / 128) +
      Math.floor((13420 * 3) / 128) +
      Math.floor((6285 * 7) / 128) +
      Math.floor((64670 * 5) / 128) +
      Math.floor((29074 * 2) / 128) +
      Math.floor((48095 * 1) / 128) +
      Math.floor((103229 * 12) / 128) +
      Math.floor((36394 * 4) / 128) +
      Math.floor((257 * 600) / 128);
    // the code length does not matter for ext v1
    expect(contractCodeMemoryCost(codeEntry(1, 5, 8192, inputs), V21)).toBe(expected);
    expect(contractCodeMemoryCost(codeEntry(1, 5, 4, inputs), V21)).toBe(expected);
    expect(expected).toBe(Number(memoryCostOracle(v21MemoryParams(), { codeLength: 4, costInputs: inputs })));
  });

  it('treats cost types past the end of a shorter schedule as free (a v20 schedule has no ParseWasm* types)', () => {
    const v20 = v21MemoryParams().slice(0, 23);
    expect(contractCodeMemoryCost(codeEntry(1, 5, 64, inputs), costParams(v20))).toBe(0);
    expect(contractCodeMemoryCost(codeEntry(1, 5, 64), costParams(v20))).toBe(130065 + ((5064 * 64) >> 7));
  });

  it('saturates at u64 and fails above u32, as stellar-core’s bridge does (try_into)', () => {
    const params = v21MemoryParams();
    params[11] = [0n, 2n ** 63n - 1n];
    // (2^63-1) × 8 saturates at 2^64-1; >> 7 is 2^57-1: no u32
    expect(memoryCostOracle(params, { codeLength: 8 })).toBe(2n ** 57n - 1n);
    expect(codeOfError(() => contractCodeMemoryCost(codeEntry(1, 5, 8), costParams(params)))).toBe('BAD_ENTRY');
    params[11] = [2n ** 32n - 1n, 0n];
    expect(contractCodeMemoryCost(codeEntry(1, 5, 8), costParams(params))).toBe(2 ** 32 - 1);
    params[11] = [2n ** 32n, 0n];
    expect(codeOfError(() => contractCodeMemoryCost(codeEntry(1, 5, 8), costParams(params)))).toBe('BAD_ENTRY');
  });

  it('refuses a schedule with a negative term anywhere (MeteredCostComponent::try_from) or malformed XDR', () => {
    const params = v21MemoryParams();
    params[40] = [-1n, 0n];
    expect(codeOfError(() => contractCodeMemoryCost(codeEntry(1, 5, 8), costParams(params)))).toBe('BAD_ENTRY');
    expect(codeOfError(() => contractCodeMemoryCost(codeEntry(1, 5, 8), V21.subarray(0, V21.length - 1)))).toBe(
      'BAD_ENTRY',
    );
    const badExt = V21.slice();
    badExt[7] = 1; // ext of the first ContractCostParamEntry
    expect(codeOfError(() => contractCodeMemoryCost(codeEntry(1, 5, 8), badExt))).toBe('BAD_ENTRY');
  });

  it('takes only one CONTRACT_CODE LedgerEntry', () => {
    expect(codeOfError(() => contractCodeMemoryCost(dataEntry(1, 5), V21))).toBe('INVALID_ARGUMENT');
    expect(codeOfError(() => contractCodeMemoryCost(new Uint8Array(3), V21))).toBe('INVALID_ARGUMENT');
    const trailing = new Uint8Array(codeEntry(1, 5).length + 4);
    trailing.set(codeEntry(1, 5));
    expect(codeOfError(() => contractCodeMemoryCost(trailing, V21))).toBe('INVALID_ARGUMENT');
    expect(codeOfError(() => contractCodeMemoryCost('x' as unknown as Uint8Array, V21))).toBe('INVALID_ARGUMENT');
  });
});

describe('ledgerEntrySizeForRent (stellar-core LedgerTypeUtils.cpp)', () => {
  it('is the XDR size, plus the module memory for code from protocol 23, capped at u32', () => {
    const code = codeEntry(1, 5, 8192);
    expect(ledgerEntrySizeForRent(code, 22, V21)).toBe(code.length);
    expect(ledgerEntrySizeForRent(code, 23, V21)).toBe(code.length + 454_161);
    const data = dataEntry(1, 5, 100);
    expect(ledgerEntrySizeForRent(data, 23, V21)).toBe(data.length);
    const params = v21MemoryParams();
    params[11] = [2n ** 32n - 1n, 0n];
    expect(ledgerEntrySizeForRent(code, 23, costParams(params))).toBe(2 ** 32 - 1);
    expect(codeOfError(() => ledgerEntrySizeForRent(code, -1, V21))).toBe('INVALID_ARGUMENT');
  });
});

const opts = (ledgerSeq: number) => ({ ledgerSeq, protocolVersion: 23, memCostParams: V21 });
const codeSize = (entry: Uint8Array): number => ledgerEntrySizeForRent(entry, 23, V21);

describe('SorobanState', () => {
  it('creates, updates, extends and deletes entries, keeping counts and the size', () => {
    const state = new SorobanState({ ledgerSeq: 9 });
    const data = dataEntry(1, 10, 40);
    const code = codeEntry(2, 10, 100, inputs);
    state.apply(
      {
        init: [ttlEntry(dataKey(1), 100, 10), data, code, ttlEntry(codeKey(2), 200, 10), accountEntry(1, 10)],
        live: [],
        dead: [],
      },
      opts(10),
    );
    expect([state.dataCount, state.codeCount, state.ledgerSeq]).toEqual([1, 1, 10]);
    expect(state.stateSizeBytes).toBe(data.length + codeSize(code));
    expect(state.get(dataKey(1))).toEqual({ entry: data, liveUntilLedgerSeq: 100, ttlLastModifiedLedgerSeq: 10 });
    expect(state.liveUntilOf(keyHashOf(codeKey(2)))).toBe(200);

    const bigger = dataEntry(1, 11, 400);
    state.apply({ init: [], live: [bigger, ttlEntry(codeKey(2), 300, 11)], dead: [] }, opts(11));
    expect(state.get(dataKey(1))).toEqual({ entry: bigger, liveUntilLedgerSeq: 100, ttlLastModifiedLedgerSeq: 10 });
    expect(state.get(codeKey(2))?.liveUntilLedgerSeq).toBe(300);
    expect(state.dataSizeBytes).toBe(bigger.length);

    // a TTL key's entry is rebuilt from the stored numbers (InMemorySorobanState::getTTL)
    expect(state.get(ttlKey(codeKey(2)))?.entry).toEqual(ttlEntry(codeKey(2), 300, 11));
    expect(state.has(ttlKey(dataKey(1)))).toBe(true);

    state.apply({ init: [], live: [], dead: [dataKey(1), ttlKey(dataKey(1)), accountKey(1)] }, opts(12));
    expect([state.dataCount, state.has(dataKey(1)), state.has(ttlKey(dataKey(1)))]).toEqual([0, false, false]);
    expect(state.liveUntilOf(keyHashOf(dataKey(1)))).toBeUndefined();
    expect(state.stateSizeBytes).toBe(codeSize(code));
    state.apply({ init: [], live: [], dead: [codeKey(2)] }, opts(13));
    expect([state.codeCount, state.stateSizeBytes]).toEqual([0, 0]);
  });

  it('only advances its ledger before protocol 20, without looking at the changes', () => {
    const state = new SorobanState();
    state.apply({ init: [dataEntry(1, 1)], live: [], dead: [dataKey(7)] }, { ledgerSeq: 1, protocolVersion: 19 });
    expect([state.ledgerSeq, state.dataCount]).toEqual([1, 0]);
  });

  it('keeps the rent size a code entry was priced with until recomputeContractCodeSizes', () => {
    const state = new SorobanState();
    const code = codeEntry(3, 1, 8192);
    state.apply({ init: [code, ttlEntry(codeKey(3), 50, 1)], live: [], dead: [] }, opts(1));
    expect(state.codeSizeBytes).toBe(code.length + 454_161);
    const cheaper = v21MemoryParams();
    cheaper[11] = [10n, 128n];
    // a later ledger under other params prices only what it writes
    const other = codeEntry(4, 2, 8);
    state.apply(
      { init: [other, ttlEntry(codeKey(4), 50, 2)], live: [], dead: [] },
      { ledgerSeq: 2, protocolVersion: 23, memCostParams: costParams(cheaper) },
    );
    expect(state.codeSizeBytes).toBe(code.length + 454_161 + other.length + 10 + 8);
    state.recomputeContractCodeSizes(costParams(cheaper));
    expect(state.codeSizeBytes).toBe(code.length + 10 + 8192 + other.length + 10 + 8);
    expect(state.dataSizeBytes).toBe(0);
    // params under which one entry cannot be priced (a cost above u32) change nothing
    const tooDear = v21MemoryParams();
    tooDear[11] = [0n, 2n ** 40n];
    expect(codeOfError(() => state.recomputeContractCodeSizes(costParams(tooDear)))).toBe('BAD_ENTRY');
    expect(state.codeSizeBytes).toBe(code.length + 10 + 8192 + other.length + 10 + 8);
    expect(state.get(codeKey(3))?.liveUntilLedgerSeq).toBe(50);
  });

  it('rejects changes that contradict it, and is unusable afterwards (stellar-core asserts)', () => {
    const cases: [string, (state: SorobanState) => void][] = [
      [
        'create twice',
        (s) => s.apply({ init: [dataEntry(1, 2), ttlEntry(dataKey(1), 9, 2)], live: [], dead: [] }, opts(2)),
      ],
      ['update of a missing entry', (s) => s.apply({ init: [], live: [dataEntry(5, 2)], dead: [] }, opts(2))],
      ['delete of a missing entry', (s) => s.apply({ init: [], live: [], dead: [codeKey(5)] }, opts(2))],
      ['TTL update without entry', (s) => s.apply({ init: [], live: [ttlEntry(dataKey(5), 9, 2)], dead: [] }, opts(2))],
      [
        'TTL created for an entry that has one',
        (s) => s.apply({ init: [ttlEntry(dataKey(1), 9, 2)], live: [], dead: [] }, opts(2)),
      ],
      [
        'TTL left without its entry',
        (s) => s.apply({ init: [ttlEntry(dataKey(5), 9, 2)], live: [], dead: [] }, opts(2)),
      ],
      [
        'code update of a code without TTL',
        (s) => {
          s.apply({ init: [codeEntry(8, 2)], live: [], dead: [] }, opts(2));
          s.apply({ init: [], live: [codeEntry(8, 3)], dead: [] }, opts(3));
        },
      ],
    ];
    for (const [name, run] of cases) {
      const state = new SorobanState();
      state.apply({ init: [dataEntry(1, 1), ttlEntry(dataKey(1), 9, 1)], live: [], dead: [] }, opts(1));
      expect(
        codeOfError(() => run(state)),
        name,
      ).toBe('INCONSISTENT_META');
      expect(
        codeOfError(() => state.get(dataKey(1))),
        name,
      ).toBe('CLOSED');
    }
  });

  it('keeps a data entry whose TTL never came, as stellar-core does, and counts it', () => {
    const state = new SorobanState();
    state.apply({ init: [dataEntry(1, 1)], live: [], dead: [] }, opts(1));
    expect(state.entriesWithoutTtl).toBe(1);
    expect(state.get(dataKey(1))?.liveUntilLedgerSeq).toBeUndefined();
    expect([state.has(ttlKey(dataKey(1))), state.get(ttlKey(dataKey(1)))]).toEqual([false, undefined]);
    state.apply({ init: [], live: [ttlEntry(dataKey(1), 20, 2)], dead: [] }, opts(2));
    expect(state.entriesWithoutTtl).toBe(0);
  });

  it('refuses bad input before changing anything', () => {
    const state = new SorobanState();
    state.apply({ init: [dataEntry(1, 1), ttlEntry(dataKey(1), 9, 1)], live: [], dead: [] }, opts(1));
    const truncated = dataEntry(2, 2).subarray(0, 20);
    const checks: [string, () => unknown][] = [
      ['OUT_OF_ORDER', () => state.apply({ init: [], live: [], dead: [] }, opts(3))],
      ['BAD_ENTRY', () => state.apply({ init: [dataEntry(3, 2), truncated], live: [], dead: [] }, opts(2))],
      [
        'BAD_ENTRY',
        () => state.apply({ init: [], live: [], dead: [dataKey(1), new Uint8Array([0, 0, 0, 6, 1])] }, opts(2)),
      ],
      ['BAD_ENTRY', () => state.apply({ init: [new Uint8Array(4)], live: [], dead: [] }, opts(2))],
      ['INVALID_ARGUMENT', () => state.apply({ init: [], live: [], dead: [] }, { ledgerSeq: 2, protocolVersion: 23 })],
      [
        'BAD_ENTRY',
        () => state.apply({ init: [], live: [], dead: [] }, { ...opts(2), memCostParams: new Uint8Array(3) }),
      ],
      ['INVALID_ARGUMENT', () => state.apply({ init: 'x', live: [], dead: [] } as never, opts(2))],
      ['INVALID_ARGUMENT', () => state.apply({ init: [1], live: [], dead: [] } as never, opts(2))],
      ['INVALID_ARGUMENT', () => state.apply({ init: [], live: [], dead: [] }, { ledgerSeq: -1, protocolVersion: 23 })],
      ['INVALID_ARGUMENT', () => state.get(accountKey(1))],
      ['INVALID_ARGUMENT', () => state.get(new Uint8Array([0, 0, 0, 6]))],
      ['INVALID_ARGUMENT', () => state.liveUntilOf(new Uint8Array(31))],
      ['INVALID_ARGUMENT', () => state.forEachEntry('x' as never)],
      ['INVALID_ARGUMENT', () => new SorobanState({ arenaChunkBytes: 5000 })],
      [
        'INVALID_ARGUMENT',
        () => state.populate({ ledger: 1, scanCurrentLiveEntries: () => 0 }, { protocolVersion: 23 }),
      ],
    ];
    for (const [code, run] of checks) expect(codeOfError(run), String(run)).toBe(code);
    expect(state.get(dataKey(1))?.liveUntilLedgerSeq).toBe(9);
    state.apply({ init: [], live: [], dead: [] }, opts(2));
  });

  it('refuses to be called from inside its own callbacks', () => {
    const state = new SorobanState();
    state.apply({ init: [dataEntry(1, 1), ttlEntry(dataKey(1), 9, 1)], live: [], dead: [] }, opts(1));
    let inner: string | undefined;
    state.forEachEntry(() => {
      inner = codeOfError(() => state.apply({ init: [], live: [], dead: [] }, opts(2)));
    });
    expect(inner).toBe('INVALID_ARGUMENT');
  });

  it('moves records when it compacts its arena, and frees chunks of large records', () => {
    const state = new SorobanState({ arenaChunkBytes: 4096 });
    const count = 400;
    const init: Uint8Array[] = [];
    for (let n = 0; n < count; n++)
      init.push(dataEntry(n, 1, n % 10 === 0 ? 3000 : 60), ttlEntry(dataKey(n), 1000 + n, 1));
    state.apply({ init, live: [], dead: [] }, opts(1));
    const full = state.memory();
    const dead: Uint8Array[] = [];
    for (let n = 0; n < count; n++) if (n % 4 !== 1) dead.push(dataKey(n), ttlKey(dataKey(n)));
    state.apply({ init: [], live: [], dead }, opts(2));
    const after = state.memory();
    // live records: a 44-byte header and the stored entry (44 bytes shorter than its XDR when it is a contract's
    // without extension: compact-data.ts), padded to 8; compaction leaves at most an eighth dead, plus the append
    // chunk's unused tail (without compaction three quarters of every chunk would stay dead)
    let liveRecordBytes = 0;
    let liveXdrBytes = 0;
    for (let n = 1; n < count; n += 4) {
      const entry = dataEntry(n, 1, 60);
      const compact = n % 5 !== 4 && n % 7 !== 6;
      liveRecordBytes += (44 + entry.length - (compact ? 44 : 0) + 7) & ~7;
      liveXdrBytes += entry.length;
    }
    expect(after.arenaBytes).toBeLessThanOrEqual(liveRecordBytes * (8 / 7) + 2 * 4096);
    expect(after.arenaBytes).toBeLessThan(full.arenaBytes / 2);
    expect(state.dataCount).toBe(count / 4);
    for (let n = 1; n < count; n += 4) {
      expect(state.get(dataKey(n))).toEqual({
        entry: dataEntry(n, 1, 60),
        liveUntilLedgerSeq: 1000 + n,
        ttlLastModifiedLedgerSeq: 1,
      });
    }
    expect(state.dataSizeBytes).toBe(liveXdrBytes);
  });

  it('populates only from protocol 20, reads the memory params from the source when not given', () => {
    const data = dataEntry(1, 1);
    const code = codeEntry(2, 1, 8192);
    const paramsEntry = encodeLedgerEntry({
      lastModifiedLedgerSeq: 1,
      data: { type: 'configSetting', configSettingId: 7, body: V21 },
    });
    const byType = new Map<number, Uint8Array[]>([
      [6, [data]],
      [9, [ttlEntry(codeKey(2), 70, 1), ttlEntry(dataKey(1), 60, 1)]],
      [7, [code]],
    ]);
    const source = {
      ledger: 5,
      scanCurrentLiveEntries: (type: number, callback: (entry: Uint8Array) => void) => {
        for (const entry of byType.get(type) ?? []) callback(entry);
      },
      load: (key: Uint8Array) =>
        Buffer.from(key).equals(encodeLedgerKey({ type: 'configSetting', configSettingId: 7 }))
          ? paramsEntry
          : undefined,
    };
    const early = new SorobanState();
    expect(early.populate(source, { protocolVersion: 19 }).data).toBe(0);
    expect(early.ledgerSeq).toBe(5);
    const state = new SorobanState();
    const report = state.populate(source, { protocolVersion: 23 });
    expect([report.data, report.code, state.ledgerSeq, state.entriesWithoutTtl]).toEqual([1, 1, 5, 0]);
    expect(report.peakRssBytes).toBeGreaterThan(0);
    expect(state.stateSizeBytes).toBe(data.length + code.length + 454_161);
    expect(state.get(codeKey(2))?.liveUntilLedgerSeq).toBe(70);
    expect(codeOfError(() => state.populate(source, { protocolVersion: 23 }))).toBe('INVALID_ARGUMENT');
  });

  it('fails a population that leaves a TTL without its entry (stellar-core asserts mPendingTTLs.empty())', () => {
    const source = {
      ledger: 5,
      scanCurrentLiveEntries: (type: number, callback: (entry: Uint8Array) => void) => {
        if (type === 9) callback(ttlEntry(dataKey(1), 60, 1));
      },
    };
    const state = new SorobanState();
    expect(codeOfError(() => state.populate(source, { protocolVersion: 23, memCostParams: V21 }))).toBe(
      'INCONSISTENT_STATE',
    );
    expect(codeOfError(() => state.has(dataKey(1)))).toBe('CLOSED');
  });

  it('wraps a failing scan as IO with the cause, and a scan of the wrong type as INCONSISTENT_STATE', () => {
    const failing = {
      ledger: 5,
      scanCurrentLiveEntries: () => {
        throw new Error('disk gone');
      },
    };
    expect(codeOfError(() => new SorobanState().populate(failing, { protocolVersion: 23, memCostParams: V21 }))).toBe(
      'IO',
    );
    const wrong = {
      ledger: 5,
      scanCurrentLiveEntries: (_type: number, callback: (entry: Uint8Array) => void) => callback(codeEntry(1, 1)),
    };
    expect(codeOfError(() => new SorobanState().populate(wrong, { protocolVersion: 23, memCostParams: V21 }))).toBe(
      'INCONSISTENT_STATE',
    );
    expect(
      codeOfError(() =>
        new SorobanState().populate({ ledger: 5, scanCurrentLiveEntries: () => 0 }, { protocolVersion: 23 }),
      ),
    ).toBe('INVALID_ARGUMENT');
  });
});
