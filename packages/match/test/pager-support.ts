// The pager suites' corpora, source and oracles. A corpus is sparse events over chunks 0..3 (ledgers 2..40,001), one
// @strata/test-contracts InMemoryChunkReader per served chunk; the source counts what the pager asks of it. The
// oracle pager lists every stored event of the scope in order, post-filters it, and models the 10,000-ledger cap,
// the per-chunk look-ahead, the watermark and the statuses from the spec's rules, with no reader, offsets or engine.
import {
  type ChunkReader,
  type CursorPosition,
  chunkFirstLedger,
  chunkIdOfLedger,
  chunkLastLedger,
  type EventCursorV2,
  type EventPosition,
  encodeContractEvent,
  encodePayload,
  MAX_POSITION,
  matchesAnyFilter,
  OP_MASK,
  type StorageFilter,
  TX_MASK,
  type V1ScanWindow,
} from '@strata/events';
import { InMemoryChunkReader } from '@strata/test-contracts';
import fc from 'fast-check';
import type { Match, MatchOptions } from '../src/engine/types.js';
import { MatchError } from '../src/errors.js';
import type { EventChunkSource, LedgerRange } from '../src/pager/event-source.js';
import type { QueryScope, V2Resume } from '../src/pager/page-request.js';
import { type EventPage, MAX_SCAN_LEDGERS, type PageEvent, ScanStatus } from '../src/pager/query-events.js';
import type { V1Page } from '../src/pager/query-events-v1.js';

/** Raw XDR of Symbol(name). */
function symbolXdr(name: string): Uint8Array {
  const bytes = Buffer.alloc(8 + Math.ceil(name.length / 4) * 4);
  bytes.writeUInt32BE(15, 0);
  bytes.writeUInt32BE(name.length, 4);
  bytes.write(name, 8);
  return new Uint8Array(bytes);
}

export const CONTRACTS: readonly Uint8Array[] = [0xc0, 0xc1, 0xc2].map((b) => new Uint8Array(32).fill(b));
export const TOPICS: readonly Uint8Array[] = ['alpha', 'beta', 'gamma', 'delta'].map(symbolXdr);
const VALUE = symbolXdr('data');
/** Chunks a corpus may use: 0..LAST_CHUNK. */
export const LAST_CHUNK = 3;
export const LAST_CORPUS_LEDGER = chunkLastLedger(LAST_CHUNK);

/**
 * (tx, op) slots in id order (spec §2.2): before-all-transactions, operation events and after-transaction events of
 * transactions 1..3, after-all-transactions. No slot has tx 1048575 with op 4095 (no stored event has).
 */
const SLOTS: readonly (readonly [number, number])[] = [
  [0, 0],
  [1, 0],
  [1, 1],
  [1, OP_MASK],
  [2, 0],
  [2, OP_MASK],
  [3, 0],
  [3, 2],
  [TX_MASK, 0],
];

/** One event's content and slot; its event index is its rank among the ledger's events of the same slot. */
export interface EventSpec {
  readonly slot: number;
  readonly contract?: number;
  readonly type: 0 | 1;
  readonly topics: readonly number[];
}

/** One stored event as the oracle sees it. */
export interface StoredEvent extends CursorPosition {
  readonly payload: Uint8Array;
}

/** Sorted events of one ledger, coordinates assigned. */
export function ledgerEvents(ledger: number, specs: readonly EventSpec[]): StoredEvent[] {
  const sorted = [...specs].sort((a, b) => a.slot - b.slot);
  const perSlot = new Map<number, number>();
  return sorted.map((spec, ledgerOrdinal) => {
    const [tx, op] = SLOTS[spec.slot]!;
    const event = perSlot.get(spec.slot) ?? 0;
    perSlot.set(spec.slot, event + 1);
    const contractEvent = encodeContractEvent({
      ...(spec.contract === undefined ? {} : { contractId: CONTRACTS[spec.contract]! }),
      type: spec.type,
      topics: spec.topics.map((t) => TOPICS[t]!),
      value: VALUE,
    });
    const payload = encodePayload({
      txHash: new Uint8Array(32).fill(ledger & 0xff),
      ledger,
      txIndex: tx,
      opIndex: op,
      ledgerClosedAt: 1_700_000_000 + ledger * 5,
      eventIndex: event,
      contractEvent,
    });
    return { ledger, tx, op, event, ledgerOrdinal, payload };
  });
}

