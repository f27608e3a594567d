// The independent oracle of the integration tests: each ledger of a stream decoded with @stellar/stellar-base (not
// with @strata/ledger-meta, which the node itself uses): its header hash, previous-ledger hash, bucketListHash and
// the XDR of its contract events in emission order.
import { readFileSync } from 'node:fs';
import { xdr } from '@stellar/stellar-base';

export interface OracleLedger {
  readonly ledger: number;
  readonly hash: string;
  readonly previousHash: string;
  readonly bucketListHash: string;
  /** ContractEvent XDR (hex) of every contract event, in emission order. */
  readonly events: string[];
}

/** The records of a stellar-core record-marked stream (4-byte big-endian mark with the top bit, then the XDR). */
export function streamRecords(path: string): Buffer[] {
  const bytes = readFileSync(path);
  const records: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at) & 0x7fff_ffff;
    records.push(bytes.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return records;
}

export function oracleLedgers(path: string): OracleLedger[] {
  return streamRecords(path).map((record) => oracleLedger(record));
}

function oracleLedger(record: Buffer): OracleLedger {
  const meta = xdr.LedgerCloseMeta.fromXDR(record);
  const arm = meta.switch();
  // biome-ignore lint/suspicious/noExplicitAny: the three LedgerCloseMeta arms share these accessors
  const body: any = arm === 0 ? meta.v0() : arm === 1 ? meta.v1() : meta.v2();
  const entry = body.ledgerHeader() as xdr.LedgerHeaderHistoryEntry;
  const header = entry.header();
  const events: string[] = [];
  if (arm !== 0) {
    for (const processing of body.txProcessing() as xdr.TransactionResultMeta[]) {
      const txMeta = processing.txApplyProcessing();
      if (txMeta.switch() === 3) {
        for (const event of txMeta.v3().sorobanMeta()?.events() ?? []) events.push(event.toXDR('hex'));
      } else if (txMeta.switch() === 4) {
        const v4 = txMeta.v4();
        for (const operation of v4.operations())
          for (const event of operation.events()) events.push(event.toXDR('hex'));
        for (const event of v4.events()) events.push(event.event().toXDR('hex'));
      }
    }
  }
  return {
    ledger: header.ledgerSeq(),
    hash: entry.hash().toString('hex'),
    previousHash: header.previousLedgerHash().toString('hex'),
    bucketListHash: header.bucketListHash().toString('hex'),
    events,
  };
}
