// The engine suite's corpora: the spec §6 vocabulary (4 contracts 0xC0..0xC3, 5 symbol topics, 3 types, the data
// value Symbol("data")) and one chunk's events built from it as an @strata/test-contracts ChunkInput, split into
// ledgers of a few hundred events. Every ordinal gets its own payload (its ledger and event index in the header),
// so an engine that pairs an ordinal with a neighbour's payload is caught; the contract event of each payload is
// one of a few templates, which lets the oracle run the post-filter once per template (the post-filter reads only
// the contract event, never the header). A large corpus may share one payload per template instead (CorpusLayout).
import { type ContractEventType, chunkFirstLedger, encodeContractEvent, encodePayload } from '@strata/events';
import { type ChunkInput, InMemoryChunkReader } from '@strata/test-contracts';

/** Raw XDR of Symbol(name): SCV_SYMBOL (15), length, bytes padded to 4. */
export function symbolXdr(name: string): Uint8Array {
  const bytes = Buffer.alloc(8 + Math.ceil(name.length / 4) * 4);
  bytes.writeUInt32BE(15, 0);
  bytes.writeUInt32BE(name.length, 4);
  bytes.write(name, 8);
  return new Uint8Array(bytes);
}

/** Contract ids 0xC0..0xC3 in byte 0 (the rest 0x07, as @strata/events' test arbitraries). */
export const CONTRACTS: readonly Uint8Array[] = [0xc0, 0xc1, 0xc2, 0xc3].map((b) => {
  const id = new Uint8Array(32).fill(7);
  id[0] = b;
  return id;
});
export const SYMBOL_NAMES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'] as const;
export const SYMBOLS: readonly Uint8Array[] = SYMBOL_NAMES.map(symbolXdr);
export const DATA_VALUE = symbolXdr('data');
export const SYSTEM: ContractEventType = 0;
export const CONTRACT: ContractEventType = 1;
export const DIAGNOSTIC: ContractEventType = 2;

/** One distinct contract event: indexes into the vocabulary. */
export interface EventTemplate {
  /** Index into CONTRACTS, or undefined for an event without a contract id. */
  readonly contract: number | undefined;
  readonly type: ContractEventType;
  /** Indexes into SYMBOLS, one per topic (0..6 topics; more than 4 lands in the overflow bucket). */
  readonly topics: readonly number[];
}

/** A chunk of events: every ordinal's template and payload, and the ChunkInput they were cut into. */
export interface Corpus {
  readonly templates: readonly EventTemplate[];
  /** templateOf[ordinal] indexes `templates`. */
  readonly templateOf: Uint16Array;
  readonly payloads: readonly Uint8Array[];
  readonly input: ChunkInput;
  readonly eventCount: number;
}

/** The chunk every corpus lives in, and its first ledger. */
export const CORPUS_CHUNK = 42;
const CORPUS_START_LEDGER = chunkFirstLedger(CORPUS_CHUNK) + 17;

function contractEventOf(template: EventTemplate): Uint8Array {
  const parts = {
    type: template.type,
    topics: template.topics.map((t) => SYMBOLS[t]!),
    value: DATA_VALUE,
  };
  return encodeContractEvent(
    template.contract === undefined ? parts : { ...parts, contractId: CONTRACTS[template.contract]! },
  );
}

const HEADER = {
  txHash: new Uint8Array(32),
  ledger: CORPUS_START_LEDGER,
  txIndex: 1,
  opIndex: 0,
  ledgerClosedAt: 1_700_000_000,
  eventIndex: 0,
};

export interface CorpusLayout {
  /** Events per ledger (the last ledger holds the rest); default 300. */
  readonly eventsPerLedger?: number;
  /** Every this-many-th ledger is an empty one, as real chunks have; default 7. */
  readonly emptyLedgerEvery?: number;
  /**
   * False: the ordinals of a template share one payload (a large corpus for tests that check ordinals and slabs,
   * where payload identity is covered elsewhere). Default true.
   */
  readonly distinctPayloads?: boolean;
}

/** Builds a corpus: ordinal o carries templates[templateOf[o]], cut into ledgers as `layout` says. */
export function buildCorpus(
  templates: readonly EventTemplate[],
  templateOf: Uint16Array,
  layout: CorpusLayout = {},
): Corpus {
  const { eventsPerLedger = 300, emptyLedgerEvery = 7, distinctPayloads = true } = layout;
  const events = templates.map(contractEventOf);
  const shared = distinctPayloads ? [] : events.map((contractEvent) => encodePayload({ ...HEADER, contractEvent }));
  const payloads: Uint8Array[] = new Array(templateOf.length);
  const ledgers: Uint8Array[][] = [];
  const txHash = new Uint8Array(32);
  let ordinal = 0;
  while (ordinal < templateOf.length) {
    if (ledgers.length % emptyLedgerEvery === emptyLedgerEvery - 1) ledgers.push([]);
    const ledger = CORPUS_START_LEDGER + ledgers.length;
    const count = Math.min(eventsPerLedger, templateOf.length - ordinal);
    const payloadsOfLedger: Uint8Array[] = [];
    for (let eventIndex = 0; eventIndex < count; eventIndex++, ordinal++) {
      txHash[0] = eventIndex & 0xff;
      const template = templateOf[ordinal]!;
      const payload = distinctPayloads
        ? encodePayload({
            txHash,
            ledger,
            txIndex: 1 + (eventIndex >> 3),
            opIndex: eventIndex & 7,
            ledgerClosedAt: 1_700_000_000 + ledger * 5,
            eventIndex,
            contractEvent: events[template]!,
          })
        : shared[template]!;
      payloads[ordinal] = payload;
      payloadsOfLedger.push(payload);
    }
    ledgers.push(payloadsOfLedger);
  }
  return {
    templates,
    templateOf,
    payloads,
    input: { startLedger: CORPUS_START_LEDGER, ledgers },
    eventCount: templateOf.length,
  };
}

/** The reference reader over a corpus (whole-term frozen bitmaps, exact inside any window). */
export function readerOf(corpus: Corpus): InMemoryChunkReader {
  return new InMemoryChunkReader(corpus.input);
}
