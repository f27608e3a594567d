// `xdrFormat: "json"`: XDR values as the JSON of stellar-xdr's serde form (what stellar-rpc's xdr2json returns),
// produced from @stellar/stellar-base's decoded values. Rules: enums and void union arms are their variant's
// snake_case name (the enum's common prefix removed: SCV_SYMBOL → "symbol"), unions with a value {arm: value},
// structs objects with snake_case field names, 64-bit and wider integers decimal strings, opaques hex, symbols and
// strings text, addresses strkeys. A value that does not decode is reported by the caller (the server answers -32603).
import { Address, StrKey, xdr } from '@stellar/stellar-base';

/** The XDR types the server answers in JSON, by name. */
const XDR_TYPES = {
  ScVal: xdr.ScVal,
  LedgerKey: xdr.LedgerKey,
  LedgerEntryData: xdr.LedgerEntryData,
  LedgerEntryExt: xdr.LedgerEntryExt,
  LedgerHeader: xdr.LedgerHeader,
  LedgerCloseMeta: xdr.LedgerCloseMeta,
} as const;
type XdrType = keyof typeof XDR_TYPES;

/** The JSON form of the XDR `bytes` of `type`. */
export function xdrToJson(type: XdrType, bytes: Uint8Array): unknown {
  return toJson(XDR_TYPES[type].fromXDR(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
}

const snake = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** The variant name of each enum member, cached per enum class. */
const variantNames = new WeakMap<object, Map<string, string>>();

function variantName(enumValue: { name: string; constructor: unknown }): string {
  const cls = enumValue.constructor as { values?: () => { name: string }[] };
  let names = variantNames.get(cls as object);
  if (names === undefined) {
    const members = typeof cls.values === 'function' ? cls.values().map((m) => m.name) : [enumValue.name];
    names = new Map(members.map((m) => [m, snake(m.slice(commonPrefix(members)))]));
    variantNames.set(cls as object, names);
  }
  return names.get(enumValue.name) ?? snake(enumValue.name);
}

/** Length of the camel-case prefix every member shares, leaving each an upper-case-initial rest. */
function commonPrefix(names: readonly string[]): number {
  if (names.length < 2) return 0;
  let n = Math.min(...names.map((m) => m.length));
  for (;;) {
    const first = names[0]!;
    const ok = names.every((m) => m.slice(0, n) === first.slice(0, n) && /[A-Z]/.test(m.charAt(n)));
    if (ok || n === 0) return n;
    n--;
  }
}

interface XdrUnion {
  switch(): unknown;
  value(): unknown;
}
interface XdrStruct {
  _attributes: Record<string, unknown>;
}

function isEnum(v: object): v is { name: string; value: number } {
  return 'enumName' in (v.constructor as object);
}

function bigOf(v: unknown): bigint {
  return BigInt((v as { toString(): string }).toString());
}

function toJson(v: unknown, armName?: string): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) {
    const b = Buffer.from(v);
    return armName === 'symbol' || armName === 'string' ? b.toString('utf8') : b.toString('hex');
  }
  if (Array.isArray(v)) return v.map((e) => toJson(e));
  const ctor = v.constructor as unknown as Record<string, unknown>;
  if (ctor.name === 'Hyper' || ctor.name === 'UnsignedHyper') return bigOf(v).toString();
  if (isEnum(v)) return variantName(v);
  if (typeof ctor.unionName === 'string') {
    if (ctor.unionName === 'ScAddress') return Address.fromScAddress(v as xdr.ScAddress).toString();
    if (ctor.unionName === 'PublicKey') return StrKey.encodeEd25519PublicKey((v as xdr.PublicKey).ed25519());
    const u = v as XdrUnion;
    const sw = u.switch();
    const name = typeof sw === 'number' ? `v${sw}` : variantName(sw as { name: string; constructor: unknown });
    const value = u.value();
    if (value === undefined) return name;
    return { [name]: toJson(value, name) };
  }
  if (typeof ctor.structName === 'string') {
    const attrs = (v as XdrStruct)._attributes;
    switch (ctor.structName) {
      case 'Int128Parts':
      case 'UInt128Parts':
        return ((bigOf(attrs.hi) << 64n) + bigOf(attrs.lo)).toString();
      case 'Int256Parts':
      case 'UInt256Parts':
        return (
          (bigOf(attrs.hiHi) << 192n) +
          (bigOf(attrs.hiLo) << 128n) +
          (bigOf(attrs.loHi) << 64n) +
          bigOf(attrs.loLo)
        ).toString();
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(attrs)) out[snake(key)] = toJson(value);
    return out;
  }
  return String(v);
}
