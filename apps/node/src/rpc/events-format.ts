// Stored event payloads as getEvents / getEventsV2 EventInfo objects (spec §1.3), field order as go-stellar-sdk's
// struct: type, ledger, ledgerClosedAt, contractId, id, operationIndex, transactionIndex, txHash,
// inSuccessfulContractCall (v1 only), topic / topicJson, value / valueJson.
import { formatEventId, viewPayload } from '@strata/events';
import { encodeContractStrkey } from '@strata/ledger-key';
import { xdrToJson } from './xdr-json.js';

const TYPE_NAMES = ['system', 'contract', 'diagnostic'] as const;

/** RFC 3339 UTC with whole seconds, as Go's time.Time.UTC().Format(time.RFC3339). */
export function rfc3339(unixSeconds: number): string {
  return `${new Date(unixSeconds * 1000).toISOString().slice(0, 19)}Z`;
}

const base64 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

/** One EventInfo from a stored payload. `v1` adds inSuccessfulContractCall (deprecated, always true when stored). */
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
    txHash: Buffer.from(view.txHash).toString('hex'),
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
