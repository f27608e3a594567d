// The independent answer for the fixture tests: decodes a LedgerCloseMeta with @stellar/stellar-base (full object
// tree) and computes the same events and init/live/dead batch as the engine, written separately from it: events
// are numbered with the stellar-rpc rules read straight off the decoded objects, and the batch is folded per key from
// the list of that key's changes (first change → existed before?, last change → present after?).
import { xdr } from '@stellar/stellar-base';
import { compareLedgerKeys } from '@strata/ledger-key';

export interface OracleEvent {
  id: string;
  type: string;
  contractId: string | null;
  topics: string[];
  value: string;
  txHash: string;
  successful: boolean;
}

export interface OracleLedger {
  ledgerSeq: number;
  closeTime: bigint;
  protocolVersion: number;
  ledgerHash: string;
  events: OracleEvent[];
  /** LedgerEntryChanges in the meta (fees, transactions, post-apply fees, upgrades), evictions not counted. */
  changeCount: number;
  init: string[];
  live: string[];
  dead: string[];
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

/** The 19-digit TOID written with plain bigint arithmetic, as SEP-35 defines it. */
function oracleId(ledger: number, tx: number, op: number, index: number): string {
  const toid = (BigInt(ledger) << 32n) | (BigInt(tx) << 12n) | BigInt(op);
  return `${toid.toString().padStart(19, '0')}-${index.toString().padStart(10, '0')}`;
}

function keyOfEntry(entry: xdr.LedgerEntry): xdr.LedgerKey {
  const data = entry.data();
  switch (data.switch().name) {
    case 'account':
      return xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: data.account().accountId() }));
    case 'trustline': {
      const line = data.trustLine();
      return xdr.LedgerKey.trustline(new xdr.LedgerKeyTrustLine({ accountId: line.accountId(), asset: line.asset() }));
    }
    case 'offer': {
      const offer = data.offer();
      return xdr.LedgerKey.offer(new xdr.LedgerKeyOffer({ sellerId: offer.sellerId(), offerId: offer.offerId() }));
    }
    case 'data': {
      const entryData = data.data();
      return xdr.LedgerKey.data(
        new xdr.LedgerKeyData({ accountId: entryData.accountId(), dataName: entryData.dataName() }),
      );
    }
    case 'claimableBalance':
      return xdr.LedgerKey.claimableBalance(
        new xdr.LedgerKeyClaimableBalance({ balanceId: data.claimableBalance().balanceId() }),
      );
    case 'liquidityPool':
      return xdr.LedgerKey.liquidityPool(
        new xdr.LedgerKeyLiquidityPool({ liquidityPoolId: data.liquidityPool().liquidityPoolId() }),
      );
    case 'contractData': {
      const contractData = data.contractData();
      return xdr.LedgerKey.contractData(
        new xdr.LedgerKeyContractData({
          contract: contractData.contract(),
          key: contractData.key(),
          durability: contractData.durability(),
        }),
      );
    }
    case 'contractCode':
      return xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash: data.contractCode().hash() }));
    case 'configSetting':
      return xdr.LedgerKey.configSetting(
        new xdr.LedgerKeyConfigSetting({ configSettingId: data.configSetting().switch() }),
      );
    case 'ttl':
      return xdr.LedgerKey.ttl(new xdr.LedgerKeyTtl({ keyHash: data.ttl().keyHash() }));
    default:
      throw new Error(`oracle: no key for entry type ${data.switch().name}`);
  }
}

interface Change {
  arm: string;
  key: string; // base64 XDR LedgerKey
  entry: string | null; // base64 XDR LedgerEntry
}

function changesOf(list: xdr.LedgerEntryChange[]): Change[] {
  return list.map((change) => {
    const arm = change.switch().name;
    if (arm === 'ledgerEntryRemoved') return { arm, key: b64(change.removed().toXDR()), entry: null };
    const entry: xdr.LedgerEntry =
      arm === 'ledgerEntryCreated'
        ? change.created()
        : arm === 'ledgerEntryUpdated'
          ? change.updated()
          : arm === 'ledgerEntryState'
            ? change.state()
            : change.restored();
    return { arm, key: b64(keyOfEntry(entry).toXDR()), entry: b64(entry.toXDR()) };
  });
}

