// Contract events as the generator emits them: each one written into the meta as a ContractEvent (its head encoded
// once per contract and kind of event) and, when the network is recorded, kept as a GeneratedEvent with the spec
// §2 coordinates and the id @strata/events formats, in emission order.
import { formatEventId } from '@strata/events';
import type { ContractEventRecord, ContractEventStage } from '../events.js';
import { contractEventHead, scvI128, writeContractEventRest, XDR } from '../lcm-writer.js';
import type { TxPlan } from './plan.js';
import type { ContractInfo } from './universe.js';
import type { XdrWriter } from './xdr-writer.js';

/**
 * One generated contract event: what extraction yields for it (ContractEventRecord) less the raw XDR. The generator
 * writes only system and contract events (never diagnostic ones).
 */
export type GeneratedEvent = Omit<ContractEventRecord, 'xdr' | 'type'> & { type: 'system' | 'contract' };

/** Events with fewer topics than this get a cached head (write); CAP-67 events have at most four. */
const MAX_HEAD_TOPICS = 8;

/** Writes and records the events of each ledger. Not safe for concurrent use. */
export class EventWriter {
  /**
   * Event heads (contractEventHead) by first topic, one of a few symbol constants; each an array indexed by contract,
   * topic count (below MAX_HEAD_TOPICS) and type (see write).
   */
  private readonly eventHeads = new Map<Uint8Array | null, Array<Uint8Array | undefined>>();
  // The current ledger's recorded events by stage, which is emission order: beforeAllTxs, operations, afterAllTxs.
  private beforeEvents: GeneratedEvent[] = [];
  private opEvents: GeneratedEvent[] = [];
  private afterEvents: GeneratedEvent[] = [];
  /** Events of the current ledger, recorded or not. */
  eventCount = 0;
  /** AfterAllTxs events of the current ledger so far: the next one's eventIndex. */
  afterAllTxsCount = 0;

  constructor(
    private readonly contractCount: number,
    private readonly record: boolean,
  ) {}

  /** Forgets the previous ledger's events. */
  startLedger(): void {
    this.beforeEvents = [];
    this.opEvents = [];
    this.afterEvents = [];
    this.eventCount = 0;
    this.afterAllTxsCount = 0;
  }

  /** The current ledger's recorded events in emission order (empty unless recording). */
  ledgerEvents(): GeneratedEvent[] {
    return this.record ? [...this.beforeEvents, ...this.opEvents, ...this.afterEvents] : [];
  }

  /**
   * A ContractEvent of `contract`: its head, encoded once per contract and kind of event, then the other topics and
   * the data (two writes fewer per event than the fixed prefix, the count and the symbol one by one).
   */
  write(
    w: XdrWriter,
    type: number,
    contract: ContractInfo,
    topics: readonly Uint8Array[],
    value: Uint8Array | number,
  ): void {
    const first = topics.length === 0 ? null : (topics[0] as Uint8Array);
    let heads = this.eventHeads.get(first);
    if (heads === undefined) {
      // Filled with undefined to its full size up front, so that V8 keeps it a plain array however it is filled.
      heads = new Array<Uint8Array | undefined>(this.contractCount * MAX_HEAD_TOPICS * 2).fill(undefined);
      this.eventHeads.set(first, heads);
    }
    const slot =
      (contract.index * MAX_HEAD_TOPICS + topics.length) * 2 + (type === XDR.CONTRACT_EVENT_CONTRACT ? 0 : 1);
    let head = topics.length < MAX_HEAD_TOPICS ? heads[slot] : undefined;
    if (head === undefined) {
      head = contractEventHead(type, contract.contractId, topics.length, first);
      if (topics.length < MAX_HEAD_TOPICS) heads[slot] = head;
    }
    w.raw(head);
    writeContractEventRest(w, topics, value);
  }

  /** Counts an event of the current ledger and, when recording, keeps it (a number `value` is an SCV_I128 amount). */
  recordEvent(
    stage: ContractEventStage,
    ledger: number,
    tx: number,
    op: number,
    eventIndex: number,
    type: number,
    contract: ContractInfo,
    topics: Uint8Array[],
    value: Uint8Array | number,
    plan: TxPlan,
  ): void {
    this.eventCount++;
    if (!this.record) return;
    const event: GeneratedEvent = {
      id: formatEventId({ ledger, tx, op, event: eventIndex }),
      ledger,
      tx,
      op,
      eventIndex,
      stage,
      type: type === XDR.CONTRACT_EVENT_SYSTEM ? 'system' : 'contract',
      contractId: contract.contractId,
      topics,
      value: typeof value === 'number' ? scvI128(value) : value,
      txHash: plan.hash,
      inSuccessfulContractCall: !plan.failed,
    };
    if (stage === 'beforeAllTxs') this.beforeEvents.push(event);
    else if (stage === 'afterAllTxs') this.afterEvents.push(event);
    else this.opEvents.push(event);
  }
}
