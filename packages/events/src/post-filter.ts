// The exact post-filter compiled into byte comparisons against the stored payload layout (FORMAT.md): the clauses'
// distinct contract ids and topic values are compared in place at their offsets in the payload, each at most once per
// event, with no view, no subarray and no allocation per event. filter.ts keeps the reference matcher over
// PayloadView (compileReferencePostFilter) that this one must agree with on every payload, and that it hands any
// payload whose header or fixed XDR prefix is not well formed to, so malformed bytes throw exactly its errors.
import { scValEnd } from '@strata/ledger-key';
import { PAYLOAD_HEADER_LENGTH, PAYLOAD_VERSION, PayloadView, scValEndOrBadXdr } from './payload.js';
import { MAX_TOPIC_POSITIONS } from './terms.js';

/** The parts of a storage clause the compiled matcher reads (the shape filter.ts's StorageFilter has). */
export interface CompilableClause {
  readonly contractId?: Uint8Array;
  readonly topics: readonly (Uint8Array | undefined)[];
  readonly eventType?: number;
  readonly topicCount: { readonly count: number; readonly exact: boolean };
}

/** Offset of the XDR length field in the payload header. */
const OFF_XDR_LENGTH = 57;
/** Bytes of a contract id. */
const CONTRACT_ID_BYTES = 32;
/** Most distinct values one matcher tracks per event in its stamp tables (a clause list is at most a few hundred). */
const EPOCH_LIMIT = 0xffff_fff0;

/** Deliberate defects for the negative controls of the compiled matcher's tests (not exported from the package). */
export interface PostFilterFaults {
  /** A topic compares only its last 4 bytes (not the whole value): a wrong fast path the tests must catch. */
  readonly topicTailOnly?: boolean;
}

function u32(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}

