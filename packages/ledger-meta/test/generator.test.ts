// The synthetic-network generator against independent checks. Properties:
// 1. Determinism: the same options give identical bytes; another seed gives different bytes.
// 2. Every ledger decodes with @stellar/stellar-base 15, the header chain links (previousLedgerHash = SHA-256 of the
//    previous header) and close times increase.
// 3. The events stellar-base decodes, numbered by the spec §2 rules, equal the events the generator recorded.
// 4. History validity, replaying the decoded changes in apply order into a Map: CREATED only for absent keys,
//    STATE/UPDATED/REMOVED only for present ones, every CONTRACT_DATA/CODE entry has its TTL and every TTL its entry;
//    the net effect per ledger equals the recorded batch; replaying the recorded batches gives no init for present
//    keys and no live/dead for absent keys.
// 5. The fast hand-written entry encoders agree with @strata/ledger-key's validator.
// 6. Options: every numeric option must be an integer in its range (GENERATOR_LIMITS for the counts) and the last
//    ledger must fit a uint32; anything else is INVALID_ARGUMENT naming the option, thrown by generateNetwork itself
//    (before any work, so a huge count cannot abort the process). The top of the range generates without wrapping,
//    and a ledger at maxEventsPerLedger fits a data lake's per-ledger allowance.
import { createHash } from 'node:crypto';
import { xdr } from '@stellar/stellar-base';
import { compareLedgerKeys, ledgerKeyOfEntry, validateLedgerEntry, validateLedgerKey } from '@strata/ledger-key';
import { errorOf, hex } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { MAX_BATCH_BYTES_PER_LEDGER } from '../src/datalake.js';
import {
  GENERATOR_LIMITS,
  type GeneratedLedger,
  type GeneratorOptions,
  generateNetwork,
  resolveGeneratorOptions,
} from '../src/generator.js';
import { LedgerMetaError } from '../src/index.js';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

const OPTIONS: GeneratorOptions = { seed: 'test', ledgers: 60, eventsPerLedger: 60, accounts: 120, contracts: 8 };

function collect(options: GeneratorOptions): GeneratedLedger[] {
  return [...generateNetwork(options)];
}

/** The 19-digit TOID with bigint shifts (SEP-35), written apart from events.ts. */
function oracleId(ledger: number, tx: number, op: number, index: number): string {
  const toid = (BigInt(ledger) << 32n) | (BigInt(tx) << 12n) | BigInt(op);
  return `${toid.toString().padStart(19, '0')}-${index.toString().padStart(10, '0')}`;
}

interface OracleEvent {
  id: string;
  type: string;
  contractId: string | null;
  topics: string[];
  value: string;
  txHash: string;
  successful: boolean;
}

function describeEvent(event: xdr.ContractEvent, id: string, txHash: string, successful: boolean): OracleEvent {
  const body = event.body().v0();
  const contract = event.contractId();
  return {
    id,
    type: event.type().name === 'system' ? 'system' : 'contract',
    contractId: contract === null || contract === undefined ? null : hex(contract as unknown as Uint8Array),
    topics: body.topics().map((topic) => b64(topic.toXDR())),
    value: b64(body.data().toXDR()),
    txHash,
    successful,
  };
}

/** Events of one decoded LedgerCloseMeta v2 in emission order with spec §2 coordinates. */
function oracleEvents(meta: xdr.LedgerCloseMeta): OracleEvent[] {
  const v2 = meta.v2();
  const ledger = v2.ledgerHeader().header().ledgerSeq();
  const before: OracleEvent[] = [];
  const middle: OracleEvent[] = [];
  const after: OracleEvent[] = [];
  v2.txProcessing().forEach((processing, txPosition) => {
    const result = processing.result();
    const txHash = hex(result.transactionHash());
    const successful = result.result().result().switch().name === 'txSuccess';
    const v4 = processing.txApplyProcessing().v4();
    v4.operations().forEach((operation, opIndex) => {
      operation.events().forEach((event, eventIndex) => {
        middle.push(describeEvent(event, oracleId(ledger, txPosition + 1, opIndex, eventIndex), txHash, successful));
      });
    });
    let afterTx = 0;
    for (const transactionEvent of v4.events()) {
      const stage = transactionEvent.stage().value;
      if (stage === 0) {
        before.push(describeEvent(transactionEvent.event(), oracleId(ledger, 0, 0, before.length), txHash, successful));
      } else if (stage === 1) {
        middle.push(
          describeEvent(
            transactionEvent.event(),
            oracleId(ledger, txPosition + 1, 4095, afterTx++),
            txHash,
            successful,
          ),
        );
      } else {
        after.push(
          describeEvent(transactionEvent.event(), oracleId(ledger, 1_048_575, 0, after.length), txHash, successful),
        );
      }
    }
  });
  return [...before, ...middle, ...after];
}

