// History Archive State JSON over random valid states and random input. Properties:
// 1. serialize then parse returns the state, for random valid states of both versions (pending merges in all three
//    saved states, shadows, zero hashes, any Unicode in server and passphrase).
// 2. serialize equals JSON.stringify(…, null, 4) of the same members in core's order whenever no string holds a
//    control character (the only place rapidjson's escaping differs: \u001F, not \u001f) — an independent layout
//    oracle.
// 3. referencedBucketHashes equals the set of every hash in the state minus the zero hash.
// 4. Arbitrary text and arbitrary JSON either parse or throw BucketError BAD_HAS, never another exception.
import { propertyParams } from '@strata/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BucketError } from '../src/errors.js';
import {
  type FutureBucketState,
  type HasLevel,
  type HistoryArchiveState,
  parseHistoryArchiveState,
  referencedBucketHashes,
  serializeHistoryArchiveState,
  ZERO_HASH,
} from '../src/history-archive-state.js';

// ---- Properties over random valid states.

const hashArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant(ZERO_HASH) },
  { weight: 4, arbitrary: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex')) },
);

const futureArb: fc.Arbitrary<FutureBucketState> = fc.oneof(
  fc.constant({ state: 0 as const }),
  fc.record({ state: fc.constant(1 as const), output: hashArb }),
  fc.record({
    state: fc.constant(2 as const),
    curr: hashArb,
    snap: hashArb,
    shadow: fc.array(hashArb, { maxLength: 3 }),
  }),
);

const levelsArb = fc.array(fc.record({ curr: hashArb, next: futureArb, snap: hashArb }), {
  minLength: 11,
  maxLength: 11,
});

// Any well-formed Unicode, control characters included; a passphrase is never empty (core writes "" as absent).
const textArb = fc.string({ unit: 'binary', maxLength: 20 });

const stateArb: fc.Arbitrary<HistoryArchiveState> = fc.oneof(
  fc
    .record(
      {
        version: fc.constant(1 as const),
        server: textArb,
        currentLedger: fc.nat({ max: 0xffff_ffff }),
        networkPassphrase: textArb.filter((passphrase) => passphrase !== ''),
        currentBuckets: levelsArb,
      },
      { requiredKeys: ['version', 'server', 'currentLedger', 'currentBuckets'] },
    )
    .map((has): HistoryArchiveState => has),
  fc.record({
    version: fc.constant(2 as const),
    server: textArb,
    currentLedger: fc.nat({ max: 0xffff_ffff }),
    networkPassphrase: textArb.filter((passphrase) => passphrase !== ''),
    currentBuckets: levelsArb,
    hotArchiveBuckets: levelsArb,
  }),
);

/** The members in core's order, for JSON.stringify. */
function coreOrder(has: HistoryArchiveState): Record<string, unknown> {
  const levels = (list: HasLevel[]) => list.map(({ curr, next, snap }) => ({ curr, next, snap }));
  return {
    version: has.version,
    server: has.server,
    currentLedger: has.currentLedger,
    ...(has.networkPassphrase === undefined ? {} : { networkPassphrase: has.networkPassphrase }),
    currentBuckets: levels(has.currentBuckets),
    ...(has.hotArchiveBuckets === undefined ? {} : { hotArchiveBuckets: levels(has.hotArchiveBuckets) }),
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for exactly those characters
const CONTROL = /[\u0000-\u001f]/;

describe('HAS properties', () => {
  it('1. parse(serialize(has)) equals has', () => {
    fc.assert(
      fc.property(stateArb, (has) => {
        expect(parseHistoryArchiveState(serializeHistoryArchiveState(has))).toEqual(has);
      }),
      propertyParams(),
    );
  });

  it('2. serialize equals JSON.stringify with 4-space indent when no string has a control character', () => {
    fc.assert(
      fc.property(stateArb, (has) => {
        fc.pre(!CONTROL.test(has.server) && !CONTROL.test(has.networkPassphrase ?? ''));
        expect(serializeHistoryArchiveState(has)).toBe(JSON.stringify(coreOrder(has), null, 4));
      }),
      propertyParams(),
    );
  });

  it('3. referencedBucketHashes is every hash but the zero hash', () => {
    fc.assert(
      fc.property(stateArb, (has) => {
        const all = [...has.currentBuckets, ...(has.hotArchiveBuckets ?? [])].flatMap((l) => [
          l.curr,
          l.snap,
          ...(l.next.state === 1 ? [l.next.output] : []),
          ...(l.next.state === 2 ? [l.next.curr, l.next.snap, ...l.next.shadow] : []),
        ]);
        expect(referencedBucketHashes(has)).toEqual(new Set(all.filter((hash) => hash !== ZERO_HASH)));
      }),
      propertyParams(),
    );
  });
});

describe('HAS: malformed input is BAD_HAS with the field at fault', () => {
  it('throws only BucketError for arbitrary text and arbitrary JSON', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((value) => JSON.stringify(value)),
        ),
        (input) => {
          try {
            parseHistoryArchiveState(input);
          } catch (error) {
            expect(error).toBeInstanceOf(BucketError);
            expect((error as BucketError).code).toBe('BAD_HAS');
          }
        },
      ),
      propertyParams(),
    );
  });
});