export interface CorpusSpec {
  readonly oldestLedger: number;
  /** The tip the source serves first. */
  readonly latestLedger: number;
  /** A later tip (≥ latestLedger) the readers already cover: a drain may move the source to it. */
  readonly grownLatestLedger: number;
  /** Ledgers the last reader's offsets run past grownLatestLedger (a hot chunk ahead of the range read). */
  readonly extraLedgers: number;
  /** The first reader starts at the floor (else at its chunk's first ledger, a whole cold chunk). */
  readonly firstReaderAtFloor: boolean;
  readonly ledgers: ReadonlyMap<number, readonly EventSpec[]>;
}

/** A corpus: its stored events in id order and one reader per chunk, built once and shared by its sources. */
export class Corpus {
  readonly stored: readonly StoredEvent[];
  readonly readers = new Map<number, ChunkReader>();

  constructor(readonly spec: CorpusSpec) {
    const firstChunk = chunkIdOfLedger(spec.oldestLedger);
    const lastChunk = chunkIdOfLedger(Math.max(spec.grownLatestLedger, spec.oldestLedger));
    const stored: StoredEvent[] = [];
    for (let chunkId = firstChunk; chunkId <= lastChunk; chunkId++) {
      const start = chunkId === firstChunk && spec.firstReaderAtFloor ? spec.oldestLedger : chunkFirstLedger(chunkId);
      const end =
        chunkId === lastChunk
          ? Math.min(chunkLastLedger(chunkId), spec.grownLatestLedger + spec.extraLedgers)
          : chunkLastLedger(chunkId);
      const ledgers: Uint8Array[][] = [];
      for (let ledger = start; ledger <= end; ledger++) {
        const specs = spec.ledgers.get(ledger);
        const events = specs === undefined ? [] : ledgerEvents(ledger, specs);
        stored.push(...events);
        ledgers.push(events.map((e) => e.payload));
      }
      this.readers.set(chunkId, new InMemoryChunkReader({ startLedger: start, ledgers }));
    }
    this.stored = stored;
  }

  /** A source serving [oldestLedger, latest] over this corpus's readers. */
  source(latest = this.spec.latestLedger): CountingSource {
    return new CountingSource(this.readers, { oldestLedger: this.spec.oldestLedger, latestLedger: latest });
  }
}

/** An EventChunkSource over fixed readers that records every call the pager makes. */
export class CountingSource implements EventChunkSource {
  rangeCalls = 0;
  readonly opened: number[] = [];

  constructor(
    readonly readers: ReadonlyMap<number, ChunkReader>,
    public range: LedgerRange,
  ) {}

  ledgerRange(): LedgerRange {
    this.rangeCalls++;
    return this.range;
  }

  async openChunk(chunkId: number): Promise<ChunkReader> {
    this.opened.push(chunkId);
    const reader = this.readers.get(chunkId);
    if (reader === undefined) throw new Error(`the test source has no chunk ${chunkId}`);
    return reader;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Arbitraries.

const eventSpecArb: fc.Arbitrary<EventSpec> = fc
  .record({
    slot: fc.nat(SLOTS.length - 1),
    contract: fc.option(fc.nat(CONTRACTS.length - 1), { nil: undefined }),
    type: fc.constantFrom<0 | 1>(0, 1),
    topics: fc.array(fc.nat(TOPICS.length - 1), { maxLength: 3 }),
  })
  .map(({ contract, ...rest }) => (contract === undefined ? rest : { ...rest, contract }));

/** A ledger, biased to chunk boundaries (both sides, near and farther) and the first ledgers. */
export const ledgerPickArb: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: 2, max: LAST_CORPUS_LEDGER }),
  fc
    .tuple(fc.integer({ min: 1, max: LAST_CHUNK }), fc.integer({ min: -3, max: 3 }))
    .map(([chunk, delta]) => chunkFirstLedger(chunk) + delta),
  fc
    .tuple(fc.integer({ min: 1, max: LAST_CHUNK }), fc.integer({ min: -60, max: 60 }))
    .map(([chunk, delta]) => chunkFirstLedger(chunk) + delta),
  fc.integer({ min: 2, max: 8 }),
);

