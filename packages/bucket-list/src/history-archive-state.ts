// The History Archive State (HAS): the JSON file stellar-core publishes at every checkpoint and persists as its
// local BucketList state. Reading follows stellar-core's cereal reader (`src/history/HistoryArchive.h`,
// `src/bucket/FutureBucket.h`); writing reproduces its cereal/rapidjson writer byte for byte, so a state written
// here is the text stellar-core would write for the same state. Line numbers below are stellar-core a9b8613 and
// cereal ebef1e9 (its submodule pin).
//
// Where this reader is stricter than stellar-core's, it is because core checks the same thing later, on use:
// exactly 11 levels (`containsValidBuckets`, HistoryArchive.cpp:375), hashes that decode to 32 bytes
// (`hexToBin256`, crypto/Hex.cpp), version 1 or 2 (`load`, HistoryArchive.cpp:164; `fromString` does not check).
// A known blind spot: JSON.parse reads `1.0` and `1e0` as 1, which rapidjson's `GetUint` would refuse.
import { BucketError, type BucketErrorCode } from './errors.js';

/** The hash naming the empty bucket (32 zero bytes): a slot that holds no file. */
export const ZERO_HASH = '0'.repeat(64);

/** HAS before protocol 23: the live BucketList only; `networkPassphrase` may be absent (very old archives). */
const VERSION_BEFORE_HOT_ARCHIVE = 1;
/** Protocol 23 added the hot archive BucketList: `hotArchiveBuckets` and `networkPassphrase` are required. */
const VERSION_WITH_HOT_ARCHIVE = 2;

/** Levels in both the live and the hot archive list (`BucketListBase::kNumLevels`, BucketListBase.h:465). */
const LEVEL_COUNT = 11;
const UINT32_MAX = 0xffff_ffff;

/**
 * A level's pending merge as saved (`FutureBucket::save`): 0 none; 1 finished, named by its output; 2 running, named
 * by its inputs (a restart re-runs it). Shadows only occur before protocol 12 and may be empty.
 */
export type FutureBucketState =
  | { state: 0 }
  | { state: 1; output: string }
  | { state: 2; curr: string; snap: string; shadow: string[] };

/** One BucketList level: hashes of its two buckets and its pending merge. All hashes are 64 lowercase hex chars. */
export interface HasLevel {
  curr: string;
  next: FutureBucketState;
  snap: string;
}

/**
 * A parsed HAS. Plain data, safe to share between threads by copy; nothing here touches disk. Level 0 is first.
 * The structural checks that need the bucket files (bucket versions, level 0's `next` clear, shadows only before
 * protocol 12) are the BucketList's job, as they are core's `containsValidBuckets`'.
 */
export interface HistoryArchiveState {
  version: 1 | 2;
  /** The writer's version string, e.g. `v9.0.1-dirty`. */
  server: string;
  /** uint32. */
  currentLedger: number;
  /** Required (non-empty) when version is 2; never the empty string (core treats "" as absent). */
  networkPassphrase?: string;
  /** Exactly 11 levels. */
  currentBuckets: HasLevel[];
  /** Exactly 11 levels; present exactly when version is 2. */
  hotArchiveBuckets?: HasLevel[];
}

/** Where a problem is reported from: the error code to use and the file, if any. */
interface Reporter {
  readonly code: BucketErrorCode;
  readonly file: string | undefined;
}

type JsonObject = Record<string, unknown>;

function fail(reporter: Reporter, field: string | undefined, detail: string, cause?: unknown): never {
  throw new BucketError(reporter.code, detail, {
    ...(reporter.file === undefined ? {} : { file: reporter.file }),
    ...(field === undefined ? {} : { field }),
    ...(cause === undefined ? {} : { cause }),
  });
}

