// Pubnet-like ledgers for a whole hot chunk (10,000 ledgers, ~9 M events) without generating 9 M events: @strata/
// ledger-meta's generator makes `templateLedgers` ledgers of SAC events once (transfers, mints, burns and fees with
// CAP-67 topics, Zipf-dominant contracts), and every ledger of the chunk is a template ledger's events re-stamped
// with its own sequence, each account address in their topics made distinct per `ledgersPerAccountEpoch` ledgers (the
// address's last four bytes XOR-ed with the epoch: a valid ed25519 key still). Pubnet's chunks hold ~1.9 M distinct
// terms over 9 M events, most of them addresses in topic2 (spec §3.4); the epochs give a full chunk millions of terms
// instead of the templates' few thousand accounts over and over (epochs of 25 ledgers: ~4.1 M terms, about twice
// pubnet's count, so memory per term reads low: per posting it is the same).
import { chunkFirstLedger, encodePayload, LEDGERS_PER_CHUNK, viewPayload } from '@strata/events';
import { extractLedger, generateNetwork } from '@strata/ledger-meta';

export interface PubnetLikeOptions {
  readonly chunkId: number;
  /** Ledgers of the chunk, from its first one (at most LEDGERS_PER_CHUNK). */
  readonly ledgers: number;
  readonly eventsPerLedger: number;
  readonly templateLedgers: number;
  readonly ledgersPerAccountEpoch: number;
}

/** ScVal discriminants and address types the re-stamping recognises (an account address: 0, then ed25519: 0). */
const SCV_ADDRESS = 18;
const LEDGER_OFFSET = 33;

/** The template ledgers' payloads (each ledger's events in event-id order), generated once. */
export function templatePayloads(options: PubnetLikeOptions): Uint8Array[][] {
  const templates: Uint8Array[][] = [];
  const network = generateNetwork({
    seed: 'hot-store-bench',
    ledgers: options.templateLedgers + 1,
    eventsPerLedger: options.eventsPerLedger,
    contracts: 50,
    accounts: 20_000,
    record: false,
  });
  for (const generated of network) {
    const extract = extractLedger(generated.lcm);
    if (extract.events.length === 0) continue; // the first ledger only creates the root account
    templates.push(
      extract.events.map((event) =>
        encodePayload({
          txHash: event.txHash,
          ledger: event.ledger,
          txIndex: event.tx,
          opIndex: event.op,
          ledgerClosedAt: Number(extract.header.closeTime),
          eventIndex: event.eventIndex,
          contractEvent: event.xdr,
        }),
      ),
    );
    if (templates.length === options.templateLedgers) break;
  }
  return templates;
}

/** The chunk's ledgers in order: sequence and payloads (fresh copies, re-stamped). */
export function* chunkLedgers(
  options: PubnetLikeOptions,
  templates: readonly Uint8Array[][],
): Generator<{ ledger: number; payloads: Uint8Array[] }> {
  const first = chunkFirstLedger(options.chunkId);
  const count = Math.min(options.ledgers, LEDGERS_PER_CHUNK);
  for (let i = 0; i < count; i++) {
    const ledger = first + i;
    const epoch = Math.floor(i / options.ledgersPerAccountEpoch);
    // `!`: templates is not empty
    const template = templates[i % templates.length]!;
    yield { ledger, payloads: template.map((payload) => restamped(payload, ledger, epoch)) };
  }
}

function restamped(template: Uint8Array, ledger: number, epoch: number): Uint8Array {
  const payload = template.slice();
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  view.setUint32(LEDGER_OFFSET, ledger);
  if (epoch === 0) return payload;
  const event = viewPayload(payload);
  for (let t = 0; t < event.topicCount; t++) {
    // `!`: t < topicCount
    const topic = event.topic(t)!;
    const at = topic.byteOffset - payload.byteOffset;
    if (topic.length === 44 && view.getUint32(at) === SCV_ADDRESS && view.getUint32(at + 4) === 0) {
      view.setUint32(at + 40, (view.getUint32(at + 40) ^ epoch) >>> 0);
    }
  }
  return payload;
}
