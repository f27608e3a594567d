// A generated chunk for the engine bench: a ChunkReader over up to 8,388,608 events (128 slabs of 65,536) whose
// term bitmaps are frozen portable views (serialize('portable') then unsafeFrozenView, as the cold tier serves them),
// built straight from a deterministic per-ordinal generator, and whose payloads that same generator produces on
// demand (encodeContractEvent + encodePayload of @strata/events) and keeps once fetched, as a hot reader keeps its
// stored bytes: no chunk-sized payload array is ever held.
//
// Every event is a contract event (type 1). A 32-bit hash of its ordinal picks its family; further hashes pick its
// values, so each family is spread evenly over every slab:
//
// - pair family P (112/256 of the events): a digit h in 0..5 and the five value fields contract, topic0..topic3 all
//   set to value h of that field (pairContract[h], pairTopic[k][h]); 4 topics, or 6 (bucket 5, the overflow) for half
//   of them. Two P terms of different fields co-occur exactly when they name the same h, so (field a = x, field b = y)
//   with x ≠ y never co-occurs: 10 field pairs × 30 = 300 such pairs, each term 4,500 to 4,800 per slab (bitset).
// - triple family T (112/256): digits p, q in 0..4 and contract = tripleContract[p], topic0 = tripleTopic[0][q],
//   topic1 = tripleTopic[1][p+q mod 5], topic2 = tripleTopic[2][p+2q mod 5]; exactly 3 topics. Any two of these four
//   fields take all 25 value pairs (pairwise overlapping), any two fix (p, q) and so the rest: 100 of the 125 value
//   triples of each of the 4 field triples are jointly empty. Each term is 5,400 to 5,750 per slab (bitset).
// - pubnet family N (32/256): CAP-67 style SAC events over the values of ../shared/fixtures/pubnet-getevents,
//   dominant as in pubnet traffic (synthetic stand-ins of the same shapes when the fixture is absent): the fixture's
//   4 contracts take 40/20/10/10 % (the rest: 32 tail contracts); `transfer` 80 %, `approve` 10 % as
//   [name, from, to, asset] (4 topics), `mint`, `burn` [name, from, asset] (3), `fee` [name, from] (2); each of the 3
//   fixture addresses of topic1 (and of topic2) 7.8 %, else one of 64 tail addresses; each of the 3 fixture assets
//   25 %, else one of 8 tail assets. A fixture filter's combination (contract ∧ 4 topics) holds 6 to 524 events
//   (median 111, over the 76 combinations the K = 1 requests name).
// - sparse overlay: 1/16 of all events (any family) carry one of 16 sparse contracts instead (about 256 per slab each,
//   array containers); removing a term from events keeps every emptiness above true.
//
// Topic-count buckets: 3 (T, and N's mint/burn), 4 (half of P, N's transfer/approve) and 5 (the other half of P) are
// dense; 2 is N's fee events. What each bench row's filters mean, and the checks that prove it on the built chunk,
// are in engine-rows.ts.
import { createHash } from 'node:crypto';
import { assert } from '@strata/base';
import {
  type ChunkReader,
  CONTRACT_EVENT_TYPE,
  chunkFirstLedger,
  deriveTerms,
  EventsError,
  EventsErrorCode,
  encodeContractEvent,
  encodePayload,
  eventTypeTermKey,
  type FetchedEvent,
  LEDGERS_PER_CHUNK,
  LedgerOffsets,
  MAX_TOPIC_POSITIONS,
  type OrdinalWindow,
  type ReadonlyBitmap,
  TERM_FIELD,
  type TermKey,
  TOPIC_COUNT_OVERFLOW_BUCKET,
  termKey,
  termKeyHex,
  topicCountTermKey,
  topicField,
  viewPayload,
} from '@strata/events';
import { checkWindow } from '@strata/test-contracts';
import roaring from 'roaring';
import type { PubnetVocabulary } from './pubnet-requests.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/** Ordinals per slab (one roaring container). */
export const SLAB = 65_536;
/** The bench's chunk: 128 slabs. */
export const FULL_CHUNK_EVENTS = 128 * SLAB;
/** The chunk of the pubnet fixture (ledgers 59,990,002 to 60,000,001). */
export const CHUNK_ID = 5999;

