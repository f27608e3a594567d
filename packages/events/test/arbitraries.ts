// fast-check arbitraries for events and filters, and the oracle that decodes them independently of this package
// (@stellar/stellar-base) and derives their index terms (@node-rs/xxhash), shared by the property tests and the bench.
import { xxh3 } from '@node-rs/xxhash';
import { xdr } from '@stellar/stellar-base';
import fc from 'fast-check';
import {
  type ContractEventType,
  type EventPayload,
  encodeContractEvent,
  encodePayload,
  PAYLOAD_HEADER_LENGTH,
  type StorageFilter,
} from '../src/index.js';

/** A small vocabulary so random filters hit random events often: symbols, u32s, an address, a string. */
export const TOPIC_VOCABULARY: readonly Uint8Array[] = [
  ...['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'transfer'].map((s) => xdr.ScVal.scvSymbol(s).toXDR()),
  ...[0, 1, 7].map((n) => xdr.ScVal.scvU32(n).toXDR()),
  xdr.ScVal.scvString('native').toXDR(),
  xdr.ScVal.scvBytes(Buffer.alloc(5, 3)).toXDR(),
  xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('v'), xdr.ScVal.scvI64(xdr.Int64.fromString('-5'))]).toXDR(),
].map((b) => new Uint8Array(b));

export const CONTRACTS: readonly Uint8Array[] = [0xc0, 0xc1, 0xc2, 0xc3].map((b) => {
  const id = new Uint8Array(32).fill(7);
  id[0] = b;
  return id;
});

export const topicArb = fc.constantFrom(...TOPIC_VOCABULARY);

/** A random storage clause over the vocabulary: contract, type, up to 4 topic positions, exact or at-least count. */
export const storageFilterArb: fc.Arbitrary<StorageFilter> = fc
  .record({
    contract: fc.option(fc.constantFrom(...CONTRACTS), { nil: undefined }),
    type: fc.option(fc.constantFrom(0, 1, 2), { nil: undefined }),
    topics: fc.array(fc.option(topicArb, { nil: undefined }), { maxLength: 4 }),
    count: fc.integer({ min: 0, max: 4 }),
    exact: fc.boolean(),
  })
  .map(({ contract, type, topics, count, exact }) => {
    const f: StorageFilter = { topics, topicCount: { count, exact } };
    if (contract !== undefined) f.contractId = contract;
    if (type !== undefined) f.eventType = type;
    return f;
  });

export interface EventParts {
  contractId?: Uint8Array;
  type: ContractEventType;
  topics: Uint8Array[];
  value: Uint8Array;
}

export const eventPartsArb: fc.Arbitrary<EventParts> = fc
  .record({
    contract: fc.option(fc.constantFrom(...CONTRACTS), { nil: undefined }),
    type: fc.constantFrom<ContractEventType>(0, 1, 2),
    topics: fc.array(topicArb, { maxLength: 6 }),
    value: topicArb,
  })
  .map(({ contract, type, topics, value }) =>
    contract === undefined ? { type, topics, value } : { contractId: contract, type, topics, value },
  );

export const payloadFieldsArb = fc.record({
  txHash: fc.uint8Array({ minLength: 32, maxLength: 32 }),
  ledger: fc.integer({ min: 0, max: 0xffffffff }),
  txIndex: fc.integer({ min: 0, max: 0xffffffff }),
  opIndex: fc.integer({ min: 0, max: 0xffffffff }),
  ledgerClosedAt: fc.maxSafeInteger(),
  eventIndex: fc.integer({ min: 0, max: 0xffffffff }),
});

export const payloadArb: fc.Arbitrary<{
  fields: Omit<EventPayload, 'contractEvent'>;
  parts: EventParts;
  bytes: Uint8Array;
}> = fc.record({ fields: payloadFieldsArb, parts: eventPartsArb }).map(({ fields, parts }) => ({
  fields,
  parts,
  bytes: encodePayload({ ...fields, contractEvent: encodeContractEvent(parts) }),
}));

