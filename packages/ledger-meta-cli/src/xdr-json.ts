// strata-meta's `--json` rendering: XDR values decoded by @stellar/stellar-base and written as plain JSON. SCVals
// take stellar-base's native form (scValToNative: symbols and strings as strings, addresses as strkeys, maps as
// objects); other XDR follows its own structure (structs as objects, unions as `{ arm: value }`, or the case name
// when the arm is void, enums by name). Account ids, muxed accounts and SCAddresses are strkeys; 64-bit and larger
// integers are decimal strings; opaque bytes are hex; XDR strings are text (hex when not UTF-8); asset codes are
// text. A value stellar-base cannot decode (XDR newer than it knows) is `{ xdr: <base64>, decodeError: <message> }`.
import { Address, encodeMuxedAccountToAddress, StrKey, scValToNative, xdr } from '@stellar/stellar-base';
import { assert } from '@strata/base';

/** What a failed decode becomes: the raw XDR and why stellar-base refused it. */
export interface UndecodedXdr {
  xdr: string;
  decodeError: string;
}

/** The js-xdr type descriptors that matter here: element types of arrays and options, and XDR `string`. */
interface XdrTypeInfo {
  _childType?: XdrTypeInfo;
  readString?: unknown;
}

interface XdrDecoder {
  fromXDR(input: Buffer): unknown;
}

const XDR_ONLY_SCVALS = new Set(['scvContractInstance', 'scvLedgerKeyContractInstance', 'scvLedgerKeyNonce']);

const utf8 = new TextDecoder('utf-8', { fatal: true });

const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Decodes `bytes` as `type` and renders it, or says why it could not. */
function decoded(type: XdrDecoder, bytes: Uint8Array): unknown {
  try {
    return toJson(type.fromXDR(asBuffer(bytes)), undefined);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { xdr: asBuffer(bytes).toString('base64'), decodeError: message.replace(/\s*\n\s*/g, ' ') };
  }
}

/** An SCVal (event topic or data) in stellar-base's native form. */
export function scValJson(bytes: Uint8Array): unknown {
  return decoded(xdr.ScVal, bytes);
}

export function ledgerEntryJson(bytes: Uint8Array): unknown {
  return decoded(xdr.LedgerEntry, bytes);
}

export function ledgerKeyJson(bytes: Uint8Array): unknown {
  return decoded(xdr.LedgerKey, bytes);
}

/** A decoded js-xdr value (or a native value from scValToNative) as JSON; `type` tells XDR strings from bytes. */
function toJson(value: unknown, type: XdrTypeInfo | undefined): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return value;
  if (value instanceof Uint8Array) return bytesJson(value, type);
  if (Array.isArray(value)) return value.map((item) => toJson(item, type?._childType));
  // Contract instances and the instance and nonce keys have no native form (scValToNative would give the bare XDR
  // or, for the instance key, undefined): they are rendered as the XDR union they are.
  if (value instanceof xdr.ScVal && !XDR_ONLY_SCVALS.has(value.switch().name)) {
    return toJson(scValToNative(value), undefined);
  }
  if (value instanceof xdr.ScAddress) return Address.fromScAddress(value).toString();
  if (value instanceof xdr.PublicKey) return StrKey.encodeEd25519PublicKey(value.ed25519());
  if (value instanceof xdr.MuxedAccount) return encodeMuxedAccountToAddress(value, true);
  const prototype: unknown = Object.getPrototypeOf(value);
  // A plain object is an SCMap after scValToNative: its values are native values again.
  if (prototype === Object.prototype || prototype === null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toJson(item, undefined)]));
  }
  const kind = value.constructor as {
    structName?: string;
    unionName?: string;
    enumName?: string;
    _fields?: [string, XdrTypeInfo][];
  };
  const anyValue = value as Record<string, unknown> & { _attributes: Record<string, unknown> };
  if (kind.structName !== undefined && kind._fields !== undefined) {
    return Object.fromEntries(
      kind._fields.map(([name, fieldType]) => {
        const field = anyValue._attributes[name];
        return [
          name,
          name === 'assetCode' && field instanceof Uint8Array ? assetCode(field) : toJson(field, fieldType),
        ];
      }),
    );
  }
  if (kind.unionName !== undefined) {
    const union = value as { switch(): unknown; arm(): unknown; armType(): XdrTypeInfo; value(): unknown };
    const arm = union.arm();
    if (typeof arm === 'string') return { [arm]: toJson(union.value(), union.armType()) };
    // A void arm: the case alone, by name (enum discriminant) or as v<n> (the versioned `int v` unions).
    const discriminant = union.switch();
    return typeof discriminant === 'number' ? `v${discriminant}` : toJson(discriminant, undefined);
  }
  if (kind.enumName !== undefined) return (value as { name: string }).name;
  // Hyper and UnsignedHyper (64-bit integers).
  if (typeof (value as { toBigInt?: unknown }).toBigInt === 'function') {
    return (value as { toBigInt(): bigint }).toBigInt().toString();
  }
  // Every class stellar-base's XDR decoders produce is handled above; anything else is a bug here (and is turned into
  // `{ xdr, decodeError }` by decoded()).
  assert(false, () => `no JSON rendering for a ${(value.constructor as { name: string }).name}`);
}

function bytesJson(bytes: Uint8Array, type: XdrTypeInfo | undefined): string {
  if (type?.readString !== undefined) {
    try {
      return utf8.decode(bytes);
    } catch {
      // Not UTF-8: the bytes as they are.
    }
  }
  return asBuffer(bytes).toString('hex');
}

/** AssetCode4 / AssetCode12: printable ASCII padded with NULs; anything else stays hex. */
function assetCode(bytes: Uint8Array): string {
  const code = asBuffer(bytes).toString('latin1').replace(/\0+$/, '');
  return /^[\x21-\x7e]+$/.test(code) ? code : asBuffer(bytes).toString('hex');
}
