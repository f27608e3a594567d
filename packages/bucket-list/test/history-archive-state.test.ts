// History Archive State JSON: stellar-core's four serialize-test files (src/history/serialize-tests, byte-identical
// copies in the shared fixtures) parse and write back byte for byte; every malformation is BucketError BAD_HAS naming
// the JSON path at fault; pending merges and rapidjson's string escaping are written as core writes them. Random
// states and random input are in history-archive-state.property.test.ts.
import { readFileSync } from 'node:fs';
import { describeWithFixtures, errorOf, fixturePath } from '@strata/test-kit';
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

const FIXTURES = {
  livenet: 'stellar-history.livenet.15686975.json',
  testnet: 'stellar-history.testnet.6714239.json',
  passphrase: 'stellar-history.testnet.6714239.networkPassphrase.json',
  v2: 'stellar-history.testnet.6714239.networkPassphrase.v2.json',
} as const;

const fixtureParts = (name: string): string[] => ['history-archive-state', name];
const readFixture = (name: string): string => readFileSync(fixturePath(...fixtureParts(name)), 'utf8');

// Upstream's v2 test file was made by hand from the v1 one, and one hot-archive hash lost a digit: 63 hex digits at
// hotArchiveBuckets[10].next.output. Core never checks hashes when it parses (its own round-trip test passes) but
// `hexToBin256` throws as soon as the hash is used. We reject it at parse time, and round-trip a repaired copy.
const SHORT_HASH = '50abed8a9d86c072cfe8388246b7a378dc355fe996fd7384a5ee57e8da2ad52';
const REPAIRED_HASH = `${SHORT_HASH}0`;
const SHORT_HASH_FIELD = 'hotArchiveBuckets[10].next.output';

/** The fixture text, with the v2 file's 63-digit hash given a 64th digit (every other byte unchanged). */
function readValidFixture(name: string): string {
  const text = readFixture(name);
  if (name !== FIXTURES.v2) return text;
  const repaired = text.replace(`"${SHORT_HASH}"`, `"${REPAIRED_HASH}"`);
  expect(repaired, 'the v2 fixture no longer has the 63-digit hash').not.toBe(text);
  return repaired;
}

const hashOf = (digit: string): string => digit.repeat(64);

function level(curr: string, snap: string, next: FutureBucketState = { state: 0 }): HasLevel {
  return { curr, next, snap };
}

/** A valid state built by hand, independent of the fixtures, to mutate in the malformation tests. */
function sampleState(version: 1 | 2 = 2): HistoryArchiveState {
  const levels = (): HasLevel[] =>
    Array.from({ length: 11 }, (_, i) =>
      level(hashOf((i % 10).toString()), hashOf('a'), i === 0 ? { state: 0 } : { state: 1, output: hashOf('b') }),
    );
  return {
    version,
    server: 'v22.0.0',
    currentLedger: 123,
    networkPassphrase: 'Test SDF Network ; September 2015',
    currentBuckets: levels(),
    ...(version === 2 ? { hotArchiveBuckets: levels() } : {}),
  };
}

/** The sample state as a mutable JSON tree, so a test can break one member. */
function sampleJson(version: 1 | 2 = 2): Record<string, unknown> {
  return JSON.parse(serializeHistoryArchiveState(sampleState(version))) as Record<string, unknown>;
}

type Json = Record<string, unknown> | unknown[];

/** Sets (or with `undefined`, deletes) the member at a path like `currentBuckets[3].next.output`. */
function withMember(tree: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(tree);
  const steps = path.match(/[^.[\]]+/g) ?? [];
  let node: Json = copy;
  for (const step of steps.slice(0, -1)) node = (node as Record<string, Json>)[step] as Json;
  const last = steps.at(-1) as string;
  if (value === undefined) delete (node as Record<string, unknown>)[last];
  else (node as Record<string, unknown>)[last] = value;
  return copy;
}

function expectBadHas(text: string, field: string | undefined, detail?: RegExp): BucketError {
  const error = errorOf(BucketError, () => parseHistoryArchiveState(text, 'state.json'));
  expect(error.code, error.message).toBe('BAD_HAS');
  expect(error.field, error.message).toBe(field);
  expect(error.file).toBe('state.json');
  if (detail !== undefined) expect(error.detail).toMatch(detail);
  return error;
}