function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)}`;
  if (typeof value === 'number') return `the number ${value}`;
  return `a ${typeof value}`;
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asObject(reporter: Reporter, value: unknown, field: string | undefined): JsonObject {
  if (!isJsonObject(value)) fail(reporter, field, `expected an object, got ${describeJson(value)}`);
  return value;
}

// cereal looks a name up among the object's own members and ignores every member it is not asked for
// (`JSONInputArchive::Iterator::search`, cereal archives/json.hpp:531), so unknown fields are accepted and dropped.
function member(reporter: Reporter, object: JsonObject, key: string, path: string): unknown {
  if (!Object.hasOwn(object, key)) fail(reporter, join(path, key), `missing field "${key}"`);
  return object[key];
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function readUint32(reporter: Reporter, value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > UINT32_MAX) {
    fail(reporter, field, `expected an integer in [0, ${UINT32_MAX}], got ${describeJson(value)}`);
  }
  // JSON.parse gives -0 for "-0"; rapidjson reads it as 0.
  return value === 0 ? 0 : value;
}

// A lone UTF-16 surrogate (JSON.parse accepts "\ud800"; rapidjson rejects it) has no UTF-8 form to write back.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function readString(reporter: Reporter, value: unknown, field: string): string {
  if (typeof value !== 'string') fail(reporter, field, `expected a string, got ${describeJson(value)}`);
  if (LONE_SURROGATE.test(value)) fail(reporter, field, 'string contains a lone UTF-16 surrogate');
  return value;
}

const HEX_256 = /^[0-9a-fA-F]{64}$/;

// Core writes lowercase (`binToHex` → sodium_bin2hex) and reads either case (`hexToBin` → sodium_hex2bin); we
// normalise on input so equal hashes compare equal as strings. (Core itself keeps the string as read.)
function readHash(reporter: Reporter, value: unknown, field: string): string {
  if (typeof value !== 'string' || !HEX_256.test(value)) {
    fail(reporter, field, `expected a bucket hash of 64 hex digits, got ${describeJson(value)}`);
  }
  return value.toLowerCase();
}

// `FutureBucket::load` (FutureBucket.h:138): `state` first, then only the fields that state needs, each required
// (a missing NVP throws); `shadow` has been written for every state-2 future since FutureBucket's load/save
// appeared (commit 6e1d741ae), so it is required too, and may be empty.
function readFuture(reporter: Reporter, value: unknown, path: string): FutureBucketState {
  const object = asObject(reporter, value, path);
  const stateField = join(path, 'state');
  const state = member(reporter, object, 'state', path);
  if (typeof state !== 'number' || !Number.isInteger(state)) {
    fail(reporter, stateField, `expected a FutureBucket state, got ${describeJson(state)}`);
  }
  switch (state) {
    case 0:
      return { state: 0 };
    case 1: {
      const outputField = join(path, 'output');
      return { state: 1, output: readHash(reporter, member(reporter, object, 'output', path), outputField) };
    }
    case 2: {
      const currField = join(path, 'curr');
      const snapField = join(path, 'snap');
      const shadowField = join(path, 'shadow');
      const curr = readHash(reporter, member(reporter, object, 'curr', path), currField);
      const snap = readHash(reporter, member(reporter, object, 'snap', path), snapField);
      const shadows = member(reporter, object, 'shadow', path);
      if (!Array.isArray(shadows)) fail(reporter, shadowField, `expected an array, got ${describeJson(shadows)}`);
      const shadow = shadows.map((hash: unknown, i) => readHash(reporter, hash, `${shadowField}[${i}]`));
      return { state: 2, curr, snap, shadow };
    }
    default:
      // States 3 and 4 (live merges) exist only in memory; `save` writes them as 1 and 2.
      return fail(reporter, stateField, `unknown FutureBucket state ${state} (a HAS holds only 0, 1 or 2)`);
  }
}

function readLevel(reporter: Reporter, value: unknown, path: string): HasLevel {
  const object = asObject(reporter, value, path);
  const curr = readHash(reporter, member(reporter, object, 'curr', path), join(path, 'curr'));
  const next = readFuture(reporter, member(reporter, object, 'next', path), join(path, 'next'));
  const snap = readHash(reporter, member(reporter, object, 'snap', path), join(path, 'snap'));
  return { curr, next, snap };
}

function readLevels(reporter: Reporter, object: JsonObject, key: string): HasLevel[] {
  const levels = member(reporter, object, key, '');
  if (!Array.isArray(levels)) fail(reporter, key, `expected an array of levels, got ${describeJson(levels)}`);
  if (levels.length !== LEVEL_COUNT) {
    fail(reporter, key, `expected ${LEVEL_COUNT} levels, got ${levels.length}`);
  }
  return levels.map((level: unknown, i) => readLevel(reporter, level, `${key}[${i}]`));
}

/** Checks and normalises any value into a HistoryArchiveState, in the order core's `serialize` reads fields. */
function toHistoryArchiveState(reporter: Reporter, value: unknown): HistoryArchiveState {
  if (!isJsonObject(value)) fail(reporter, undefined, `expected a JSON object, got ${describeJson(value)}`);
  const version = readUint32(reporter, member(reporter, value, 'version', ''), 'version');
  if (version !== VERSION_BEFORE_HOT_ARCHIVE && version !== VERSION_WITH_HOT_ARCHIVE) {
    fail(reporter, 'version', `unsupported HAS version ${version} (expected 1 or 2)`);
  }
  const server = readString(reporter, member(reporter, value, 'server', ''), 'server');
  const currentLedger = readUint32(reporter, member(reporter, value, 'currentLedger', ''), 'currentLedger');

  // Core reads the passphrase in a try block and only rethrows a missing one for version 2 (HistoryArchive.h:141).
  // Its writer omits an empty passphrase and refuses to write version 2 without one (HistoryArchive.h:168), so
  // "" is read as absent, and is an error in version 2 (core's reader would accept it but could never write it
  // back). The spec (§3.4) says the same, less precisely: "may be absent in version 1, required in version 2".
  let networkPassphrase: string | undefined;
  if (Object.hasOwn(value, 'networkPassphrase')) {
    const passphrase = readString(reporter, value.networkPassphrase, 'networkPassphrase');
    if (passphrase !== '') networkPassphrase = passphrase;
  }
  if (version === VERSION_WITH_HOT_ARCHIVE && networkPassphrase === undefined) {
    fail(reporter, 'networkPassphrase', 'version 2 requires a non-empty networkPassphrase');
  }

  const currentBuckets = readLevels(reporter, value, 'currentBuckets');
  // Core reads `hotArchiveBuckets` only for version ≥ 2; in a version-1 file it is an unknown field and is dropped
  // like any other (the spec's "only version 2" is about what core writes).
  const hotArchiveBuckets =
    version === VERSION_WITH_HOT_ARCHIVE ? readLevels(reporter, value, 'hotArchiveBuckets') : undefined;

  return {
    version,
    server,
    currentLedger,
    ...(networkPassphrase === undefined ? {} : { networkPassphrase }),
    currentBuckets,
    ...(hotArchiveBuckets === undefined ? {} : { hotArchiveBuckets }),
  };
}

/**
 * Parses HAS JSON text (a `stellar-history.json`, or the state core persists in its database). Hashes come back in
 * lowercase; unknown fields are ignored, as core ignores them. Throws BucketError BAD_HAS, with `field` the JSON
 * path of the problem (e.g. `currentBuckets[3].next.output`) and `file` when given, for anything malformed.
 */
export function parseHistoryArchiveState(text: string, file?: string): HistoryArchiveState {
  const caller: Reporter = { code: 'INVALID_ARGUMENT', file: undefined };
  if (typeof text !== 'string') fail(caller, 'text', `expected the HAS as a string, got ${describeJson(text)}`);
  if (file !== undefined && typeof file !== 'string')
    fail(caller, 'file', `expected a file name, got ${describeJson(file)}`);
  const reporter: Reporter = { code: 'BAD_HAS', file };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    fail(reporter, undefined, `invalid JSON: ${error instanceof Error ? error.message : String(error)}`, error);
  }
  return toHistoryArchiveState(reporter, value);
}

// ---- Writing: the layout of cereal's JSONOutputArchive over rapidjson's PrettyWriter (4-space indent, `": "`,
// empty arrays as `[]`, no trailing newline), with rapidjson's string escaping.

type JsonTree = string | number | JsonTree[] | { [key: string]: JsonTree };

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

// rapidjson's `Writer::WriteString`: `"` and `\` and control characters are escaped, the latter as \u00XX with
// UPPERCASE hex (JSON.stringify would write lowercase); `/`, DEL and non-ASCII are written as they are.
function writeString(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.charCodeAt(0);
    const short = SHORT_ESCAPES[char];
    if (short !== undefined) out += short;
    else if (code < 0x20) out += `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

function writeTree(tree: JsonTree, indent: string): string {
  if (typeof tree === 'string') return writeString(tree);
  if (typeof tree === 'number') return String(tree);
  const inner = `${indent}    `;
  if (Array.isArray(tree)) {
    if (tree.length === 0) return '[]';
    return `[\n${tree.map((item) => inner + writeTree(item, inner)).join(',\n')}\n${indent}]`;
  }
  const members = Object.entries(tree).map(([key, item]) => `${inner}${writeString(key)}: ${writeTree(item, inner)}`);
  return members.length === 0 ? '{}' : `{\n${members.join(',\n')}\n${indent}}`;
}

// Member order is core's: `HistoryArchiveState::serialize` (HistoryArchive.h:165), `HistoryStateBucket::serialize`
// (HistoryArchive.h:48), `FutureBucket::save` (FutureBucket.h:164).
function futureTree(next: FutureBucketState): JsonTree {
  switch (next.state) {
    case 0:
      return { state: 0 };
    case 1:
      return { state: 1, output: next.output };
    case 2:
      return { state: 2, curr: next.curr, snap: next.snap, shadow: [...next.shadow] };
  }
}

function levelsTree(levels: HasLevel[]): JsonTree {
  return levels.map((level) => ({ curr: level.curr, next: futureTree(level.next), snap: level.snap }));
}

function stateTree(has: HistoryArchiveState): JsonTree {
  const tree: { [key: string]: JsonTree } = {
    version: has.version,
    server: has.server,
    currentLedger: has.currentLedger,
  };
  if (has.networkPassphrase !== undefined) tree.networkPassphrase = has.networkPassphrase;
  tree.currentBuckets = levelsTree(has.currentBuckets);
  if (has.hotArchiveBuckets !== undefined) tree.hotArchiveBuckets = levelsTree(has.hotArchiveBuckets);
  return tree;
}

/**
 * The text stellar-core writes for this state (`HistoryArchiveState::toString` / `save`): for every file core
 * wrote, `serializeHistoryArchiveState(parseHistoryArchiveState(text)) === text`. The state is checked with the
 * parser's rules first (hashes are written in lowercase; an empty passphrase is omitted); a state that breaks them,
 * or a version-1 state carrying `hotArchiveBuckets`, throws BucketError INVALID_ARGUMENT with the `field` at fault.
 */
export function serializeHistoryArchiveState(has: HistoryArchiveState): string {
  return writeTree(stateTree(checkHistoryArchiveState(has)), '');
}

/**
 * A HistoryArchiveState value checked with the parser's rules (and normalised: hashes in lowercase, an empty
 * passphrase dropped), for states that come from a caller rather than from a file. Throws BucketError
 * INVALID_ARGUMENT with the `field` at fault; a version-1 state carrying `hotArchiveBuckets` is refused too (core's
 * writer would silently leave them out: a caller holding them has mixed up versions).
 */
export function checkHistoryArchiveState(has: HistoryArchiveState): HistoryArchiveState {
  const reporter: Reporter = { code: 'INVALID_ARGUMENT', file: undefined };
  if (isJsonObject(has) && has.version === VERSION_BEFORE_HOT_ARCHIVE && has.hotArchiveBuckets !== undefined) {
    fail(reporter, 'hotArchiveBuckets', 'a version 1 state has no hot archive list');
  }
  return toHistoryArchiveState(reporter, has);
}

function futureHashes(next: FutureBucketState): string[] {
  switch (next.state) {
    case 0:
      return [];
    case 1:
      return [next.output];
    case 2:
      return [next.curr, next.snap, ...next.shadow];
  }
}

/**
 * Every non-zero bucket hash the state references (curr, snap, next output, next inputs and shadows), both lists:
 * the bucket files a node must hold to assume this state. Unlike core's `allBuckets` (HistoryArchive.cpp:311) the
 * zero hash is left out, since it names no file.
 */
export function referencedBucketHashes(has: HistoryArchiveState): Set<string> {
  const checked = checkHistoryArchiveState(has);
  const hashes = new Set<string>();
  for (const level of [...checked.currentBuckets, ...(checked.hotArchiveBuckets ?? [])]) {
    for (const hash of [level.curr, level.snap, ...futureHashes(level.next)]) {
      if (hash !== ZERO_HASH) hashes.add(hash);
    }
  }
  return hashes;
}