/** The oracle's decoded form: everything read by stellar-base, bytes re-serialized by stellar-base. */
export interface OracleEvent {
  type: number;
  contractId: Uint8Array | undefined;
  topics: Uint8Array[];
  value: Uint8Array;
}

export function oracleDecode(contractEventXdr: Uint8Array): OracleEvent {
  const ev = xdr.ContractEvent.fromXDR(Buffer.from(contractEventXdr));
  const v0 = ev.body().v0();
  const cid = ev.contractId();
  return {
    type: ev.type().value,
    contractId: cid === null || cid === undefined ? undefined : new Uint8Array(cid as unknown as Buffer),
    topics: v0.topics().map((t) => new Uint8Array(t.toXDR())),
    value: new Uint8Array(v0.data().toXDR()),
  };
}

/** stellar-base's decode of a ContractEvent, re-encoded by stellar-base (throws when stellar-base cannot decode it). */
export function oracleReencode(contractEventXdr: Uint8Array): Uint8Array {
  return new Uint8Array(xdr.ContractEvent.fromXDR(Buffer.from(contractEventXdr)).toXDR());
}

/** The oracle's own ContractEvent encoding (stellar-base builds it), to cross-check encodeContractEvent. */
export function oracleEncode(parts: EventParts): Uint8Array {
  const ev = new xdr.ContractEvent({
    ext: new xdr.ExtensionPoint(0),
    contractId: (parts.contractId === undefined ? null : Buffer.from(parts.contractId)) as never,
    type: [xdr.ContractEventType.system(), xdr.ContractEventType.contract(), xdr.ContractEventType.diagnostic()][
      parts.type
    ]!,
    body: new xdr.ContractEventBody(
      0,
      new xdr.ContractEventV0({
        topics: parts.topics.map((t) => xdr.ScVal.fromXDR(Buffer.from(t))),
        data: xdr.ScVal.fromXDR(Buffer.from(parts.value)),
      }),
    ),
  });
  return new Uint8Array(ev.toXDR());
}

/** Oracle term key: the library's XXH3-128 of [field] ++ value, serialized byte by byte little-endian. */
export function oracleKey(field: number, value: Uint8Array): string {
  let h = xxh3.xxh128(Buffer.concat([Buffer.from([field]), Buffer.from(value)]));
  const out: number[] = [];
  for (let i = 0; i < 16; i++) {
    out.push(Number(h & 0xffn));
    h >>= 8n;
  }
  return Buffer.from(out).toString('hex');
}

/** The oracle's index terms of a decoded event: type, contract, topic-count bucket, topics 0..3. */
export function oracleTerms(ev: OracleEvent): string[] {
  const keys = [oracleKey(5, Uint8Array.of(0, 0, 0, ev.type))];
  if (ev.contractId !== undefined) keys.push(oracleKey(0, ev.contractId));
  keys.push(oracleKey(6, Uint8Array.of(Math.min(ev.topics.length, 5))));
  for (const [i, t] of ev.topics.slice(0, 4).entries()) keys.push(oracleKey(1 + i, t));
  return keys;
}

/**
 * The term benchmarks' baseline work for one stored payload: decode its ContractEvent with stellar-base, then hash
 * each term's bytes (field byte + value) with napi XXH3-128, as deriveTerms does from bytes in place.
 */
export function decodeAndHash(payload: Uint8Array): void {
  const ev = oracleDecode(payload.subarray(PAYLOAD_HEADER_LENGTH));
  hashOracleTerm(5, Uint8Array.of(0, 0, 0, ev.type));
  if (ev.contractId) hashOracleTerm(0, ev.contractId);
  hashOracleTerm(6, Uint8Array.of(Math.min(ev.topics.length, 5)));
  for (let i = 0; i < Math.min(ev.topics.length, 4); i++) hashOracleTerm(1 + i, ev.topics[i]!);
}

function hashOracleTerm(field: number, value: Uint8Array): bigint {
  const buf = new Uint8Array(value.length + 1);
  buf[0] = field;
  buf.set(value, 1);
  return xxh3.xxh128(buf);
}