const allFixtures = Object.values(FIXTURES).map(fixtureParts);

describeWithFixtures('HAS: stellar-core serialize-test files', allFixtures, () => {
  it('parses the livenet file (version 1, no passphrase)', () => {
    const has = parseHistoryArchiveState(readFixture(FIXTURES.livenet));
    expect(has.version).toBe(1);
    expect(has.server).toBe('v9.0.1-dirty');
    expect(has.currentLedger).toBe(15686975);
    expect(has).not.toHaveProperty('networkPassphrase');
    expect(has).not.toHaveProperty('hotArchiveBuckets');
    expect(has.currentBuckets).toHaveLength(11);
    expect(has.currentBuckets[0]).toEqual({
      curr: 'dd11e8a6095f884222ca9cbe60362b04c62017cc08bb0398d1f1f4717a18fad1',
      next: { state: 0 },
      snap: '67c43dedb76fab7a6c6586542863bdf6e857b05c64a24d4620038c6b39fe9c68',
    });
    expect(has.currentBuckets[1]?.next).toEqual({
      state: 1,
      output: '67c43dedb76fab7a6c6586542863bdf6e857b05c64a24d4620038c6b39fe9c68',
    });
    expect(has.currentBuckets[10]?.snap).toBe(ZERO_HASH);
  });

  it('parses the testnet files, with and without a passphrase', () => {
    const plain = parseHistoryArchiveState(readFixture(FIXTURES.testnet));
    const withPassphrase = parseHistoryArchiveState(readFixture(FIXTURES.passphrase));
    expect(plain.currentLedger).toBe(6714239);
    expect(plain).not.toHaveProperty('networkPassphrase');
    expect(withPassphrase.version).toBe(1);
    expect(withPassphrase.networkPassphrase).toBe('(V) (;,,;) (V)');
    expect(withPassphrase.currentBuckets).toEqual(plain.currentBuckets);
    expect(plain.currentBuckets[0]).toEqual(level(ZERO_HASH, ZERO_HASH));
    expect(plain.currentBuckets[1]?.curr).toBe('c3131b946b5cadf713ca88d299505fe16572ffeefa083b2858a674452fd8ba76');
    expect(plain.currentBuckets[1]?.next).toEqual({ state: 1, output: ZERO_HASH });
  });

  it('rejects the version 2 file as published upstream: one hash has 63 digits', () => {
    const error = errorOf(BucketError, () => parseHistoryArchiveState(readFixture(FIXTURES.v2), FIXTURES.v2));
    expect(error.code).toBe('BAD_HAS');
    expect(error.field).toBe(SHORT_HASH_FIELD);
    expect(error.file).toBe(FIXTURES.v2);
    expect(error.detail).toContain(SHORT_HASH);
  });

  it('parses the version 2 file (hash repaired) with its hot archive list', () => {
    const has = parseHistoryArchiveState(readValidFixture(FIXTURES.v2));
    expect(has.version).toBe(2);
    expect(has.currentLedger).toBe(6714239);
    expect(has.networkPassphrase).toBe('(V) (;,,;) (V)');
    expect(has.currentBuckets).toHaveLength(11);
    expect(has.hotArchiveBuckets).toHaveLength(11);
    expect(has.hotArchiveBuckets?.[1]?.curr).toBe('c3131b946b5cadf713ca88d299505fe16572ffeefa083b2858a674452fd8ba74');
    expect(has.hotArchiveBuckets?.[10]?.next).toEqual({ state: 1, output: REPAIRED_HASH });
    expect(has.hotArchiveBuckets?.[9]?.next).toEqual({
      state: 1,
      output: '3373185b0eb537b909c56e6e16e76e33d966dc7ee1e7168123cfe1114d444e81',
    });
  });

  it.each(Object.values(FIXTURES))('writes %s back byte for byte (no trailing newline, as core)', (name) => {
    const text = readValidFixture(name);
    expect(text.endsWith('}')).toBe(true);
    expect(serializeHistoryArchiveState(parseHistoryArchiveState(text))).toBe(text);
  });

  it('reads members in any order and ignores unknown ones, as cereal does, then writes core’s layout', () => {
    const text = readFixture(FIXTURES.passphrase);
    const tree = JSON.parse(text) as Record<string, unknown>;
    const reordered = JSON.stringify(
      { extra: [1, 2], currentBuckets: tree.currentBuckets, ...tree, hotArchiveBuckets: 'ignored in version 1' },
      null,
      2,
    );
    // Negative control: the input differs from core's text, so the byte-exact comparison above has teeth.
    expect(reordered).not.toBe(text);
    expect(serializeHistoryArchiveState(parseHistoryArchiveState(reordered))).toBe(text);
  });

  it('accepts uppercase hex and writes it lowercase (core writes lowercase, reads either)', () => {
    const text = readFixture(FIXTURES.livenet);
    const upper = text.replace(/"[0-9a-f]{64}"/g, (hash) => hash.toUpperCase());
    expect(upper).not.toBe(text);
    expect(serializeHistoryArchiveState(parseHistoryArchiveState(upper))).toBe(text);
  });

  it('referencedBucketHashes: every non-zero hash of both lists, once', () => {
    const livenet = referencedBucketHashes(parseHistoryArchiveState(readFixture(FIXTURES.livenet)));
    // 11 curr + 10 non-zero snaps + 10 outputs, level 1's output being level 0's snap.
    expect(livenet.size).toBe(30);
    expect(livenet.has('67c43dedb76fab7a6c6586542863bdf6e857b05c64a24d4620038c6b39fe9c68')).toBe(true);
    expect(livenet.has('f40ff53649d399a2f060dd7ba960a8dbdf8f05597d9d2c06177fcea42791fec9')).toBe(true);
    expect(livenet.has(ZERO_HASH)).toBe(false);

    const v2 = referencedBucketHashes(parseHistoryArchiveState(readValidFixture(FIXTURES.v2)));
    expect(v2.size).toBe(52);
    expect(v2.has('c3131b946b5cadf713ca88d299505fe16572ffeefa083b2858a674452fd8ba74')).toBe(true);
    expect(v2.has('c3131b946b5cadf713ca88d299505fe16572ffeefa083b2858a674452fd8ba76')).toBe(true);
  });
});