/** Sparse corpora: up to 80 ledgers holding 1..8 events each, over a served range inside chunks 0..3. */
export const corpusSpecArb: fc.Arbitrary<CorpusSpec> = fc
  .record({
    oldest: fc.oneof(
      fc.constant(2),
      fc.constant(chunkFirstLedger(1)),
      fc.integer({ min: 2, max: chunkFirstLedger(2) }),
    ),
    latest: fc.integer({ min: 2, max: LAST_CORPUS_LEDGER }),
    growth: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 15_000 })),
    extraLedgers: fc.nat(3),
    firstReaderAtFloor: fc.boolean(),
    ledgers: fc.array(fc.tuple(ledgerPickArb, fc.array(eventSpecArb, { minLength: 1, maxLength: 8 })), {
      maxLength: 80,
      size: 'medium',
    }),
  })
  .map(({ oldest, latest, growth, extraLedgers, firstReaderAtFloor, ledgers }) => {
    const latestLedger = Math.max(latest, oldest);
    const byLedger = new Map<number, EventSpec[]>();
    for (const [ledger, specs] of ledgers) byLedger.set(ledger, [...(byLedger.get(ledger) ?? []), ...specs]);
    return {
      oldestLedger: oldest,
      latestLedger,
      grownLatestLedger: Math.min(latestLedger + growth, LAST_CORPUS_LEDGER),
      extraLedgers,
      firstReaderAtFloor,
      ledgers: byLedger,
    };
  });

/** `value` with weight `valueWeight`, undefined with weight `nilWeight`. */
function sometimes<T>(value: fc.Arbitrary<T>, valueWeight: number, nilWeight: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: value, weight: valueWeight }, { arbitrary: fc.constant(undefined), weight: nilWeight });
}

const storageFilterArb: fc.Arbitrary<StorageFilter> = fc
  .record({
    // Each field constrained about half the time (topic1 a third, a topic count a quarter), so clauses match often.
    contract: sometimes(fc.nat(CONTRACTS.length - 1), 1, 1),
    type: sometimes(fc.constantFrom(0, 1), 1, 1),
    topic0: sometimes(fc.nat(TOPICS.length - 1), 1, 1),
    topic1: sometimes(fc.nat(TOPICS.length - 1), 1, 2),
    count: sometimes(fc.record({ count: fc.integer({ min: 1, max: 3 }), exact: fc.boolean() }), 1, 3),
  })
  .filter((f) => f.contract !== undefined || f.type !== undefined || f.topic0 !== undefined || f.topic1 !== undefined)
  .map(({ contract, type, topic0, topic1, count }) => {
    const topics = [
      topic0 === undefined ? undefined : TOPICS[topic0]!,
      topic1 === undefined ? undefined : TOPICS[topic1]!,
    ];
    while (topics.length > 0 && topics[topics.length - 1] === undefined) topics.pop();
    const filter: StorageFilter = { topics, topicCount: count ?? { count: 0, exact: false } };
    if (contract !== undefined) filter.contractId = CONTRACTS[contract]!;
    if (type !== undefined) filter.eventType = type;
    return filter;
  });

/** [] (match-all) or 1..3 clauses over the corpus vocabulary. */
export const filtersArb: fc.Arbitrary<StorageFilter[]> = fc.oneof(
  fc.constant<StorageFilter[]>([]),
  fc.array(storageFilterArb, { minLength: 1, maxLength: 3 }),
);

/** Scope inputs, resolved against a corpus by scopeFor. */
export interface ScopePick {
  readonly order: 'asc' | 'desc';
  readonly a: number;
  readonly b: number;
  readonly open: boolean;
  readonly filters: StorageFilter[];
}

export const scopePickArb: fc.Arbitrary<ScopePick> = fc.record({
  order: fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
  a: ledgerPickArb,
  b: fc.oneof(ledgerPickArb, fc.integer({ min: LAST_CORPUS_LEDGER, max: LAST_CORPUS_LEDGER + 20_000 })),
  open: fc.boolean(),
  filters: filtersArb,
});

/** A scope from picks: [min(a, b), max(a, b)]; ascending scopes may be open-ended. */
export function scopeFor(pick: ScopePick): QueryScope {
  const minLedger = Math.max(2, Math.min(pick.a, pick.b));
  const maxLedger = Math.max(pick.a, pick.b);
  if (pick.order === 'asc' && pick.open) return { minLedger, order: 'asc', filters: pick.filters };
  return { minLedger, maxLedger, order: pick.order, filters: pick.filters };
}

// ---------------------------------------------------------------------------------------------------------------
// The oracle engine: the window's every ordinal post-filtered in walk order (no index). Generators honour return().