type Meta = xdr.TransactionMeta;

/** txChangesBefore, every operation's changes, txChangesAfter (TransactionMeta v0..v4). */
function applyChangesOf(meta: Meta): xdr.LedgerEntryChange[] {
  switch (meta.switch()) {
    case 0:
      return meta.operations().flatMap((op) => op.changes());
    case 1:
      return [
        ...meta.v1().txChanges(),
        ...meta
          .v1()
          .operations()
          .flatMap((op) => op.changes()),
      ];
    case 2: {
      const v2 = meta.v2();
      return [...v2.txChangesBefore(), ...v2.operations().flatMap((op) => op.changes()), ...v2.txChangesAfter()];
    }
    case 3: {
      const v3 = meta.v3();
      return [...v3.txChangesBefore(), ...v3.operations().flatMap((op) => op.changes()), ...v3.txChangesAfter()];
    }
    case 4: {
      const v4 = meta.v4();
      return [...v4.txChangesBefore(), ...v4.operations().flatMap((op) => op.changes()), ...v4.txChangesAfter()];
    }
    default:
      throw new Error(`oracle: TransactionMeta v${meta.switch()}`);
  }
}

function oracleEvent(event: xdr.ContractEvent, id: string, txHash: string, successful: boolean): OracleEvent {
  const body = event.body().v0();
  const contractId = event.contractId();
  return {
    id,
    type: event.type().name,
    contractId: contractId === null || contractId === undefined ? null : hex(contractId as unknown as Uint8Array),
    topics: body.topics().map((topic) => b64(topic.toXDR())),
    value: b64(body.data().toXDR()),
    txHash,
    successful,
  };
}