describe('HAS: pending merges and writer details', () => {
  it('round-trips state 2 with shadows, and with none (written as [])', () => {
    const has = sampleState(1);
    has.currentBuckets[2] = level(hashOf('c'), hashOf('d'), {
      state: 2,
      curr: hashOf('e'),
      snap: hashOf('f'),
      shadow: [hashOf('1'), hashOf('2')],
    });
    has.currentBuckets[3] = level(hashOf('c'), hashOf('d'), {
      state: 2,
      curr: hashOf('e'),
      snap: hashOf('f'),
      shadow: [],
    });
    const text = serializeHistoryArchiveState(has);
    expect(text).toContain(
      `"next": {\n                "state": 2,\n                "curr": "${hashOf('e')}",\n                "snap": "${hashOf('f')}",\n                "shadow": [\n                    "${hashOf('1')}",`,
    );
    expect(text).toContain('"shadow": []');
    expect(parseHistoryArchiveState(text)).toEqual(has);
    // Level 3's curr ('3') was replaced and occurs nowhere else; '0' is the zero hash.
    expect(referencedBucketHashes(has)).toEqual(new Set([...'12456789abcdef'].map(hashOf)));
  });

  it('escapes strings as rapidjson does: control characters as uppercase \\u00XX, "/" and non-ASCII as they are', () => {
    const has = { ...sampleState(1), server: 'a"b\\c/d\u001f\u007f\n\té🙂' };
    const text = serializeHistoryArchiveState(has);
    expect(text).toContain('"server": "a\\"b\\\\c/d\\u001F\u007f\\n\\té🙂"');
    expect(parseHistoryArchiveState(text)).toEqual(has);
  });

  it('drops an empty passphrase in version 1, as core’s writer does', () => {
    const text = JSON.stringify(withMember(sampleJson(1), 'networkPassphrase', ''));
    const has = parseHistoryArchiveState(text);
    expect(has).not.toHaveProperty('networkPassphrase');
    expect(serializeHistoryArchiveState(has)).not.toContain('networkPassphrase');
  });

  it('reads -0 as 0', () => {
    const text = JSON.stringify(sampleJson(1)).replace('"currentLedger":123', '"currentLedger":-0');
    expect(Object.is(parseHistoryArchiveState(text).currentLedger, 0)).toBe(true);
  });

  it('serialize refuses an invalid state with INVALID_ARGUMENT and the field', () => {
    const badHash = sampleState(2);
    badHash.currentBuckets[4] = level('xyz', hashOf('a'));
    const error = errorOf(BucketError, () => serializeHistoryArchiveState(badHash));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.field).toBe('currentBuckets[4].curr');

    const { networkPassphrase: _, ...noPassphrase } = sampleState(2);
    expect(errorOf(BucketError, () => serializeHistoryArchiveState(noPassphrase)).field).toBe('networkPassphrase');

    const hotInV1 = { ...sampleState(2), version: 1 as const };
    expect(errorOf(BucketError, () => serializeHistoryArchiveState(hotInV1)).field).toBe('hotArchiveBuckets');
  });
});