export async function* oracleEngine(
  reader: ChunkReader,
  _plan: unknown,
  postFilter: (payload: Uint8Array) => boolean,
  window: { start: number; end: number },
  options: MatchOptions,
): AsyncGenerator<Match, void, undefined> {
  const events = await reader.fetchRange(window);
  if (options.direction === 'desc') events.reverse();
  for (const event of events) if (postFilter(event.payload)) yield { ordinal: event.ordinal, payload: event.payload };
}

// ---------------------------------------------------------------------------------------------------------------
// The oracle pager.

/** What a request gives: a page, or a MatchError's code (and missingLedger). */
export type Outcome<Page> = { page: Page } | { error: string; missingLedger?: number };

export async function outcomeOf<Page>(run: () => Promise<Page>): Promise<Outcome<Page>> {
  try {
    return { page: await run() };
  } catch (error) {
    if (!(error instanceof MatchError)) throw error;
    return error.missingLedger === undefined
      ? { error: error.code }
      : { error: error.code, missingLedger: error.missingLedger };
  }
}

function compareIds(a: EventPosition, b: EventPosition): number {
  return a.ledger - b.ledger || a.tx - b.tx || a.op - b.op || a.event - b.event;
}

function asPageEvent(e: StoredEvent): PageEvent {
  return { ledger: e.ledger, tx: e.tx, op: e.op, event: e.event, ledgerOrdinal: e.ledgerOrdinal, payload: e.payload };
}

/** Every stored event in [lo, hi] matching `filters`, in walk order. */
export function matchesIn(
  corpus: Corpus,
  filters: readonly StorageFilter[],
  lo: number,
  hi: number,
  descending: boolean,
): StoredEvent[] {
  const out = corpus.stored.filter((e) => e.ledger >= lo && e.ledger <= hi && matchesAnyFilter(filters, e.payload));
  return descending ? out.reverse() : out;
}

/**
 * The page the spec's rules give (§1.5, §4.7). Resume: the position's ledger, else just past the watermark, else
 * the scope's first ledger in walk order. Ascending: past the max → COMPLETE; past the tip → WAITING_FOR_LEDGERS;
 * below the floor → LEDGER_OUT_OF_RANGE; scan [resume, min(max, tip, resume + 9,999)]. Descending: below the min →
 * COMPLETE; min past the tip (or the re-entry ledger past it) → WAITING_FOR_LEDGERS; top = min(resume, tip) below
 * the floor → OLDEST_REACHED; scan [max(min, floor, top - 9,999), top]. The matches after the re-entry event are
 * taken chunk by chunk; a chunk with more than the room left gives the look-ahead (HAS_MORE, watermark the ledger
 * before it), a page full at a chunk's end stops there; otherwise the status is read off the covered ledger.
 */
