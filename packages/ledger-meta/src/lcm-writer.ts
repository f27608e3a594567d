// XDR writers for the LedgerCloseMeta v2 structures the generator emits, straight into an XdrWriter (no object model).
// Layouts follow stellar-xdr as mirrored in rs-stellar-xdr src/generated/*.rs (LedgerCloseMetaV2, LedgerHeader,
// TransactionResultMetaV1, TransactionMetaV4, OperationMetaV2, TransactionEvent, ContractEvent, TransactionEnvelope).
import { createHash, hash } from 'node:crypto';
import type { XdrWriter } from './generator/xdr-writer.js';

/** XDR discriminants used by the writers (values from Stellar-ledger.x / Stellar-transaction.x / Stellar-contract.x). */
export const XDR = {
  LEDGER_CLOSE_META_V2: 2,
  ENVELOPE_TYPE_TX: 2,
  /** HashIDPreimage arm of a contract id (sha256(networkID, ContractIDPreimage)). */
  ENVELOPE_TYPE_CONTRACT_ID: 8,
  CONTRACT_ID_PREIMAGE_FROM_ASSET: 1,
  GENERALIZED_TX_SET_V1: 1,
  TXSET_COMP_TXS_MAYBE_DISCOUNTED_FEE: 0,
  STELLAR_VALUE_BASIC: 0,
  CONTRACT_EVENT_SYSTEM: 0,
  CONTRACT_EVENT_CONTRACT: 1,
  STAGE_BEFORE_ALL_TXS: 0,
  STAGE_AFTER_TX: 1,
  STAGE_AFTER_ALL_TXS: 2,
  CHANGE_CREATED: 0,
  CHANGE_UPDATED: 1,
  CHANGE_REMOVED: 2,
  CHANGE_STATE: 3,
  TX_SUCCESS: 0,
  TX_FAILED: -1,
  OP_INNER: 0,
  OP_CREATE_ACCOUNT: 0,
  OP_PAYMENT: 1,
  OP_CHANGE_TRUST: 6,
  OP_INVOKE_HOST_FUNCTION: 24,
  OP_EXTEND_FOOTPRINT_TTL: 25,
  PAYMENT_UNDERFUNDED: -2,
  HOST_FUNCTION_INVOKE_CONTRACT: 0,
  HOST_FUNCTION_UPLOAD_WASM: 2,
  LEDGER_UPGRADE_VERSION: 1,
  SCV_VOID: 1,
  SCV_U32: 3,
  SCV_U64: 5,
  SCV_I128: 10,
  SCV_STRING: 14,
  SCV_SYMBOL: 15,
  SCV_VEC: 16,
  SCV_MAP: 17,
  SCV_ADDRESS: 18,
  SCV_LEDGER_KEY_NONCE: 21,
  SC_ADDRESS_ACCOUNT: 0,
  SC_ADDRESS_CONTRACT: 1,
  ASSET_NATIVE: 0,
  ASSET_ALPHANUM4: 1,
} as const;

/** SHA-256 of the parts, as a Buffer (the class it always had: hashes reach GeneratedLedger and recorded events). */
export function sha256(...parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) {
    // Every byte is overwritten, so the pooled, not zero-filled allocation is safe.
    const digest = Buffer.allocUnsafe(32);
    sha256Into(parts[0] as Uint8Array, digest, 0);
    return digest;
  }
  const digest = createHash('sha256');
  for (const part of parts) digest.update(part);
  return digest.digest();
}

/**
 * SHA-256 of `data` written into `out[at, at + 32)`. One-shot crypto.hash (Node ≥ 20.12) costs a fraction of a
 * createHash object, and asked for a 'binary' (latin1) string, one char per digest byte, it costs half of asking for
 * a Buffer, which Node 20 builds through a slow path: about 0.9 µs against 2 µs for a transaction-sized input, and
 * the generator hashes every transaction envelope.
 */
export function sha256Into(data: Uint8Array, out: Uint8Array, at: number): void {
  const digest = hash('sha256', data, 'binary');
  for (let i = 0; i < 32; i++) out[at + i] = digest.charCodeAt(i);
}

/** The network id every hash preimage starts with: SHA-256 of the passphrase. */
export function networkIdOf(passphrase: string): Uint8Array {
  return sha256(new TextEncoder().encode(passphrase));
}

/** The fields of a LedgerHeader that vary per ledger; the rest are fixed pubnet-like constants. */
export interface LedgerHeaderFields {
  protocolVersion: number;
  previousLedgerHash: Uint8Array;
  txSetHash: Uint8Array;
  /** Unix seconds. */
  closeTime: number;
  txSetResultHash: Uint8Array;
  bucketListHash: Uint8Array;
  ledgerSeq: number;
  feePool: number;
  idPool: number;
}

const ZERO_HASH = new Uint8Array(32);