describe('HAS: malformed input is BAD_HAS with the field at fault', () => {
  const v2 = sampleJson(2);
  const v1 = sampleJson(1);
  const text = (tree: unknown): string => JSON.stringify(tree);

  it('the sample states themselves are valid', () => {
    expect(parseHistoryArchiveState(text(v1))).toEqual(sampleState(1));
    expect(parseHistoryArchiveState(text(v2))).toEqual(sampleState(2));
  });

  it('not JSON: the JSON error message, no field', () => {
    const error = expectBadHas('{"version": 1,', undefined, /^invalid JSON: /);
    expect(error.cause).toBeInstanceOf(SyntaxError);
    expectBadHas('', undefined, /^invalid JSON: /);
    expectBadHas(`${text(v1)} trailing`, undefined, /^invalid JSON: /);
  });

  it.each([
    ['an array', '[]', /got an array/],
    ['null', 'null', /got null/],
    ['a number', '1', /got the number 1/],
    ['a string', '"HAS"', /got the string/],
  ])('top level %s', (_, input, detail) => {
    expectBadHas(input, undefined, detail);
  });

  it.each([
    ['missing version', 'version', undefined, 'version', /missing field "version"/],
    ['version 0', 'version', 0, 'version', /unsupported HAS version 0/],
    ['version 3', 'version', 3, 'version', /unsupported HAS version 3/],
    ['version as a string', 'version', '1', 'version', /integer/],
    ['missing server', 'server', undefined, 'server', /missing/],
    ['server not a string', 'server', 9, 'server', /expected a string/],
    ['server with a lone surrogate', 'server', '\ud800x', 'server', /surrogate/],
    ['missing currentLedger', 'currentLedger', undefined, 'currentLedger', /missing/],
    ['negative currentLedger', 'currentLedger', -1, 'currentLedger', /integer in \[0, 4294967295\]/],
    ['fractional currentLedger', 'currentLedger', 1.5, 'currentLedger', /integer/],
    ['currentLedger 2^32', 'currentLedger', 2 ** 32, 'currentLedger', /integer/],
    ['currentLedger 1e300', 'currentLedger', 1e300, 'currentLedger', /integer/],
    ['currentLedger as a string', 'currentLedger', '5', 'currentLedger', /integer/],
    ['passphrase not a string', 'networkPassphrase', 7, 'networkPassphrase', /expected a string/],
    ['version 2 without a passphrase', 'networkPassphrase', undefined, 'networkPassphrase', /requires/],
    ['version 2 with an empty passphrase', 'networkPassphrase', '', 'networkPassphrase', /non-empty/],
    ['version 2 without a hot archive list', 'hotArchiveBuckets', undefined, 'hotArchiveBuckets', /missing/],
    ['hot archive list not an array', 'hotArchiveBuckets', {}, 'hotArchiveBuckets', /expected an array/],
    ['missing currentBuckets', 'currentBuckets', undefined, 'currentBuckets', /missing/],
    ['currentBuckets an object', 'currentBuckets', { 0: {} }, 'currentBuckets', /expected an array/],
    ['10 levels', 'currentBuckets', (v2.currentBuckets as unknown[]).slice(1), 'currentBuckets', /expected 11.*got 10/],
    [
      '12 levels',
      'hotArchiveBuckets',
      [...(v2.hotArchiveBuckets as unknown[]), level(ZERO_HASH, ZERO_HASH)],
      'hotArchiveBuckets',
      /got 12/,
    ],
    ['a level that is not an object', 'currentBuckets[5]', 'level', 'currentBuckets[5]', /expected an object/],
    ['a level without curr', 'currentBuckets[5].curr', undefined, 'currentBuckets[5].curr', /missing field "curr"/],
    ['a level without next', 'hotArchiveBuckets[5].next', undefined, 'hotArchiveBuckets[5].next', /"next"/],
    ['a level without snap', 'currentBuckets[10].snap', undefined, 'currentBuckets[10].snap', /"snap"/],
    ['short hash', 'currentBuckets[3].curr', 'ab'.repeat(31), 'currentBuckets[3].curr', /64 hex digits/],
    ['long hash', 'currentBuckets[3].snap', 'ab'.repeat(33), 'currentBuckets[3].snap', /64 hex digits/],
    ['non-hex hash', 'hotArchiveBuckets[0].curr', `${'0'.repeat(63)}g`, 'hotArchiveBuckets[0].curr', /hex/],
    ['0x-prefixed hash', 'currentBuckets[0].curr', `0x${'0'.repeat(62)}`, 'currentBuckets[0].curr', /hex/],
    ['hash with spaces', 'currentBuckets[0].snap', ` ${'0'.repeat(64)}`, 'currentBuckets[0].snap', /hex/],
    ['empty hash', 'currentBuckets[0].snap', '', 'currentBuckets[0].snap', /hex/],
    ['hash as a number', 'currentBuckets[0].snap', 0, 'currentBuckets[0].snap', /hex/],
    ['next not an object', 'currentBuckets[3].next', [], 'currentBuckets[3].next', /expected an object/],
    ['next without state', 'currentBuckets[3].next.state', undefined, 'currentBuckets[3].next.state', /"state"/],
    ['state 3', 'currentBuckets[3].next.state', 3, 'currentBuckets[3].next.state', /unknown FutureBucket state 3/],
    ['state 4', 'currentBuckets[3].next.state', 4, 'currentBuckets[3].next.state', /state 4/],
    ['state -1', 'currentBuckets[3].next.state', -1, 'currentBuckets[3].next.state', /state -1/],
    ['state 1.5', 'currentBuckets[3].next.state', 1.5, 'currentBuckets[3].next.state', /FutureBucket state/],
    ['state as a string', 'currentBuckets[3].next.state', '1', 'currentBuckets[3].next.state', /FutureBucket state/],
    ['state 1 without output', 'currentBuckets[3].next.output', undefined, 'currentBuckets[3].next.output', /"output"/],
    ['state 1 bad output', 'currentBuckets[3].next.output', 'zz', 'currentBuckets[3].next.output', /hex/],
  ])('%s', (_, path, value, field, detail) => {
    expectBadHas(text(withMember(v2, path, value)), field, detail);
  });

  const state2 = withMember(v1, 'currentBuckets[7].next', {
    state: 2,
    curr: hashOf('1'),
    snap: hashOf('2'),
    shadow: [hashOf('3')],
  });

  it.each([
    ['without curr', 'curr', undefined, 'currentBuckets[7].next.curr', /"curr"/],
    ['without snap', 'snap', undefined, 'currentBuckets[7].next.snap', /"snap"/],
    ['without shadow', 'shadow', undefined, 'currentBuckets[7].next.shadow', /"shadow"/],
    ['with shadow not an array', 'shadow', hashOf('3'), 'currentBuckets[7].next.shadow', /expected an array/],
    ['with a bad shadow hash', 'shadow', [hashOf('3'), 'x'], 'currentBuckets[7].next.shadow[1]', /hex/],
    ['with a bad curr', 'curr', 5, 'currentBuckets[7].next.curr', /hex/],
  ])('state 2 %s', (_, key, value, field, detail) => {
    expect(parseHistoryArchiveState(text(state2)).currentBuckets[7]?.next.state).toBe(2);
    expectBadHas(text(withMember(state2, `currentBuckets[7].next.${key}`, value)), field, detail);
  });

  it('ignores fields a state does not use, as FutureBucket::load does', () => {
    const extra = withMember(v1, 'currentBuckets[0].next', { state: 0, output: 'not even a hash' });
    expect(parseHistoryArchiveState(text(extra)).currentBuckets[0]?.next).toEqual({ state: 0 });
  });

  it('omits file when none is given', () => {
    const error = errorOf(BucketError, () => parseHistoryArchiveState('[]'));
    expect(error.code).toBe('BAD_HAS');
    expect(error.file).toBeUndefined();
  });
});