/** The 4 bytes at `at` as a signed big-endian word (what wordsOf stores). */
function i32(b: Uint8Array, at: number): number {
  return (b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!;
}

/**
 * `value` as big-endian 32-bit words, the last word zero-padded when its length is not a multiple of 4 (XDR values
 * never are: ScVals and contract ids are whole words). Compared a word at a time: measured on the engine bench's 700
 * pubnet requests, a matching event compares ~157 bytes of topics, and a byte loop spent ~4 ns a byte.
 */
function wordsOf(value: Uint8Array): Int32Array {
  const words = new Int32Array(Math.ceil(value.length / 4));
  for (let i = 0; i < value.length; i++) words[i >>> 2]! |= value[i]! << (24 - 8 * (i & 3));
  return words;
}

/**
 * Whether `b` holds the bytes `words` encode (`length` of them) at `at`, `at + length ≤ b.length` given. Backward, a
 * word at a time: values of one position mostly share their leading bytes (the ScVal tag, an address's type words, a
 * length) and differ at the end (key bytes, string contents), so a mismatch shows in the first word compared.
 */
function equalWords(b: Uint8Array, at: number, words: Int32Array, length: number): boolean {
  const whole = length >>> 2;
  if (whole * 4 !== length) {
    for (let j = length - 1; j >= whole * 4; j--) {
      if (b[at + j] !== ((words[whole]! >>> (24 - 8 * (j & 3))) & 0xff)) return false;
    }
  }
  for (let k = whole - 1; k >= 0; k--) if (i32(b, at + 4 * k) !== words[k]) return false;
  return true;
}

/** True when `value` is exactly one well-formed ScVal: only then does an equal byte prefix prove an equal topic. */
function isOneScVal(value: Uint8Array): boolean {
  try {
    return scValEnd(value, 0) === value.length;
  } catch {
    return false;
  }
}

/** Index of `value` in `list` by content, appending it when new. */
function internBytes(list: Uint8Array[], value: Uint8Array): number {
  for (let i = 0; i < list.length; i++) {
    const known = list[i]!;
    if (known.length !== value.length) continue;
    let same = true;
    for (let j = 0; j < value.length && same; j++) same = known[j] === value[j];
    if (same) return i;
  }
  list.push(value);
  return list.length - 1;
}

/**
 * The compiled matcher of one clause list. Per event: the header and the fixed XDR prefix are read at their offsets
 * (anything unexpected goes to the reference matcher, which throws its error); then clauses in order, each field
 * cheapest first (type, contract, topic count, topics), where a contract is resolved once per event against the
 * distinct contracts and a topic value once per event (epoch-stamped result table). A topic value is compared as a
 * byte prefix at its topic's offset: the value is exactly one ScVal (checked at compile time), and XDR decoding reads
 * bytes in order, so an equal prefix is the whole topic, which also gives the next topic's offset without a walk.
 * Positions reached past a wildcard or a mismatch are walked with scValEnd (validating, as the reference does).
 *
 * Not reentrant across threads (per-event scratch lives on the instance); JavaScript calls it from one thread and it
 * never yields, so one instance serves every caller of the function that wraps it.
 */
class CompiledPostFilter {
  private readonly reference: (payload: Uint8Array | PayloadView) => boolean;
  private readonly faults: PostFilterFaults;
  /** Per clause: event type (-1 any), contract index (-1 any), topic count and exactness, its topic tests. */
  private readonly clauseType: Int8Array;
  private readonly clauseContract: Int32Array;
  private readonly clauseCount: Uint8Array;
  private readonly clauseExact: Uint8Array;
  /** Clause c's topic tests are testPosition/testValue[testStart[c], testStart[c + 1]). */
  private readonly testStart: Int32Array;
  private readonly testPosition: Uint8Array;
  private readonly testValue: Int32Array;
  /** The clauses' distinct contract ids, as words (wordsOf). */
  private readonly contracts: Int32Array[];
  /** Distinct (position, bytes) topic values: their bytes, their words, and per event a stamp and the compare's result. */
  private readonly values: Uint8Array[];
  private readonly valueWords: Int32Array[];
  private readonly valueStamp: Uint32Array;
  private readonly valueResult: Uint8Array;
  private epoch = 0;
  /** Topic offsets known for the current event: offsets[0..known). */
  private readonly offsets = new Int32Array(MAX_TOPIC_POSITIONS + 1);
  private known = 0;

  constructor(
    clauses: readonly CompilableClause[],
    reference: (payload: Uint8Array | PayloadView) => boolean,
    faults: PostFilterFaults,
  ) {
    this.reference = reference;
    this.faults = faults;
    const contracts: Uint8Array[] = [];
    const values: Uint8Array[] = [];
    const valueKeys: Uint8Array[][] = Array.from({ length: MAX_TOPIC_POSITIONS }, () => []);
    const valueIds: number[][] = Array.from({ length: MAX_TOPIC_POSITIONS }, () => []);
    const kept: { type: number; contract: number; count: number; exact: boolean; tests: [number, number][] }[] = [];
    for (const clause of clauses) {
      // A contract id that is not 32 bytes, or a topic that is not exactly one ScVal, equals no stored field: the
      // clause can never match (the reference compares and fails the same way).
      if (clause.contractId !== undefined && clause.contractId.length !== CONTRACT_ID_BYTES) continue;
      const tests: [number, number][] = [];
      let dead = false;
      clause.topics.forEach((value, position) => {
        if (value === undefined || dead) return;
        if (!isOneScVal(value)) {
          dead = true;
          return;
        }
        const keys = valueKeys[position]!;
        const at = internBytes(keys, value);
        if (at === valueIds[position]!.length) {
          valueIds[position]!.push(values.length);
          values.push(value);
        }
        tests.push([position, valueIds[position]![at]!]);
      });
      if (dead) continue;
      kept.push({
        type: clause.eventType ?? -1,
        contract: clause.contractId === undefined ? -1 : internBytes(contracts, clause.contractId),
        count: clause.topicCount.count,
        exact: clause.topicCount.exact,
        tests,
      });
    }
    this.contracts = contracts.map(wordsOf);
    this.values = values;
    this.valueWords = values.map(wordsOf);
    this.valueStamp = new Uint32Array(values.length);
    this.valueResult = new Uint8Array(values.length);
    this.clauseType = Int8Array.from(kept, (c) => c.type);
    this.clauseContract = Int32Array.from(kept, (c) => c.contract);
    this.clauseCount = Uint8Array.from(kept, (c) => c.count);
    this.clauseExact = Uint8Array.from(kept, (c) => (c.exact ? 1 : 0));
    const testCount = kept.reduce((n, c) => n + c.tests.length, 0);
    this.testStart = new Int32Array(kept.length + 1);
    this.testPosition = new Uint8Array(testCount);
    this.testValue = new Int32Array(testCount);
    let t = 0;
    kept.forEach((c, i) => {
      this.testStart[i] = t;
      for (const [position, value] of c.tests) {
        this.testPosition[t] = position;
        this.testValue[t] = value;
        t++;
      }
    });
    this.testStart[kept.length] = t;
  }

  matches(payload: Uint8Array | PayloadView): boolean {
    const b = payload instanceof PayloadView ? payload.bytes : payload;
    if (!(b instanceof Uint8Array)) return this.reference(payload);
    const length = b.length;
    // Header (version, exact XDR length) and the fixed ContractEvent prefix, as checkHeader and readEventPrefix check
    // them; anything else is the reference's to reject with its error.
    if (length < PAYLOAD_HEADER_LENGTH + 8 || b[0] !== PAYLOAD_VERSION) return this.reference(payload);
    if (u32(b, OFF_XDR_LENGTH) !== length - PAYLOAD_HEADER_LENGTH) return this.reference(payload);
    const p = PAYLOAD_HEADER_LENGTH;
    if (u32(b, p) !== 0) return this.reference(payload);
    const present = u32(b, p + 4);
    if (present > 1) return this.reference(payload);
    const typeAt = p + 8 + (present === 1 ? CONTRACT_ID_BYTES : 0);
    if (length - typeAt < 12) return this.reference(payload);
    const type = u32(b, typeAt);
    if (type > 2 || u32(b, typeAt + 4) !== 0) return this.reference(payload);
    const n = u32(b, typeAt + 8);
    const contractAt = present === 1 ? p + 8 : -1;

    let epoch = this.epoch + 1;
    if (epoch >= EPOCH_LIMIT) {
      this.valueStamp.fill(0);
      epoch = 1;
    }
    this.epoch = epoch;
    this.offsets[0] = typeAt + 12;
    this.known = 1;
    let contract = -2; // -2: not resolved yet; -1: none of the clauses' contracts

    const clauses = this.clauseType.length;
    for (let c = 0; c < clauses; c++) {
      const wantType = this.clauseType[c]!;
      if (wantType >= 0 && wantType !== type) continue;
      const wantContract = this.clauseContract[c]!;
      if (wantContract >= 0) {
        if (contract === -2) contract = contractAt < 0 ? -1 : this.contractIndex(b, contractAt);
        if (contract !== wantContract) continue;
      }
      const count = this.clauseCount[c]!;
      if (this.clauseExact[c] === 1 ? n !== count : n < count) continue;
      let ok = true;
      const end = this.testStart[c + 1]!;
      for (let t = this.testStart[c]!; t < end; t++) {
        const position = this.testPosition[t]!;
        if (position >= n || !this.topicEquals(b, position, this.testValue[t]!, epoch)) {
          ok = false;
          break;
        }
      }
      if (ok) return true;
    }
    return false;
  }

  /** Index of the event's contract id (at `at`) among the clauses' distinct contracts, or -1. */
  private contractIndex(b: Uint8Array, at: number): number {
    const contracts = this.contracts;
    for (let i = 0; i < contracts.length; i++) if (equalWords(b, at, contracts[i]!, CONTRACT_ID_BYTES)) return i;
    return -1;
  }

  /** Offset of topic `position` of the current event (position < its topic count), walking from the furthest known. */
  private offsetOf(b: Uint8Array, position: number): number {
    const offsets = this.offsets;
    while (this.known <= position) {
      offsets[this.known] = scValEndOrBadXdr(b, offsets[this.known - 1]!);
      this.known++;
    }
    return offsets[position]!;
  }

  /** Whether topic `position` of the current event is the distinct value `value`; resolved once per event. */
  private topicEquals(b: Uint8Array, position: number, value: number, epoch: number): boolean {
    if (this.valueStamp[value] === epoch) return this.valueResult[value] === 1;
    const at = this.offsetOf(b, position);
    const want = this.values[value]!;
    let same = at + want.length <= b.length;
    if (same) {
      if (this.faults.topicTailOnly === true) {
        for (let j = want.length - 1; j >= want.length - Math.min(4, want.length) && same; j--) {
          same = b[at + j] === want[j];
        }
      } else {
        same = equalWords(b, at, this.valueWords[value]!, want.length);
      }
    }
    // An equal prefix is the whole topic (see the class comment): the next offset is known without a walk.
    if (same && this.known === position + 1) {
      this.offsets[position + 1] = at + want.length;
      this.known = position + 2;
    }
    this.valueStamp[value] = epoch;
    this.valueResult[value] = same ? 1 : 0;
    return same;
  }
}

/**
 * The compiled matcher of `clauses` (already shape-checked, not match-all), with `reference` for payloads whose
 * header or prefix the fast path does not accept. `faults` are the negative controls' deliberate defects.
 */
export function compileBytePostFilter(
  clauses: readonly CompilableClause[],
  reference: (payload: Uint8Array | PayloadView) => boolean,
  faults: PostFilterFaults = {},
): (payload: Uint8Array | PayloadView) => boolean {
  const compiled = new CompiledPostFilter(clauses, reference, faults);
  return (payload) => compiled.matches(payload);
}
