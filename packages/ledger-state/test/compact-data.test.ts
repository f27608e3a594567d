// The stored form of CONTRACT_DATA entries (compact-data.ts). Properties:
//  1. ContractIds against a Map oracle: over random acquires and releases of ids that often share their first two
//     words (one home slot: probing and backward-shift deletion at work) or repeat the step before's (the last-id
//     shortcut, also after its ref was freed and taken by another id), every id's ref stays the same while it is
//     held, its count equals the oracle's, the table holds exactly the held ids, and freed refs are reused;
//  2. CompactData round trip: every entry (contract- or account-owned, ext v0, v1 with and without a sponsor, any key
//     and value) is rebuilt byte for byte from its stored form, which is 44 bytes shorter exactly for a contract's
//     entry without extension; releasing every stored record empties the table;
//  3. an entry of another type (a TTL) passes through unchanged;
//  4. negative control: a compact record read through another table (one that never saw its contract) is caught by
//     property 2's comparison.
import { encodeLedgerEntry, ledgerEntryLayout } from '@strata/ledger-key';
import { hex, propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COMPACT_SAVING,
  CompactData,
  ContractIds,
  entryLengthOf,
  isCompact,
} from '../src/soroban-state/compact-data.js';

/** Id `n`: ids of one `group` share their first 8 bytes (and so their home slot). */
function contractId(group: number, n: number): Uint8Array {
  const id = new Uint8Array(32).fill(0x5a);
  const view = new DataView(id.buffer);
  view.setUint32(0, group);
  view.setUint32(8, n);
  return id;
}

const layout = new Int32Array(5);

function dataEntryOf(input: {
  owner: 'contract' | 'account';
  id: Uint8Array;
  keyBytes: number;
  valueBytes: number;
  temporary: boolean;
  ext: 'v0' | 'v1' | 'v1-sponsor';
  lastModified: number;
}): Uint8Array {
  return encodeLedgerEntry({
    lastModifiedLedgerSeq: input.lastModified,
    data: {
      type: 'contractData',
      contract:
        input.owner === 'contract'
          ? { type: 'contract', contractId: input.id }
          : { type: 'account', accountId: input.id },
      key: { type: 'bytes', value: new Uint8Array(input.keyBytes).fill(7) },
      durability: input.temporary ? 'temporary' : 'persistent',
      val: { type: 'bytes', value: new Uint8Array(input.valueBytes).fill(9) },
    },
    ...(input.ext === 'v0' ? {} : { v1: { sponsoringId: input.ext === 'v1-sponsor' ? input.id : null } }),
  });
}

const entryArb = fc.record({
  owner: fc.constantFrom('contract' as const, 'contract' as const, 'account' as const),
  id: fc.tuple(fc.nat(3), fc.nat(5)).map(([group, n]) => contractId(group, n)),
  keyBytes: fc.nat(40),
  valueBytes: fc.nat(300),
  temporary: fc.boolean(),
  ext: fc.constantFrom('v0' as const, 'v0' as const, 'v1' as const, 'v1-sponsor' as const),
  lastModified: fc.nat(2 ** 32 - 1),
});

function encodeOf(codec: CompactData, entry: Uint8Array): Uint8Array {
  ledgerEntryLayout(entry, 0, layout);
  return codec.encode(entry, layout[4]!).slice();
}

