// The baseline of the extraction benchmarks: decode a LedgerCloseMeta with @stellar/stellar-base and walk the
// objects to the fields extractLedger yields per event (contract id, topics, value, transaction hash).
import { xdr } from '@stellar/stellar-base';

/** The baseline's walk: decode, then per event the same fields the engine yields (contract id, topics, value). */
export function decodeAndWalk(bytes: Uint8Array): number {
  const lcm = xdr.LedgerCloseMeta.fromXDR(Buffer.from(bytes));
  const body = lcm.switch() === 0 ? lcm.v0() : lcm.switch() === 1 ? lcm.v1() : lcm.v2();
  let seen = 0;
  const visit = (event: xdr.ContractEvent) => {
    const v0 = event.body().v0();
    seen += (event.contractId() ? 1 : 0) + v0.topics().length + (v0.data() ? 1 : 0) > 0 ? 1 : 0;
  };
  for (const tx of body.txProcessing() as xdr.TransactionResultMeta[]) {
    tx.result().transactionHash();
    const meta = tx.txApplyProcessing();
    if (meta.switch() === 3) for (const event of meta.v3().sorobanMeta()?.events() ?? []) visit(event);
    if (meta.switch() === 4) {
      for (const op of meta.v4().operations()) for (const event of op.events()) visit(event);
      for (const txEvent of meta.v4().events()) visit(txEvent.event());
    }
  }
  return seen;
}