// --- ScVal XDR of the few shapes the corpus uses ---------------------------------------------------------------

function xdrWithType(type: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + body.length);
  new DataView(out.buffer).setUint32(0, type);
  out.set(body, 4);
  return out;
}

/** SCV_SYMBOL (15) or SCV_STRING (14): length, bytes, zero padding to 4. */
function textXdr(type: 14 | 15, text: string): Uint8Array {
  const bytes = Buffer.from(text, 'latin1');
  const body = new Uint8Array(4 + Math.ceil(bytes.length / 4) * 4);
  new DataView(body.buffer).setUint32(0, bytes.length);
  body.set(bytes, 4);
  return xdrWithType(type, body);
}

const symbol = (name: string) => textXdr(15, name);

/** SCV_ADDRESS (18) of an account: SC_ADDRESS_TYPE_ACCOUNT (0), PUBLIC_KEY_TYPE_ED25519 (0), the 32-byte key. */
function accountXdr(key: Uint8Array): Uint8Array {
  const body = new Uint8Array(8 + 32);
  body.set(key, 8);
  return xdrWithType(18, body);
}

/** SCV_I128 (10): high 64 bits 0, low 64 bits `amount`. */
function amountXdr(amount: number): Uint8Array {
  const body = new Uint8Array(16);
  new DataView(body.buffer).setUint32(12, amount);
  return xdrWithType(10, body);
}

/** 32 bytes that look random and are the same on every run. */
function bytes32(label: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(label).digest());
}

/** A classic asset string, CODE:ISSUER, with a made-up 56-character issuer. */
function assetString(code: string): Uint8Array {
  const issuer = `G${createHash('sha256').update(code).digest('hex').toUpperCase().slice(0, 55)}`;
  return textXdr(14, `${code}:${issuer}`);
}

// --- the vocabulary: every (field, value) the generator can emit, as a dense term id ----------------------------

/** The field of a term id, for labels and for the payload builder. */
type FieldName = 'type' | 'count' | 'contract' | 'topic0' | 'topic1' | 'topic2' | 'topic3';

class Vocabulary {
  readonly keys: TermKey[] = [];
  readonly labels: string[] = [];
  /** The value bytes of contract and topic terms (contract id or ScVal XDR); empty for type and count terms. */
  readonly values: Uint8Array[] = [];
  readonly fields: FieldName[] = [];

  private push(field: FieldName, key: TermKey, value: Uint8Array, label: string): number {
    this.keys.push(key);
    this.values.push(value);
    this.fields.push(field);
    this.labels.push(`${field}=${label}`);
    return this.keys.length - 1;
  }

  contract(id: Uint8Array, label: string): number {
    return this.push('contract', termKey(TERM_FIELD.CONTRACT_ID, id), id, label);
  }

  topic(position: number, xdr: Uint8Array, label: string): number {
    return this.push(`topic${position}` as FieldName, termKey(topicField(position), xdr), xdr, label);
  }

  type(type: number): number {
    return this.push('type', eventTypeTermKey(type), new Uint8Array(0), String(type));
  }

  bucket(bucket: number): number {
    return this.push('count', topicCountTermKey(bucket), new Uint8Array(0), String(bucket));
  }
}

/** The term ids and value bytes of the families (see the header); engine-rows.ts builds filters from them. */
export interface CorpusVocabulary {
  readonly pairContracts: readonly Uint8Array[];
  /** pairTopics[k][h]: topic position k's value h. */
  readonly pairTopics: readonly (readonly Uint8Array[])[];
  readonly tripleContracts: readonly Uint8Array[];
  /** tripleTopics[k][v] for positions 0..2. */
  readonly tripleTopics: readonly (readonly Uint8Array[])[];
  readonly sparseContracts: readonly Uint8Array[];
  /** The dominant pubnet values (the fixture's, or stand-ins): contracts and topic positions 0..3. */
  readonly pubnet: PubnetVocabulary;
  /** True when `pubnet` holds the fixture's real values. */
  readonly pubnetIsReal: boolean;
}