/** Decodes with stellar-base (throws on XDR newer than stellar-base 15) and computes the expected extraction. */
export function oracleLedger(lcmBytes: Uint8Array): OracleLedger {
  const lcm = xdr.LedgerCloseMeta.fromXDR(Buffer.from(lcmBytes));
  const version = lcm.switch();
  const body = version === 0 ? lcm.v0() : version === 1 ? lcm.v1() : lcm.v2();
  const headerEntry = body.ledgerHeader();
  const header = headerEntry.header();
  const ledgerSeq = header.ledgerSeq();

  // All fees first, then each transaction's apply changes, then post-apply fees, upgrades, evictions.
  const ordered: Change[] = [];
  const processing = body.txProcessing() as (xdr.TransactionResultMeta | xdr.TransactionResultMetaV1)[];
  for (const tx of processing) ordered.push(...changesOf(tx.feeProcessing()));
  const before: OracleEvent[] = [];
  const middle: OracleEvent[] = [];
  const after: OracleEvent[] = [];
  processing.forEach((tx, i) => {
    const txIndex = i + 1;
    const meta = tx.txApplyProcessing();
    ordered.push(...changesOf(applyChangesOf(meta)));
    const txHash = hex(tx.result().transactionHash());
    const code = tx.result().result().result().switch().value;
    const successful = code === 0 || code === 1;
    if (meta.switch() === 3) {
      const soroban = meta.v3().sorobanMeta();
      (soroban?.events() ?? []).forEach((event, index) => {
        middle.push(oracleEvent(event, oracleId(ledgerSeq, txIndex, 0, index), txHash, successful));
      });
    } else if (meta.switch() === 4) {
      const v4 = meta.v4();
      v4.operations().forEach((op, opIndex) => {
        op.events().forEach((event, index) => {
          middle.push(oracleEvent(event, oracleId(ledgerSeq, txIndex, opIndex, index), txHash, successful));
        });
      });
      let afterTxIndex = 0;
      for (const txEvent of v4.events()) {
        const stage = txEvent.stage().value;
        if (stage === 0) {
          before.push(oracleEvent(txEvent.event(), oracleId(ledgerSeq, 0, 0, before.length), txHash, successful));
        } else if (stage === 1) {
          middle.push(
            oracleEvent(txEvent.event(), oracleId(ledgerSeq, txIndex, 4095, afterTxIndex++), txHash, successful),
          );
        } else {
          after.push(oracleEvent(txEvent.event(), oracleId(ledgerSeq, 1048575, 0, after.length), txHash, successful));
        }
      }
    }
  });
  if (version === 2) {
    for (const tx of processing as xdr.TransactionResultMetaV1[]) {
      ordered.push(...changesOf(tx.postTxApplyFeeProcessing()));
    }
  }
  for (const upgrade of body.upgradesProcessing()) ordered.push(...changesOf(upgrade.changes()));
  const changeCount = ordered.length;
  if (version >= 1) {
    const withEvictions = body as xdr.LedgerCloseMetaV1 | xdr.LedgerCloseMetaV2;
    for (const key of withEvictions.evictedKeys()) {
      ordered.push({ arm: 'ledgerEntryRemoved', key: b64(key.toXDR()), entry: null });
    }
    // LCM v1's `unused` list held evicted persistent entries in older XDR; their keys are deletions.
    if (version === 1) {
      for (const entry of (body as xdr.LedgerCloseMetaV1).unused()) {
        ordered.push({ arm: 'ledgerEntryRemoved', key: b64(keyOfEntry(entry).toXDR()), entry: null });
      }
    }
  }

  // Per key: the list of its changes in order. Existed before = the first change is not a creation (a first
  // RESTORED counts as existing, the fold's safe default when the live state is unknown);
  // present after = the last change that is not STATE leaves a value (with only STATE, the key was read, never written: nothing).
  // stellar-core's corrections (spec ledger-state-replay.md §3.1-3.2), stated over the decoded values: a RESTORED
  // entry not written in this ledger (older lastModifiedLedgerSeq) is a read; a TTL UPDATED after an UPDATED keeps
  // the larger liveUntilLedgerSeq.
  const perKey = new Map<string, Change[]>();
  const decoded = (change: Change): xdr.LedgerEntry => xdr.LedgerEntry.fromXDR(change.entry ?? '', 'base64');
  for (const original of ordered) {
    let change = original;
    if (change.arm === 'ledgerEntryRestored' && decoded(change).lastModifiedLedgerSeq() !== ledgerSeq) {
      change = { ...change, arm: 'ledgerEntryState' };
    }
    if (change.arm === 'ledgerEntryUpdated' && decoded(change).data().switch().name === 'ttl') {
      const previous = perKey
        .get(change.key)
        ?.filter((c) => c.arm !== 'ledgerEntryState')
        .at(-1);
      const liveUntil = (c: Change): number => decoded(c).data().ttl().liveUntilLedgerSeq();
      if (previous?.arm === 'ledgerEntryUpdated' && liveUntil(previous) > liveUntil(change)) continue;
    }
    const list = perKey.get(change.key);
    if (list === undefined) perKey.set(change.key, [change]);
    else list.push(change);
  }
  const init: string[] = [];
  const live: string[] = [];
  const dead: string[] = [];
  const keys = [...perKey.keys()].sort((a, b) => compareLedgerKeys(Buffer.from(a, 'base64'), Buffer.from(b, 'base64')));
  for (const key of keys) {
    const list = perKey.get(key) ?? [];
    const first = list[0];
    if (first === undefined) continue;
    const existed = first.arm !== 'ledgerEntryCreated';
    const decisive = list.filter((change) => change.arm !== 'ledgerEntryState').at(-1);
    if (decisive === undefined) continue; // read, never written
    const finalEntry = decisive.entry;
    if (finalEntry !== null && existed) live.push(finalEntry);
    else if (finalEntry !== null) init.push(finalEntry);
    else if (existed) dead.push(key);
  }

  const closeTime = BigInt(header.scpValue().closeTime().toString());
  return {
    ledgerSeq,
    closeTime,
    protocolVersion: header.ledgerVersion(),
    ledgerHash: hex(headerEntry.hash()),
    events: [...before, ...middle, ...after],
    changeCount,
    init,
    live,
    dead,
  };
}