/** Writes a LedgerHeader (ext v0, no upgrades in the StellarValue, empty skip list). */
export function writeLedgerHeader(w: XdrWriter, header: LedgerHeaderFields): void {
  w.u32(header.protocolVersion);
  w.raw(header.previousLedgerHash);
  // StellarValue { txSetHash, closeTime, upgrades<6>, ext BASIC }
  w.raw(header.txSetHash);
  w.i64(header.closeTime);
  w.u32(0);
  w.u32(XDR.STELLAR_VALUE_BASIC);
  w.raw(header.txSetResultHash);
  w.raw(header.bucketListHash);
  w.u32(header.ledgerSeq);
  w.i64(5_000_000_000_000_000); // totalCoins: a fixed 500 M XLM in stroops, kept inside 2^53
  w.i64(header.feePool);
  w.u32(0); // inflationSeq
  w.i64(header.idPool);
  w.u32(100); // baseFee (stroops)
  w.u32(5_000_000); // baseReserve (stroops)
  w.u32(1000); // maxTxSetSize
  for (let i = 0; i < 4; i++) w.raw(ZERO_HASH); // skipList
  w.u32(0); // ext v0
}

/**
 * A ContractEvent { ext v0, contractID*, type, body v0 { topics<>, data } } is written in two parts: this head (ext
 * v0, contractID*, type, body v0, the topic count and the first topic; `contractId` null writes the absent optional,
 * as some system events have none; `firstTopic` null for an event without topics), which the generator encodes once
 * per contract and kind of event, then writeContractEventRest.
 */
export function contractEventHead(
  type: number,
  contractId: Uint8Array | null,
  topicCount: number,
  firstTopic: Uint8Array | null,
): Uint8Array {
  const prefixBytes = contractId === null ? 16 : 48;
  const head = new Uint8Array(prefixBytes + 4 + (firstTopic === null ? 0 : firstTopic.length));
  const view = new DataView(head.buffer);
  let p = 4; // ext v0
  if (contractId !== null) {
    view.setUint32(p, 1);
    head.set(contractId, p + 4);
    p += 36;
  } else p += 4;
  view.setUint32(p, type);
  // body v0: the 4 bytes after the type stay 0
  view.setUint32(prefixBytes, topicCount);
  if (firstTopic !== null) head.set(firstTopic, prefixBytes + 4);
  return head;
}

/**
 * The rest of a ContractEvent after contractEventHead: the topics after the first (pre-encoded SCVal fragments) and
 * the data. A number `value` is written as SCV_I128 (the amount of every SAC event), which spares the hot path an
 * allocation.
 */
export function writeContractEventRest(w: XdrWriter, topics: readonly Uint8Array[], value: Uint8Array | number): void {
  for (let i = 1; i < topics.length; i++) w.raw(topics[i] as Uint8Array);
  if (typeof value === 'number') {
    w.u32(XDR.SCV_I128);
    w.i128(value);
  } else w.raw(value);
}

/** SCVal fragments built once and reused: symbols, strings, addresses. */
export function scvSymbol(text: string): Uint8Array {
  return scvText(XDR.SCV_SYMBOL, text);
}

export function scvString(text: string): Uint8Array {
  return scvText(XDR.SCV_STRING, text);
}

function scvText(type: number, text: string): Uint8Array {
  const utf8 = new TextEncoder().encode(text);
  const padded = (utf8.length + 3) & ~3;
  const out = new Uint8Array(8 + padded);
  const view = new DataView(out.buffer);
  view.setUint32(0, type);
  view.setUint32(4, utf8.length);
  out.set(utf8, 8);
  return out;
}

/** SCVal address of an account (SCV_ADDRESS, SC_ADDRESS_TYPE_ACCOUNT, PUBLIC_KEY_TYPE_ED25519, key). */
export function scvAccountAddress(ed25519: Uint8Array): Uint8Array {
  // The three discriminants are small non-negative numbers: only the low byte of each big-endian word is set (no
  // DataView per address: the generator makes one per account).
  const out = new Uint8Array(44);
  out[3] = XDR.SCV_ADDRESS;
  out[7] = XDR.SC_ADDRESS_ACCOUNT;
  out.set(ed25519, 12);
  return out;
}

/** SCV_I128 of a number in [-2^53, 2^53] as a fresh 20-byte array. */
export function scvI128(value: number): Uint8Array {
  const out = new Uint8Array(20);
  const view = new DataView(out.buffer);
  view.setUint32(0, XDR.SCV_I128);
  const q = Math.floor(value / 4_294_967_296);
  const r = value - q * 4_294_967_296;
  const negative = value < 0 ? -1 : 0;
  view.setInt32(4, negative);
  view.setInt32(8, negative);
  view.setUint32(12, value < 0 ? 4_294_967_296 + q : q);
  view.setUint32(16, r);
  return out;
}

/** SCV_U32. */
export function scvU32(value: number): Uint8Array {
  const out = new Uint8Array(8);
  const view = new DataView(out.buffer);
  view.setUint32(0, XDR.SCV_U32);
  view.setUint32(4, value);
  return out;
}

/** Concatenates fragments (SCVal vec/map bodies, entry layouts). */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const part of parts) total += part.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A u32 as 4 big-endian bytes (array counts and discriminants inside concatenated fragments). */
export function u32Bytes(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value >>> 0);
  return out;
}
