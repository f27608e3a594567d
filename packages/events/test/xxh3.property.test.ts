// XXH3-128 as term hashing computes it (src/xxh3.ts: WebAssembly up to 240 bytes, napi above) and the topic walk's
// SCVal bound (scValEndOrBadXdr: ledger-key's scValEnd with errors as EventsError) against their references. Properties:
// 1. xxh3128Into = @node-rs/xxhash xxh3.xxh128 (low 64 LE, high 64 LE) for every length 0..300 (each code path:
//    0, 1-3, 4-8, 9-16, 17-128, 129-240 of src/xxh3.wat, and the napi path above 240) and random contents, at random
//    offsets.
// 2. scValEndOrBadXdr accepts exactly the SCVals @strata/ledger-key's readScVal accepts, ending at the same offset,
//    and fails only with EventsError, for the topic vocabulary and random single-byte mutations and truncations.
import { xxh3 } from '@node-rs/xxhash';
import { readScVal } from '@strata/ledger-key';
import { hex, propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventsError } from '../src/index.js';
import { scValEndOrBadXdr } from '../src/payload.js';
import { xxh3128Into } from '../src/xxh3.js';
import { TOPIC_VOCABULARY } from './arbitraries.js';

function napiKey(bytes: Uint8Array): string {
  const h = xxh3.xxh128(bytes);
  const out = Buffer.alloc(16);
  out.writeBigUInt64LE(h & 0xffffffffffffffffn, 0);
  out.writeBigUInt64LE(h >> 64n, 8);
  return out.toString('hex');
}

describe('xxh3 and scval skip', () => {
  it('1. xxh3128Into = @node-rs/xxhash for lengths 0..300', () => {
    const out = new Uint8Array(20);
    for (let len = 0; len <= 300; len++) {
      fc.assert(
        fc.property(fc.uint8Array({ minLength: len + 7, maxLength: len + 7 }), fc.nat(7), (buf, at) => {
          const p = Math.min(at, buf.length - len);
          xxh3128Into(buf, p, len, out, 3);
          expect(hex(out.subarray(3, 19))).toBe(napiKey(buf.subarray(p, p + len)));
        }),
        propertyParams({ numRuns: 8 }),
      );
    }
  });

  it('2. scValEndOrBadXdr accepts what readScVal accepts, to the same end', () => {
    const outcome = (f: () => number): string => {
      try {
        return `ok ${f()}`;
      } catch (error) {
        return error instanceof EventsError || (error as Error).name === 'LedgerKeyError' ? 'error' : `other ${error}`;
      }
    };
    const ours = (f: () => number): string => {
      try {
        return `ok ${f()}`;
      } catch (error) {
        return error instanceof EventsError ? 'error' : `other ${error}`;
      }
    };
    const valueArb = fc.constantFrom(...TOPIC_VOCABULARY).chain((v) =>
      fc.oneof(
        fc.constant(v),
        fc.record({ i: fc.nat(v.length - 1), b: fc.integer({ min: 0, max: 255 }) }).map(({ i, b }) => {
          const m = v.slice();
          m[i] = b;
          return m;
        }),
        fc.nat(v.length).map((n) => v.slice(0, n)),
      ),
    );
    fc.assert(
      fc.property(valueArb, fc.uint8Array({ maxLength: 8 }), (value, tail) => {
        const bytes = new Uint8Array([...value, ...tail]);
        expect(ours(() => scValEndOrBadXdr(bytes, 0))).toBe(outcome(() => readScVal(bytes, 0).xdr.length));
      }),
      propertyParams({ numRuns: 2000 }),
    );
  });
});