/** Every change of a ledger in apply order: fees, each transaction, refunds, upgrades, then evictions. */
function orderedChanges(meta: xdr.LedgerCloseMeta): Array<{ kind: string; key: Uint8Array; entry: Uint8Array | null }> {
  const v2 = meta.v2();
  const out: Array<{ kind: string; key: Uint8Array; entry: Uint8Array | null }> = [];
  const push = (changes: xdr.LedgerEntryChange[]) => {
    for (const change of changes) {
      const kind = change.switch().name;
      if (kind === 'ledgerEntryRemoved') out.push({ kind, key: change.removed().toXDR(), entry: null });
      else {
        const entry = (change.value() as xdr.LedgerEntry).toXDR();
        out.push({ kind, key: ledgerKeyOfEntry(entry), entry });
      }
    }
  };
  const processing = v2.txProcessing();
  for (const tx of processing) push(tx.feeProcessing());
  for (const tx of processing) {
    const v4 = tx.txApplyProcessing().v4();
    push(v4.txChangesBefore());
    for (const operation of v4.operations()) push(operation.changes());
    push(v4.txChangesAfter());
  }
  for (const tx of processing) push(tx.postTxApplyFeeProcessing());
  for (const upgrade of v2.upgradesProcessing()) push(upgrade.changes());
  for (const key of v2.evictedKeys()) out.push({ kind: 'ledgerEntryRemoved', key: key.toXDR(), entry: null });
  return out;
}