export const PAIR_VALUES = 6;
export const TRIPLE_VALUES = 5;
export const SPARSE_CONTRACTS = 16;
const TAIL_CONTRACTS = 32;
const TAIL_ADDRESSES = 64;
const TAIL_ASSETS = 8;

/** Stand-ins of the fixture's shapes: 4 contracts, 2 event names, 3 + 3 addresses, 3 assets. */
function standInPubnet(): PubnetVocabulary {
  return {
    contracts: [0, 1, 2, 3].map((i) => bytes32(`pubnet-contract-${i}`)),
    topics: [
      [symbol('transfer'), symbol('approve')],
      [0, 1, 2].map((i) => accountXdr(bytes32(`pubnet-from-${i}`))),
      [0, 1, 2].map((i) => accountXdr(bytes32(`pubnet-to-${i}`))),
      [textXdr(14, 'native'), assetString('USDC'), assetString('VLR')],
    ],
  };
}

// --- the generator ----------------------------------------------------------------------------------------------

/** murmur3's 32-bit finalizer: a bijection on u32 that spreads every input bit. */
function mix(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const FAMILY_P_END = 112;
const FAMILY_T_END = 224;
/** Events whose second hash byte is below this carry a sparse contract: 16/256. */
const SPARSE_BELOW = 16;

/**
 * One event as the generator describes it, written into a reused Int32Array: [CONTRACT] its contract term id (every
 * event has one), [COUNT] its number of topics (up to 6; positions from 4 on are not indexed), [TOPIC0 + p] the term
 * id of topic p for p < min(count, 4), [AMOUNT] the u32 its i128 data value holds.
 */
const CONTRACT = 0;
const COUNT = 1;
const TOPIC0 = 2;
const AMOUNT = 6;
export const SHAPE_SLOTS = 7;

/** Topics at positions 4 and 5 of P's six-topic events (not indexed: they only move the event to bucket 5). */
const EXTRA_TOPICS = [symbol('extra4'), symbol('extra5')];

/** Term ids of the generator's choices, resolved once. */
interface Tables {
  pairContract: Int32Array;
  pairTopic: Int32Array[];
  tripleContract: Int32Array;
  tripleTopic: Int32Array[];
  sparse: Int32Array;
  /** N's contracts: the 4 dominant then the tail. */
  pubnetContract: Int32Array;
  /** N's event names: transfer, approve (the fixture's) then mint, burn, fee. */
  pubnetName: Int32Array;
  /** N's addresses at topic1: 3 dominant then the tail; the same values at topic2 for the 3-topic kinds' asset. */
  pubnetFrom: Int32Array;
  pubnetTo: Int32Array;
  /** N's assets at topic3 (transfer, approve) and at topic2 (mint, burn): 3 dominant then the tail. */
  pubnetAsset3: Int32Array;
  pubnetAsset2: Int32Array;
}

function buildTables(vocab: Vocabulary, corpus: CorpusVocabulary): Tables {
  const ids = (values: readonly Uint8Array[], add: (v: Uint8Array, i: number) => number) =>
    Int32Array.from(values.map(add));
  const { pubnet } = corpus;
  const [names, from, to, assets] = pubnet.topics as [Uint8Array[], Uint8Array[], Uint8Array[], Uint8Array[]];
  const tailContracts = Array.from({ length: TAIL_CONTRACTS }, (_, i) => bytes32(`pubnet-tail-contract-${i}`));
  const tailFrom = Array.from({ length: TAIL_ADDRESSES }, (_, i) => accountXdr(bytes32(`tail-from-${i}`)));
  const tailTo = Array.from({ length: TAIL_ADDRESSES }, (_, i) => accountXdr(bytes32(`tail-to-${i}`)));
  const tailAssets = Array.from({ length: TAIL_ASSETS }, (_, i) => assetString(`TAIL${i}`));
  const allAssets = [...assets, ...tailAssets];
  return {
    pairContract: ids(corpus.pairContracts, (v, h) => vocab.contract(v, `pair-${h}`)),
    pairTopic: corpus.pairTopics.map((values, k) => ids(values, (v, h) => vocab.topic(k, v, `pair${k}_${h}`))),
    tripleContract: ids(corpus.tripleContracts, (v, p) => vocab.contract(v, `triple-${p}`)),
    tripleTopic: corpus.tripleTopics.map((values, k) => ids(values, (v, i) => vocab.topic(k, v, `tri${k}_${i}`))),
    sparse: ids(corpus.sparseContracts, (v, i) => vocab.contract(v, `sparse-${i}`)),
    pubnetContract: ids([...pubnet.contracts, ...tailContracts], (v, i) =>
      vocab.contract(v, i < 4 ? `pubnet-${i}` : `tail-${i - 4}`),
    ),
    pubnetName: ids([...names, symbol('mint'), symbol('burn'), symbol('fee')], (v, i) =>
      vocab.topic(0, v, ['transfer', 'approve', 'mint', 'burn', 'fee'][i]!),
    ),
    pubnetFrom: ids([...from, ...tailFrom], (v, i) => vocab.topic(1, v, i < 3 ? `from-${i}` : `tail-from-${i - 3}`)),
    pubnetTo: ids([...to, ...tailTo], (v, i) => vocab.topic(2, v, i < 3 ? `to-${i}` : `tail-to-${i - 3}`)),
    pubnetAsset3: ids(allAssets, (v, i) => vocab.topic(3, v, i < 3 ? `asset-${i}` : `tail-asset-${i - 3}`)),
    pubnetAsset2: ids(allAssets, (v, i) => vocab.topic(2, v, i < 3 ? `asset-${i}` : `tail-asset-${i - 3}`)),
  };
}

/** Picks index i of a weighted list from a byte: thresholds ascending, the last entry catching the rest. */
function pickByte(byte: number, thresholds: readonly number[]): number {
  for (let i = 0; i < thresholds.length; i++) if (byte < thresholds[i]!) return i;
  return thresholds.length;
}

/** N's contracts by byte: 40 %, 20 %, 10 %, 10 %, then the tail (20 %). */
const PUBNET_CONTRACT_BYTES = [102, 153, 179, 205];
/** N's names by byte: transfer 80 %, approve 10 %, mint, burn 3.5 % each, fee (the rest). */
const PUBNET_NAME_BYTES = [205, 231, 240, 249];
/** Each of the 3 dominant addresses: 20/256 = 7.8 %. */
const DOMINANT_ADDRESS_BYTES = [20, 40, 60];
/** Each of the 3 dominant assets: 25 %. */
const DOMINANT_ASSET_BYTES = [64, 128, 192];

/** Writes the event at `ordinal` into `shape` (see SHAPE_SLOTS). Pure: the same ordinal always gives the same event. */
function describe(tables: Tables, ordinal: number, shape: Int32Array): void {
  const r = mix(ordinal ^ 0x9e3779b9);
  const r2 = mix(r + 0x7f4a7c15);
  const family = r & 0xff;
  shape[TOPIC0] = shape[TOPIC0 + 1] = shape[TOPIC0 + 2] = shape[TOPIC0 + 3] = -1;
  shape[AMOUNT] = r2 & 0xffff;
  if (family < FAMILY_P_END) {
    const h = r2 % PAIR_VALUES;
    shape[CONTRACT] = tables.pairContract[h]!;
    for (let k = 0; k < 4; k++) shape[TOPIC0 + k] = tables.pairTopic[k]![h]!;
    shape[COUNT] = (r2 >>> 24) & 1 ? 6 : 4;
  } else if (family < FAMILY_T_END) {
    const p = r2 % TRIPLE_VALUES;
    const q = Math.floor(r2 / TRIPLE_VALUES) % TRIPLE_VALUES;
    shape[CONTRACT] = tables.tripleContract[p]!;
    shape[TOPIC0] = tables.tripleTopic[0]![q]!;
    shape[TOPIC0 + 1] = tables.tripleTopic[1]![(p + q) % TRIPLE_VALUES]!;
    shape[TOPIC0 + 2] = tables.tripleTopic[2]![(p + 2 * q) % TRIPLE_VALUES]!;
    shape[COUNT] = 3;
  } else {
    const r3 = mix(r2 + 0x6a09e667);
    const r4 = mix(r3 + 0xbb67ae85);
    const c = pickByte(r3 & 0xff, PUBNET_CONTRACT_BYTES);
    shape[CONTRACT] = tables.pubnetContract[c < 4 ? c : 4 + (r4 % TAIL_CONTRACTS)]!;
    const name = pickByte((r3 >>> 8) & 0xff, PUBNET_NAME_BYTES);
    shape[TOPIC0] = tables.pubnetName[name]!;
    const f = pickByte((r3 >>> 16) & 0xff, DOMINANT_ADDRESS_BYTES);
    shape[TOPIC0 + 1] = tables.pubnetFrom[f < 3 ? f : 3 + ((r4 >>> 8) % TAIL_ADDRESSES)]!;
    const a = pickByte(r4 >>> 24, DOMINANT_ASSET_BYTES);
    const asset = a < 3 ? a : 3 + ((r4 >>> 16) % TAIL_ASSETS);
    if (name <= 1) {
      const t = pickByte(r3 >>> 24, DOMINANT_ADDRESS_BYTES);
      shape[TOPIC0 + 2] = tables.pubnetTo[t < 3 ? t : 3 + ((r2 >>> 8) % TAIL_ADDRESSES)]!;
      shape[TOPIC0 + 3] = tables.pubnetAsset3[asset]!;
      shape[COUNT] = 4;
    } else if (name <= 3) {
      shape[TOPIC0 + 2] = tables.pubnetAsset2[asset]!;
      shape[COUNT] = 3;
    } else {
      shape[COUNT] = 2;
    }
  }
  if (((r >>> 8) & 0xff) < SPARSE_BELOW) shape[CONTRACT] = tables.sparse[(r >>> 8) & (SPARSE_CONTRACTS - 1)]!;
}

// --- the chunk ----------------------------------------------------------------------------------------------------

/** The family values of the bench corpus, with the pubnet values given or stood in for. */
export function corpusVocabulary(pubnet: PubnetVocabulary | undefined): CorpusVocabulary {
  return {
    pairContracts: Array.from({ length: PAIR_VALUES }, (_, h) => bytes32(`pair-contract-${h}`)),
    pairTopics: [0, 1, 2, 3].map((k) => Array.from({ length: PAIR_VALUES }, (_, h) => symbol(`pair${k}_${h}`))),
    tripleContracts: Array.from({ length: TRIPLE_VALUES }, (_, p) => bytes32(`triple-contract-${p}`)),
    tripleTopics: [0, 1, 2].map((k) => Array.from({ length: TRIPLE_VALUES }, (_, v) => symbol(`tri${k}_${v}`))),
    sparseContracts: Array.from({ length: SPARSE_CONTRACTS }, (_, i) => bytes32(`sparse-contract-${i}`)),
    pubnet: pubnet ?? standInPubnet(),
    pubnetIsReal: pubnet !== undefined,
  };
}

/** Payloads a reader keeps once produced; past this it forgets them all and starts again. */
const PAYLOAD_MEMORY_LIMIT = 1 << 20;
const FIRST_CLOSE_TIME = 1_750_000_000;
/** Events per transaction in the generated headers (tx index from 1, event index 0..2, op 0). */
const EVENTS_PER_TX = 3;

function readerError(detail: string): never {
  throw new EventsError(EventsErrorCode.INVALID_ARGUMENT, detail, { field: 'ChunkReader' });
}

/**
 * The generated chunk as a ChunkReader (chunk 5999, 10,000 ledgers, `eventCount` events spread evenly over them).
 * Same contract as any reader: lookups answer whole-chunk frozen views (exact inside every window; a term with no
 * ordinal in the window is absent), payloads stay valid until close. One thread; calls do not block each other.
 */
export class SyntheticChunk implements ChunkReader {
  readonly chunkId = CHUNK_ID;
  readonly corpus: CorpusVocabulary;
  /** Term key, label and frozen view of every term the chunk holds, by term id (undefined: never emitted). */
  readonly keys: readonly TermKey[];
  readonly labels: readonly string[];
  readonly views: readonly (RoaringBitmap32 | undefined)[];
  private readonly count: number;
  private readonly offsets: LedgerOffsets;
  private readonly vocab: Vocabulary;
  private readonly tables: Tables;
  private readonly termOfKey = new Map<string, number>();
  /** The portable bytes behind each view (a view reads them in place). */
  private readonly portable: Uint8Array[] = [];
  private readonly payloads = new Map<number, Uint8Array>();
  private readonly shape = new Int32Array(SHAPE_SLOTS);
  private readonly txHash = new Uint8Array(32);
  private closed = false;

  constructor(eventCount: number, corpus: CorpusVocabulary, progress: (line: string) => void = () => {}) {
    assert(Number.isInteger(eventCount) && eventCount > 0 && eventCount <= FULL_CHUNK_EVENTS, 'event count fits');
    this.count = eventCount;
    this.corpus = corpus;
    const startLedger = chunkFirstLedger(CHUNK_ID);
    const counts = Array.from({ length: LEDGERS_PER_CHUNK }, (_, i) => this.ledgerStart(i + 1) - this.ledgerStart(i));
    this.offsets = LedgerOffsets.fromCounts(startLedger, counts);
    this.vocab = new Vocabulary();
    const typeTerm = this.vocab.type(CONTRACT_EVENT_TYPE.CONTRACT);
    const bucketTerms = Int32Array.from({ length: TOPIC_COUNT_OVERFLOW_BUCKET + 1 }, (_, b) => this.vocab.bucket(b));
    this.tables = buildTables(this.vocab, corpus);
    this.keys = this.vocab.keys;
    this.labels = this.vocab.labels;
    this.keys.forEach((key, id) => {
      const hex = termKeyHex(key);
      assert(!this.termOfKey.has(hex), () => `term ${this.labels[id]} registered twice`);
      this.termOfKey.set(hex, id);
    });
    this.views = this.buildIndex(typeTerm, bucketTerms, progress);
  }

  /** First ordinal of relative ledger i: the chunk's events spread evenly over its 10,000 ledgers. */
  private ledgerStart(i: number): number {
    return Math.floor((i * this.count) / LEDGERS_PER_CHUNK);
  }

  /**
   * One pass over the ordinals, a slab at a time: each event's term ids (by describe), counted and scattered into one
   * flat array grouped by term, then appended to each term's bitmap; at the end every bitmap is run-optimized,
   * serialized portable and replaced by a frozen view over those bytes.
   */
  private buildIndex(
    typeTerm: number,
    bucketTerms: Int32Array,
    progress: (line: string) => void,
  ): (RoaringBitmap32 | undefined)[] {
    const termCount = this.vocab.keys.length;
    const perEvent = 2 + MAX_TOPIC_POSITIONS; // contract, bucket, topics 0..3 (the type term is added as one range)
    const termsOf = new Int32Array(SLAB * perEvent);
    const termsPerEvent = new Uint8Array(SLAB);
    const perTerm = new Int32Array(termCount);
    const cursor = new Int32Array(termCount);
    const grouped = new Uint32Array(SLAB * perEvent);
    const builders = Array.from({ length: termCount }, () => new RoaringBitmap32());
    builders[typeTerm]!.addRange(0, this.count);
    const shape = this.shape;
    const started = performance.now();
    for (let base = 0; base < this.count; base += SLAB) {
      const n = Math.min(SLAB, this.count - base);
      perTerm.fill(0);
      for (let i = 0; i < n; i++) {
        describe(this.tables, base + i, shape);
        const at = i * perEvent;
        let m = 0;
        termsOf[at + m++] = shape[CONTRACT]!;
        const topics = shape[COUNT]!;
        termsOf[at + m++] = bucketTerms[Math.min(topics, TOPIC_COUNT_OVERFLOW_BUCKET)]!;
        for (let p = 0; p < Math.min(topics, MAX_TOPIC_POSITIONS); p++) termsOf[at + m++] = shape[TOPIC0 + p]!;
        termsPerEvent[i] = m;
        for (let j = 0; j < m; j++) perTerm[termsOf[at + j]!]!++;
      }
      let offset = 0;
      for (let t = 0; t < termCount; t++) {
        cursor[t] = offset;
        offset += perTerm[t]!;
      }
      for (let i = 0; i < n; i++) {
        const at = i * perEvent;
        for (let j = 0; j < termsPerEvent[i]!; j++) grouped[cursor[termsOf[at + j]!]!++] = base + i;
      }
      for (let t = 0; t < termCount; t++) {
        if (perTerm[t]! > 0) builders[t]!.addMany(grouped.subarray(cursor[t]! - perTerm[t]!, cursor[t]!));
      }
      const slab = base / SLAB + 1;
      if (slab % 32 === 0 || base + n === this.count) {
        progress(
          `generated ${slab} of ${Math.ceil(this.count / SLAB)} slabs (${Math.round(performance.now() - started)} ms)`,
        );
      }
    }
    return builders.map((builder, t) => {
      if (builder.isEmpty) return undefined;
      builder.runOptimize();
      const bytes = builder.serialize('portable');
      builder.clear();
      this.portable[t] = bytes;
      return RoaringBitmap32.unsafeFrozenView(bytes, 'unsafe_frozen_portable');
    });
  }

  /** The term ids `ordinal`'s payload derives, straight from the generator (the self-test compares the two). */
  termsOf(ordinal: number): number[] {
    describe(this.tables, ordinal, this.shape);
    const shape = this.shape;
    const topics = shape[COUNT]!;
    const ids = [this.termOfKey.get(termKeyHex(eventTypeTermKey(CONTRACT_EVENT_TYPE.CONTRACT)))!, shape[CONTRACT]!];
    ids.push(this.termOfKey.get(termKeyHex(topicCountTermKey(Math.min(topics, TOPIC_COUNT_OVERFLOW_BUCKET))))!);
    for (let p = 0; p < Math.min(topics, MAX_TOPIC_POSITIONS); p++) ids.push(shape[TOPIC0 + p]!);
    return ids;
  }

  /** The term id of a key, or undefined when the corpus has no such term. */
  termOf(key: TermKey): number | undefined {
    return this.termOfKey.get(termKeyHex(key));
  }

  /** The stored payload of `ordinal`: made by the generator the first time, then kept. */
  private payloadOf(ordinal: number): Uint8Array {
    const kept = this.payloads.get(ordinal);
    if (kept !== undefined) return kept;
    const shape = this.shape;
    describe(this.tables, ordinal, shape);
    const values = this.vocab.values;
    const topics: Uint8Array[] = [];
    for (let p = 0; p < shape[COUNT]!; p++) {
      topics.push(p < MAX_TOPIC_POSITIONS ? values[shape[TOPIC0 + p]!]! : EXTRA_TOPICS[p - MAX_TOPIC_POSITIONS]!);
    }
    const contractEvent = encodeContractEvent({
      contractId: values[shape[CONTRACT]!]!,
      type: CONTRACT_EVENT_TYPE.CONTRACT,
      topics,
      value: amountXdr(shape[AMOUNT]!),
    });
    const ledger = Math.ceil(((ordinal + 1) * LEDGERS_PER_CHUNK) / this.count) - 1;
    const inLedger = ordinal - this.ledgerStart(ledger);
    const txIndex = 1 + Math.floor(inLedger / EVENTS_PER_TX);
    const header = new DataView(this.txHash.buffer);
    header.setUint32(0, this.offsets.startLedger + ledger);
    header.setUint32(4, txIndex);
    const payload = encodePayload({
      txHash: this.txHash,
      ledger: this.offsets.startLedger + ledger,
      txIndex,
      opIndex: 0,
      ledgerClosedAt: FIRST_CLOSE_TIME + ledger * 6,
      eventIndex: inLedger % EVENTS_PER_TX,
      contractEvent,
    });
    if (this.payloads.size >= PAYLOAD_MEMORY_LIMIT) this.payloads.clear();
    this.payloads.set(ordinal, payload);
    return payload;
  }

  private open(): void {
    if (this.closed) readerError('reader is closed');
  }

  eventCount(): number {
    this.open();
    return this.count;
  }

  ledgerOffsets(): LedgerOffsets {
    this.open();
    return this.offsets;
  }

  async lookupTerms(keys: readonly TermKey[], window: OrdinalWindow): Promise<(ReadonlyBitmap | undefined)[]> {
    this.open();
    checkWindow(window, this.count);
    return keys.map((key) => {
      const term = this.termOfKey.get(termKeyHex(key));
      const view = term === undefined ? undefined : this.views[term];
      // intersectsWithRange(a, b) of roaring 2.7.0 tests [a, b - 1): b = end + 1 tests the window [start, end).
      if (view === undefined || window.start === window.end) return undefined;
      return view.intersectsWithRange(window.start, window.end + 1) ? view : undefined;
    });
  }

  async fetchEvents(ordinals: ArrayLike<number>): Promise<Uint8Array[]> {
    this.open();
    const out: Uint8Array[] = new Array(ordinals.length);
    for (let i = 0; i < ordinals.length; i++) {
      const o = ordinals[i]!;
      if (!Number.isInteger(o) || o < 0 || o >= this.count) readerError(`ordinal ${o} outside [0, ${this.count})`);
      if (i > 0 && o <= ordinals[i - 1]!) readerError('ordinals must be strictly ascending');
      out[i] = this.payloadOf(o);
    }
    return out;
  }

  async fetchRange(window: OrdinalWindow): Promise<FetchedEvent[]> {
    this.open();
    checkWindow(window, this.count);
    const out: FetchedEvent[] = [];
    for (let o = window.start; o < window.end; o++) out.push({ ordinal: o, payload: this.payloadOf(o) });
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.payloads.clear();
  }
}

/**
 * The self-test of the generator: for `samples` ordinals (the first and last of every slab, and spread ones) the
 * terms deriveTerms finds in the payload are exactly the terms whose bitmaps hold the ordinal, and the header's
 * ledger is the one LedgerOffsets gives the ordinal. Throws AssertionError on the first mismatch.
 */
export async function checkSyntheticChunk(chunk: SyntheticChunk, samples: number): Promise<void> {
  const count = chunk.eventCount();
  const ordinals = new Set<number>();
  for (let base = 0; base < count; base += SLAB) ordinals.add(base).add(Math.min(base + SLAB, count) - 1);
  for (let i = 0; ordinals.size < Math.min(samples, count); i++) ordinals.add(mix(i + 0x51ed) % count);
  const sorted = [...ordinals].sort((a, b) => a - b);
  const payloads = await chunk.fetchEvents(sorted);
  const offsets = chunk.ledgerOffsets();
  sorted.forEach((ordinal, i) => {
    const payload = payloads[i]!;
    const derived = deriveTerms(payload)
      .map((key) => chunk.termOf(key) ?? -1)
      .sort((a, b) => a - b);
    const held: number[] = [];
    chunk.views.forEach((view, term) => {
      if (view?.has(ordinal)) held.push(term);
    });
    const generated = chunk.termsOf(ordinal).sort((a, b) => a - b);
    const show = (ids: number[]) => ids.map((id) => chunk.labels[id] ?? `#${id}`).join(', ');
    assert(
      derived.join() === held.join(),
      () => `ordinal ${ordinal}: payload [${show(derived)}], index [${show(held)}]`,
    );
    assert(generated.join() === held.join(), () => `ordinal ${ordinal}: generator [${show(generated)}]`);
    assert(viewPayload(payload).ledger === offsets.ledgerOfOrdinal(ordinal), () => `ordinal ${ordinal}: ledger`);
  });
}