describe('ContractIds', () => {
  it('keeps a ref per held id, counts as a Map does, and frees and reuses refs (ids sharing home slots)', () => {
    // each step acquires or releases an id, often the previous step's (acquire's last-id shortcut, and a freed ref
    // taken by another id after it)
    const ops = fc.array(fc.tuple(fc.boolean(), fc.nat(4), fc.nat(40), fc.boolean()), {
      minLength: 1,
      maxLength: 600,
      size: 'max',
    });
    fc.assert(
      fc.property(ops, (steps) => {
        const table = new ContractIds();
        const oracle = new Map<string, { ref: number; count: number }>();
        const handedOut = new Set<number>();
        let previous = contractId(0, 0);
        for (const [acquire, group, n, again] of steps) {
          const id = again ? previous : contractId(group, n);
          previous = id;
          const key = hex(id);
          const held = oracle.get(key);
          if (acquire || held === undefined) {
            const buffer = new Uint8Array(40);
            buffer.set(id, 5);
            const ref = table.acquire(buffer, 5);
            if (held !== undefined) {
              expect(ref).toBe(held.ref);
              held.count++;
            } else {
              // a new id takes a freed ref when there is one, else the next one
              for (const other of oracle.values()) expect(other.ref).not.toBe(ref);
              if (handedOut.size > oracle.size) expect(handedOut.has(ref)).toBe(true);
              else expect(ref).toBe(handedOut.size);
              handedOut.add(ref);
              oracle.set(key, { ref, count: 1 });
            }
          } else {
            table.release(held.ref);
            if (--held.count === 0) oracle.delete(key);
          }
          expect(table.count).toBe(oracle.size);
        }
        for (const [key, { ref, count }] of oracle) {
          expect(hex(table.idView(ref))).toBe(key);
          expect(table.refCount(ref)).toBe(count);
        }
        for (const ref of handedOut) {
          if (![...oracle.values()].some((held) => held.ref === ref)) expect(table.refCount(ref)).toBe(0);
        }
      }),
      propertyParams({ numRuns: 30 }),
    );
  });
});

describe('CompactData', () => {
  it('rebuilds every entry from its stored form, 44 bytes shorter exactly for a contract entry without ext', () => {
    fc.assert(
      fc.property(fc.array(entryArb, { minLength: 1, maxLength: 40 }), (inputs) => {
        const codec = new CompactData();
        const stored: Uint8Array[] = [];
        for (const input of inputs) {
          const entry = dataEntryOf(input);
          const form = encodeOf(codec, entry);
          const compact = input.owner === 'contract' && input.ext === 'v0';
          expect(isCompact(form)).toBe(compact);
          expect(form.length).toBe(entry.length - (compact ? COMPACT_SAVING : 0));
          expect(entryLengthOf(form.length, isCompact(form))).toBe(entry.length);
          if (!compact) expect(hex(form)).toBe(hex(entry));
          expect(hex(codec.decode(form))).toBe(hex(entry));
          const out = new Uint8Array(entry.length + 16).fill(0xee);
          expect(hex(codec.decodeInto(form, out))).toBe(hex(entry));
          stored.push(form);
        }
        // every stored record still decodes after the others were written (refs are stable)
        stored.forEach((form, i) => {
          // `!`: one input per stored record
          expect(hex(codec.decode(form))).toBe(hex(dataEntryOf(inputs[i]!)));
        });
        for (const form of stored) codec.release(form);
        expect(codec.contracts.count).toBe(0);
      }),
      propertyParams({ numRuns: 200 }),
    );
  });

  it('leaves an entry of another type as it is, counting no contract', () => {
    const codec = new CompactData();
    const ttl = encodeLedgerEntry({
      lastModifiedLedgerSeq: 3,
      data: { type: 'ttl', keyHash: new Uint8Array(32).fill(1), liveUntilLedgerSeq: 9 },
    });
    expect(encodeOf(codec, ttl)).toEqual(ttl);
    expect(codec.contracts.count).toBe(0);
  });

  it('negative control: a compact record decoded through a table that never saw its contract is caught', () => {
    const codec = new CompactData();
    const other = new CompactData();
    other.contracts.acquire(contractId(9, 9), 0);
    const entry = dataEntryOf({
      owner: 'contract',
      id: contractId(1, 2),
      keyBytes: 4,
      valueBytes: 16,
      temporary: false,
      ext: 'v0',
      lastModified: 5,
    });
    const form = encodeOf(codec, entry);
    expect(hex(codec.decode(form))).toBe(hex(entry));
    expect(hex(other.decode(form))).not.toBe(hex(entry));
  });
});