describe('generateNetwork', () => {
  const ledgers = collect(OPTIONS);

  it('is deterministic: same options, same bytes; another seed, other bytes', () => {
    const again = collect(OPTIONS);
    expect(again.map((l) => b64(l.lcm))).toEqual(ledgers.map((l) => b64(l.lcm)));
    const other = collect({ ...OPTIONS, seed: 'other' });
    expect(other.map((l) => b64(l.lcm))).not.toEqual(ledgers.map((l) => b64(l.lcm)));
    // Recording does not change the bytes.
    expect(collect({ ...OPTIONS, record: false }).map((l) => b64(l.lcm))).toEqual(ledgers.map((l) => b64(l.lcm)));
  });

  it('writes ledgers that stellar-base decodes, with a linked header chain and increasing close times', () => {
    let previousHash: string | null = null;
    let previousClose = -1n;
    for (const ledger of ledgers) {
      const meta = xdr.LedgerCloseMeta.fromXDR(Buffer.from(ledger.lcm));
      const entry = meta.v2().ledgerHeader();
      const header = entry.header();
      expect(header.ledgerSeq()).toBe(ledger.sequence);
      expect(header.ledgerVersion()).toBe(23);
      expect(hex(entry.hash())).toBe(hex(createHash('sha256').update(header.toXDR()).digest()));
      if (previousHash !== null) expect(hex(header.previousLedgerHash())).toBe(previousHash);
      const close = BigInt(header.scpValue().closeTime().toString());
      expect(close).toBeGreaterThan(previousClose);
      previousHash = hex(entry.hash());
      previousClose = close;
    }
    expect(ledgers[0]?.sequence).toBe(2);
  });

  it('records exactly the events stellar-base decodes, with spec §2 coordinates and ids', () => {
    let total = 0;
    const stages = new Set<string>();
    const topicCounts = new Set<number>();
    for (const ledger of ledgers) {
      const decoded = oracleEvents(xdr.LedgerCloseMeta.fromXDR(Buffer.from(ledger.lcm)));
      const recorded = ledger.events.map((event) => ({
        id: event.id,
        type: event.type,
        contractId: event.contractId === null ? null : hex(event.contractId),
        topics: event.topics.map(b64),
        value: b64(event.value),
        txHash: hex(event.txHash),
        successful: event.inSuccessfulContractCall,
      }));
      expect(recorded).toEqual(decoded);
      expect(ledger.eventCount).toBe(decoded.length);
      total += decoded.length;
      for (const event of ledger.events) {
        stages.add(event.stage);
        topicCounts.add(event.topics.length);
      }
    }
    // Shape: all four topic counts and the three stages the generator emits occur.
    expect([...topicCounts].sort()).toEqual([1, 2, 3, 4]);
    expect([...stages].sort()).toEqual(['afterAllTxs', 'beforeAllTxs', 'operation']);
    expect(total).toBeGreaterThan(OPTIONS.ledgers * 30);
  });

  it('has a valid history, and its recorded batches equal the net effect of the decoded changes', () => {
    const state = new Map<string, Uint8Array>();
    const batchState = new Set<string>();
    const seenKinds = new Set<string>();
    let evictions = 0;
    for (const ledger of ledgers) {
      const meta = xdr.LedgerCloseMeta.fromXDR(Buffer.from(ledger.lcm));
      evictions += meta.v2().evictedKeys().length;
      const existedAtStart = new Map<string, boolean>();
      for (const change of orderedChanges(meta)) {
        const id = b64(change.key);
        if (!existedAtStart.has(id)) existedAtStart.set(id, state.has(id));
        seenKinds.add(`${change.kind}:${xdr.LedgerKey.fromXDR(Buffer.from(change.key)).switch().name}`);
        if (change.kind === 'ledgerEntryCreated') {
          expect(state.has(id), `CREATED for present key in ledger ${ledger.sequence}`).toBe(false);
        } else {
          expect(state.has(id), `${change.kind} for absent key in ledger ${ledger.sequence}`).toBe(true);
        }
        if (change.entry !== null) validateLedgerEntry(change.entry);
        if (change.kind === 'ledgerEntryRemoved') state.delete(id);
        else if (change.kind !== 'ledgerEntryState') state.set(id, change.entry as Uint8Array);
      }
      // Every Soroban entry has its TTL and every TTL its entry.
      const ttlOwners = new Set<string>();
      for (const [id] of state) {
        const key = xdr.LedgerKey.fromXDR(Buffer.from(id, 'base64'));
        const type = key.switch().name;
        if (type === 'contractData' || type === 'contractCode') {
          const ttlKey = xdr.LedgerKey.ttl(
            new xdr.LedgerKeyTtl({ keyHash: createHash('sha256').update(key.toXDR()).digest() }),
          );
          expect(state.has(b64(ttlKey.toXDR())), `TTL missing in ledger ${ledger.sequence}`).toBe(true);
          ttlOwners.add(b64(ttlKey.toXDR()));
        }
      }
      for (const [id] of state) {
        if (xdr.LedgerKey.fromXDR(Buffer.from(id, 'base64')).switch().name === 'ttl')
          expect(ttlOwners.has(id)).toBe(true);
      }
      // Net effect of the decoded changes = the recorded batch.
      const init: Uint8Array[] = [];
      const live: Uint8Array[] = [];
      const dead: Uint8Array[] = [];
      for (const [id, existed] of existedAtStart) {
        const now = state.get(id);
        if (now !== undefined) (existed ? live : init).push(now);
        else if (existed) dead.push(Buffer.from(id, 'base64'));
      }
      const byEntryKey = (a: Uint8Array, b: Uint8Array) => compareLedgerKeys(ledgerKeyOfEntry(a), ledgerKeyOfEntry(b));
      const batch = ledger.batch;
      expect(batch).not.toBeNull();
      if (batch === null) return;
      expect(batch.init.map(b64)).toEqual(init.sort(byEntryKey).map(b64));
      expect(batch.live.map(b64)).toEqual(live.sort(byEntryKey).map(b64));
      expect(batch.dead.map(b64)).toEqual(dead.sort(compareLedgerKeys).map(b64));
      // Replaying the recorded batches alone is valid too.
      for (const entry of batch.init) {
        const id = b64(ledgerKeyOfEntry(entry));
        expect(batchState.has(id)).toBe(false);
        batchState.add(id);
      }
      for (const entry of batch.live) expect(batchState.has(b64(ledgerKeyOfEntry(entry)))).toBe(true);
      for (const key of batch.dead) {
        validateLedgerKey(key);
        expect(batchState.delete(b64(key))).toBe(true);
      }
    }
    // Coverage of the history's kinds: accounts and trust lines created and updated, Soroban data, code, TTLs,
    // removals, and evictions.
    for (const kind of [
      'ledgerEntryCreated:account',
      'ledgerEntryUpdated:account',
      'ledgerEntryCreated:trustline',
      'ledgerEntryUpdated:trustline',
      'ledgerEntryCreated:contractData',
      'ledgerEntryUpdated:contractData',
      'ledgerEntryCreated:ttl',
      'ledgerEntryUpdated:ttl',
      'ledgerEntryRemoved:contractData',
      'ledgerEntryRemoved:ttl',
    ]) {
      expect(seenKinds.has(kind), kind).toBe(true);
    }
    expect(evictions).toBeGreaterThan(0);
  });

  it('negative control: the history oracle notices an update of an absent key', () => {
    const state = new Map<string, Uint8Array>();
    const meta = xdr.LedgerCloseMeta.fromXDR(Buffer.from((ledgers[1] as GeneratedLedger).lcm));
    // Ledger 3 alone, without ledger 2's root account creation: its first change updates an absent account.
    const first = orderedChanges(meta)[0];
    expect(first?.kind).toBe('ledgerEntryState');
    expect(state.has(b64(first?.key ?? new Uint8Array()))).toBe(false);
  });

  it('scales events with eventsPerLedger and keeps every contract id a SAC of the network', () => {
    const small = collect({ seed: 5, ledgers: 30, eventsPerLedger: 20, accounts: 50, contracts: 4, record: true });
    const counts = small.slice(1).map((l) => l.eventCount);
    const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
    expect(mean).toBeGreaterThan(15);
    expect(mean).toBeLessThan(35);
    const contracts = new Set(small.flatMap((l) => l.events.map((e) => hex(e.contractId ?? new Uint8Array()))));
    expect(contracts.size).toBeLessThanOrEqual(4);
  });
});