export function oraclePage(
  corpus: Corpus,
  range: LedgerRange,
  scope: QueryScope,
  resume: V2Resume | undefined,
  limit: number,
): Outcome<EventPage> {
  const descending = scope.order === 'desc';
  const maxLedger = scope.maxLedger;
  const { oldestLedger: floor, latestLedger: tip } = range;
  const mark = resume?.scannedLedger ?? 0;
  const position = resume?.position;
  const anchor = descending ? maxLedger! : scope.minLedger;
  const start = position !== undefined ? position.ledger : mark === 0 ? anchor : descending ? mark - 1 : mark + 1;

  const result = (
    events: PageEvent[],
    status: string,
    watermark: number,
    kept?: CursorPosition,
  ): Outcome<EventPage> => {
    const reported = watermark !== 0 ? watermark : descending ? maxLedger! + 1 : scope.minLedger - 1;
    const page: EventPage = {
      events,
      scanStatus: status as EventPage['scanStatus'],
      scannedLedger: reported,
      oldestLedger: floor,
      latestLedger: tip,
    };
    if (status === ScanStatus.COMPLETE) return { page };
    const cursor: EventCursorV2 = {
      minLedger: scope.minLedger,
      descending,
      filters: scope.filters,
      scannedLedger: watermark,
    };
    if (maxLedger !== undefined) cursor.maxLedger = maxLedger;
    if (kept !== undefined) cursor.position = kept;
    return { page: { ...page, cursor } };
  };
  const unchanged = (status: string): Outcome<EventPage> => result([], status, mark, position);

  let lo: number;
  let hi: number;
  if (!descending) {
    if (maxLedger !== undefined && start > maxLedger) return unchanged(ScanStatus.COMPLETE);
    if (start > tip) return unchanged(ScanStatus.WAITING_FOR_LEDGERS);
    if (start < floor) return { error: 'LEDGER_OUT_OF_RANGE', missingLedger: start };
    lo = start;
    hi = Math.min(maxLedger ?? Number.POSITIVE_INFINITY, tip, start + MAX_SCAN_LEDGERS - 1);
  } else {
    if (start < scope.minLedger) return unchanged(ScanStatus.COMPLETE);
    if (scope.minLedger > tip || (position !== undefined && start > tip))
      return unchanged(ScanStatus.WAITING_FOR_LEDGERS);
    hi = Math.min(start, tip);
    if (hi < floor) return unchanged(ScanStatus.OLDEST_REACHED);
    lo = Math.max(scope.minLedger, floor, hi - MAX_SCAN_LEDGERS + 1);
  }

  let matches = matchesIn(corpus, scope.filters, lo, hi, descending);
  if (position !== undefined) {
    // Past the re-entry event in walk order.
    matches = matches.filter((e) => (descending ? compareIds(e, position) < 0 : compareIds(e, position) > 0));
  }
  const page: PageEvent[] = [];
  let nextUnserved: number | undefined;
  let covered = 0;
  const chunks: number[] = [];
  for (let c = chunkIdOfLedger(lo); c <= chunkIdOfLedger(hi); c++) chunks.push(c);
  if (descending) chunks.reverse();
  for (const c of chunks) {
    if (page.length === limit) break;
    const segLo = Math.max(lo, chunkFirstLedger(c));
    const segHi = Math.min(hi, chunkLastLedger(c));
    const inChunk = matches.filter((e) => e.ledger >= segLo && e.ledger <= segHi);
    const room = limit - page.length;
    if (inChunk.length > room) {
      page.push(...inChunk.slice(0, room).map(asPageEvent));
      nextUnserved = inChunk[room]!.ledger;
      break;
    }
    page.push(...inChunk.map(asPageEvent));
    covered = descending ? segLo : segHi;
  }
  let status: string;
  let watermark: number;
  if (nextUnserved !== undefined) {
    status = ScanStatus.HAS_MORE;
    watermark = descending ? nextUnserved + 1 : nextUnserved - 1;
  } else {
    watermark = covered;
    if (descending) {
      status =
        covered === scope.minLedger
          ? ScanStatus.COMPLETE
          : covered === floor
            ? ScanStatus.OLDEST_REACHED
            : ScanStatus.HAS_MORE;
    } else {
      status =
        covered === maxLedger
          ? ScanStatus.COMPLETE
          : covered === tip
            ? ScanStatus.WAITING_FOR_LEDGERS
            : ScanStatus.HAS_MORE;
    }
  }
  if (descending ? watermark > maxLedger! : watermark < scope.minLedger) watermark = 0;
  const last = page.at(-1);
  const kept =
    last !== undefined && last.ledger === nextUnserved
      ? { ledger: last.ledger, tx: last.tx, op: last.op, event: last.event, ledgerOrdinal: last.ledgerOrdinal }
      : undefined;
  return result(page, status, watermark, kept);
}

/** v1's page (spec §1.2): the first `limit` matches at or after the start and before the end; its cursor. */
export function oracleV1Page(
  corpus: Corpus,
  range: LedgerRange,
  filters: readonly StorageFilter[],
  window: V1ScanWindow,
  limit: number,
): Outcome<V1Page> {
  const { start, endLedgerExclusive: end } = window;
  if (end > start.ledger && start.ledger < range.oldestLedger) {
    return { error: 'LEDGER_OUT_OF_RANGE', missingLedger: start.ledger };
  }
  const events = corpus.stored
    .filter((e) => e.ledger < end && compareIds(e, start) >= 0 && matchesAnyFilter(filters, e.payload))
    .slice(0, limit)
    .map(asPageEvent);
  const filled = events.length === limit;
  const last = events.at(-1);
  const cursor =
    filled && last !== undefined
      ? { ledger: last.ledger, tx: last.tx, op: last.op, event: last.event }
      : { ...MAX_POSITION, ledger: end - 1 };
  return {
    page: { events, filled, cursor, oldestLedger: range.oldestLedger, latestLedger: range.latestLedger },
  };
}
