// Stored event payloads as getEvents / getEventsV2 EventInfo objects (spec §1.3), field order as go-stellar-sdk's
// struct: type, ledger, ledgerClosedAt, contractId, id, operationIndex, transactionIndex, txHash,
// inSuccessfulContractCall (v1 only), topic / topicJson, value / valueJson.
//
// A page holds up to 10,000 events of few ledgers and few contracts (a filter names at most a handful), so an
// EventFormatter formats what events share once: per ledger the close time and the TOID base (LedgerToidFormatter:
// no bigint per event), per contract id its strkey (base32 with a CRC: microseconds each), from small caches that
// live for one page.
import { formatEventId, LedgerToidFormatter, viewPayload } from '@strata/events';
import { encodeContractStrkey } from '@strata/ledger-key';
import { xdrToJson } from './xdr-json.js';

const TYPE_NAMES = ['system', 'contract', 'diagnostic'] as const;
/** Most distinct contract ids one formatter keeps strkeys of (a page of another shape just formats the rest). */
const MAX_CACHED_CONTRACTS = 1024;

/** RFC 3339 UTC with whole seconds, as Go's time.Time.UTC().Format(time.RFC3339). */
export function rfc3339(unixSeconds: number): string {
  return `${new Date(unixSeconds * 1000).toISOString().slice(0, 19)}Z`;
}

const base64 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

const hex = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

/** Formats the events of one page (see the header); `v1` adds inSuccessfulContractCall (always true when stored). */
export class EventFormatter {
  #ledger = -1;
  #closedAtSeconds = Number.NaN;
  #closedAt = '';
  #toid: LedgerToidFormatter | undefined;
  readonly #strkeys = new Map<string, string>();

  constructor(
    private readonly xdrFormat: 'base64' | 'json',
    private readonly v1: boolean,
  ) {}

  format(payload: Uint8Array): Record<string, unknown> {
    const view = viewPayload(payload);
    const ledger = view.ledger;
    if (ledger !== this.#ledger) {
      this.#ledger = ledger;
      this.#toid = new LedgerToidFormatter(ledger);
    }
    if (view.ledgerClosedAt !== this.#closedAtSeconds) {
      this.#closedAtSeconds = view.ledgerClosedAt;
      this.#closedAt = rfc3339(view.ledgerClosedAt);
    }
    const info: Record<string, unknown> = {
      type: TYPE_NAMES[view.type],
      ledger,
      ledgerClosedAt: this.#closedAt,
      contractId: this.#strkey(view.contractId),
      // `!`: set above for this ledger
      id: `${this.#toid!.format(view.txIndex, view.opIndex)}-${String(view.eventIndex).padStart(10, '0')}`,
      operationIndex: view.opIndex,
      transactionIndex: view.txIndex,
      txHash: hex(view.txHash),
    };
    if (this.v1) info.inSuccessfulContractCall = true;
    const topics = new Array<unknown>(view.topicCount);
    if (this.xdrFormat === 'json') {
      for (let i = 0; i < topics.length; i++) topics[i] = xdrToJson('ScVal', view.topic(i)!);
      info.topicJson = topics;
      info.valueJson = xdrToJson('ScVal', view.value());
    } else {
      for (let i = 0; i < topics.length; i++) topics[i] = base64(view.topic(i)!);
      info.topic = topics;
      info.value = base64(view.value());
    }
    return info;
  }

  #strkey(contractId: Uint8Array | undefined): string {
    if (contractId === undefined) return '';
    const key = Buffer.from(contractId.buffer, contractId.byteOffset, contractId.byteLength).toString('latin1');
    let strkey = this.#strkeys.get(key);
    if (strkey === undefined) {
      strkey = encodeContractStrkey(contractId);
      if (this.#strkeys.size < MAX_CACHED_CONTRACTS) this.#strkeys.set(key, strkey);
    }
    return strkey;
  }
}

/**
 * One EventInfo from a stored payload, formatted on its own (the reference EventFormatter is tested against:
 * formatEventId, encodeContractStrkey and rfc3339 per event).
 */
export function eventInfo(payload: Uint8Array, xdrFormat: 'base64' | 'json', v1: boolean): Record<string, unknown> {
  const view = viewPayload(payload);
  const contractId = view.contractId;
  const topics: Uint8Array[] = [];
  for (let i = 0; i < view.topicCount; i++) topics.push(view.topic(i)!);
  const info: Record<string, unknown> = {
    type: TYPE_NAMES[view.type],
    ledger: view.ledger,
    ledgerClosedAt: rfc3339(view.ledgerClosedAt),
    contractId: contractId === undefined ? '' : encodeContractStrkey(contractId),
    id: formatEventId({ ledger: view.ledger, tx: view.txIndex, op: view.opIndex, event: view.eventIndex }),
    operationIndex: view.opIndex,
    transactionIndex: view.txIndex,
    txHash: hex(view.txHash),
  };
  if (v1) info.inSuccessfulContractCall = true;
  if (xdrFormat === 'json') {
    info.topicJson = topics.map((t) => xdrToJson('ScVal', t));
    info.valueJson = xdrToJson('ScVal', view.value());
  } else {
    info.topic = topics.map(base64);
    info.value = base64(view.value());
  }
  return info;
}

export { base64 };