describe('generator options', () => {
  const small = { ledgers: 2, eventsPerLedger: 5, accounts: 10, contracts: 2, record: false } as const;

  it('(6) refuses a network whose ledger sequence would wrap past 2^32 - 1, or pass the event-id limit 2^31 - 1', () => {
    const wrap = errorOf(LedgerMetaError, () => generateNetwork({ ...small, startLedger: 4_294_967_295, ledgers: 2 }));
    expect([wrap.code, wrap.field]).toEqual(['INVALID_ARGUMENT', 'startLedger']);
    const pastIds = errorOf(LedgerMetaError, () =>
      generateNetwork({ ...small, startLedger: 2_147_483_647, ledgers: 2 }),
    );
    expect([pastIds.code, pastIds.field]).toEqual(['INVALID_ARGUMENT', 'ledgers']);
    // The last two sequences generate, and stay what they say.
    const top = collect({ ...small, startLedger: 2_147_483_646, ledgers: 2 });
    expect(top.map((ledger) => ledger.sequence)).toEqual([2_147_483_646, 2_147_483_647]);
  });

  it('(6) refuses negative, fractional, non-finite and out-of-range options, naming each', () => {
    const bad: Array<[Partial<Record<keyof GeneratorOptions, unknown>>, string]> = [
      [{ ledgers: 0 }, 'ledgers'],
      [{ ledgers: -1 }, 'ledgers'],
      [{ ledgers: 1.5 }, 'ledgers'],
      [{ ledgers: Number.NaN }, 'ledgers'],
      [{ ledgers: undefined }, 'ledgers'],
      [{ eventsPerLedger: -1 }, 'eventsPerLedger'],
      [{ eventsPerLedger: 2.5 }, 'eventsPerLedger'],
      [{ eventsPerLedger: 99_999_999_999 }, 'eventsPerLedger'],
      [{ eventsPerLedger: GENERATOR_LIMITS.maxEventsPerLedger + 1 }, 'eventsPerLedger'],
      [{ contracts: 0 }, 'contracts'],
      [{ contracts: 2.5 }, 'contracts'],
      [{ contracts: GENERATOR_LIMITS.maxContracts + 1 }, 'contracts'],
      [{ accounts: -5 }, 'accounts'],
      [{ accounts: 10.5 }, 'accounts'],
      [{ accounts: 99_999_999_999 }, 'accounts'],
      [{ startLedger: 0 }, 'startLedger'],
      [{ startLedger: -2 }, 'startLedger'],
      [{ startLedger: 2 ** 32 }, 'startLedger'],
      [{ startLedger: 2.5 }, 'startLedger'],
      [{ protocolVersion: 22 }, 'protocolVersion'],
      [{ protocolVersion: 23.5 }, 'protocolVersion'],
      [{ seed: Number.NaN }, 'seed'],
      [{ seed: {} }, 'seed'],
      [{ record: 'yes' }, 'record'],
      [{ networkPassphrase: 7 }, 'networkPassphrase'],
    ];
    for (const [override, field] of bad) {
      const options = { ...small, ...override } as GeneratorOptions;
      // Refused by the call itself, not when the first ledger is asked for.
      const error = errorOf(LedgerMetaError, () => generateNetwork(options));
      expect([error.code, error.field], JSON.stringify(override)).toEqual(['INVALID_ARGUMENT', field]);
      expect(errorOf(LedgerMetaError, () => resolveGeneratorOptions(options)).field).toBe(field);
    }
    expect(errorOf(LedgerMetaError, () => generateNetwork(undefined as unknown as GeneratorOptions)).code).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('(6) keeps a ledger at maxEventsPerLedger within a data lake batch allowance', () => {
    const largest = collect({
      seed: 'limits',
      ledgers: 2,
      eventsPerLedger: GENERATOR_LIMITS.maxEventsPerLedger,
      accounts: 1000,
      contracts: 50,
      record: false,
    });
    const last = largest[1] as GeneratedLedger;
    expect(last.eventCount).toBeGreaterThan(GENERATOR_LIMITS.maxEventsPerLedger / 2);
    expect(last.lcm.length).toBeLessThan(MAX_BATCH_BYTES_PER_LEDGER);
  });
});
