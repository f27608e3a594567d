// Stellar strkeys (SEP-23): G... accounts, C... contracts, M... muxed accounts, B... claimable balances and L...
// liquidity pools, for JSON output and tests. base32 (RFC 4648, no padding) + CRC16-XModem, written here because
// @stellar/stellar-base is far too heavy to be a runtime dependency of a byte-level package.
import { invalidArgument } from './errors.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** char code -> 5-bit value, or -1 for a character outside the alphabet */
const DECODE_TABLE = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE_TABLE[ALPHABET.charCodeAt(i)] = i;

/** Version bytes: the strkey's first base32 character is determined by them (value >> 3 indexes the alphabet). */
const VERSION = {
  ACCOUNT: 6 << 3, // G
  MUXED_ACCOUNT: 12 << 3, // M
  CONTRACT: 2 << 3, // C
  LIQUIDITY_POOL: 11 << 3, // L
  CLAIMABLE_BALANCE: 1 << 3, // B
} as const;

/** CRC16-XModem (polynomial 0x1021, initial value 0) over `bytes[0, end)`. */
function crc16XModem(bytes: Uint8Array, end: number): number {
  let crc = 0;
  for (let i = 0; i < end; i++) {
    crc ^= bytes[i]! << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >> bits) & 31];
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** Strict decode of exactly `byteLength` bytes; leftover bits must be zero so every strkey has one spelling. */
function base32Decode(text: string, byteLength: number, field: string): Uint8Array {
  if (text.length !== Math.ceil((byteLength * 8) / 5)) {
    invalidArgument(field, `expected ${Math.ceil((byteLength * 8) / 5)} characters, got ${text.length}`);
  }
  const out = new Uint8Array(byteLength);
  let buffer = 0;
  let bits = 0;
  let written = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const value = code < 128 ? DECODE_TABLE[code]! : -1;
    if (value < 0) invalidArgument(field, `invalid base32 character at index ${i}`);
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[written++] = (buffer >> bits) & 0xff;
    }
  }
  if ((buffer & ((1 << bits) - 1)) !== 0) invalidArgument(field, 'non-canonical base32 (non-zero trailing bits)');
  return out;
}

function encodeCheck(version: number, payload: Uint8Array): string {
  const raw = new Uint8Array(payload.length + 3);
  raw[0] = version;
  raw.set(payload, 1);
  const crc = crc16XModem(raw, payload.length + 1);
  raw[payload.length + 1] = crc & 0xff; // the checksum is little-endian
  raw[payload.length + 2] = crc >> 8;
  return base32Encode(raw);
}

function decodeCheck(version: number, text: string, payloadLength: number, field: string): Uint8Array {
  if (typeof text !== 'string') invalidArgument(field, 'a strkey must be a string');
  const raw = base32Decode(text, payloadLength + 3, field);
  if (raw[0] !== version) invalidArgument(field, `wrong version byte ${raw[0]} (expected ${version})`);
  const crc = crc16XModem(raw, payloadLength + 1);
  if (raw[payloadLength + 1] !== (crc & 0xff) || raw[payloadLength + 2] !== crc >> 8) {
    invalidArgument(field, 'checksum mismatch');
  }
  return raw.slice(1, payloadLength + 1);
}

function need32(bytes: Uint8Array, field: string): Uint8Array {
  if (!(bytes instanceof Uint8Array) || bytes.length !== 32) invalidArgument(field, 'expected 32 bytes');
  return bytes;
}

/** `G...` from a 32-byte ed25519 public key. */
export function encodeAccountStrkey(ed25519: Uint8Array): string {
  return encodeCheck(VERSION.ACCOUNT, need32(ed25519, 'accountStrkey'));
}

/** The 32-byte ed25519 key of a `G...` strkey; INVALID_ARGUMENT for anything else (including `M...`). */
export function decodeAccountStrkey(strkey: string): Uint8Array {
  return decodeCheck(VERSION.ACCOUNT, strkey, 32, 'accountStrkey');
}

/** `C...` from a 32-byte contract id. */
export function encodeContractStrkey(contractId: Uint8Array): string {
  return encodeCheck(VERSION.CONTRACT, need32(contractId, 'contractStrkey'));
}

/** The 32-byte contract id of a `C...` strkey. */
export function decodeContractStrkey(strkey: string): Uint8Array {
  return decodeCheck(VERSION.CONTRACT, strkey, 32, 'contractStrkey');
}

/** `M...` from an ed25519 key and a uint64 id. The strkey payload is key then id (big-endian), unlike the XDR. */
export function encodeMuxedStrkey(ed25519: Uint8Array, id: bigint): string {
  need32(ed25519, 'muxedStrkey');
  if (typeof id !== 'bigint' || id < 0n || id > 0xffff_ffff_ffff_ffffn)
    invalidArgument('muxedStrkey', 'id must be a uint64 bigint');
  const payload = new Uint8Array(40);
  payload.set(ed25519, 0);
  for (let i = 0; i < 8; i++) payload[32 + i] = Number((id >> BigInt(56 - 8 * i)) & 0xffn);
  return encodeCheck(VERSION.MUXED_ACCOUNT, payload);
}

/** The ed25519 key and uint64 id of an `M...` strkey. */
export function decodeMuxedStrkey(strkey: string): { ed25519: Uint8Array; id: bigint } {
  const payload = decodeCheck(VERSION.MUXED_ACCOUNT, strkey, 40, 'muxedStrkey');
  let id = 0n;
  for (let i = 32; i < 40; i++) id = (id << 8n) | BigInt(payload[i]!);
  return { ed25519: payload.slice(0, 32), id };
}

/** `B...` from the 32-byte hash of a V0 ClaimableBalanceID (the payload is the 1-byte type 0, then the hash). */
export function encodeClaimableBalanceStrkey(balanceIdV0: Uint8Array): string {
  const payload = new Uint8Array(33);
  payload.set(need32(balanceIdV0, 'claimableBalanceStrkey'), 1);
  return encodeCheck(VERSION.CLAIMABLE_BALANCE, payload);
}

/** The 32-byte V0 hash of a `B...` strkey. */
export function decodeClaimableBalanceStrkey(strkey: string): Uint8Array {
  const payload = decodeCheck(VERSION.CLAIMABLE_BALANCE, strkey, 33, 'claimableBalanceStrkey');
  if (payload[0] !== 0) invalidArgument('claimableBalanceStrkey', `unknown claimable balance id type ${payload[0]}`);
  return payload.slice(1);
}

/** `L...` from a 32-byte liquidity pool id. */
export function encodeLiquidityPoolStrkey(poolId: Uint8Array): string {
  return encodeCheck(VERSION.LIQUIDITY_POOL, need32(poolId, 'liquidityPoolStrkey'));
}

/** The 32-byte pool id of an `L...` strkey. */
export function decodeLiquidityPoolStrkey(strkey: string): Uint8Array {
  return decodeCheck(VERSION.LIQUIDITY_POOL, strkey, 32, 'liquidityPoolStrkey');
}
