// SCVal writer (all 22 arms, nesting bounded by MAX_SCVAL_DEPTH as the reader is) and encodeScVal.
import { invalidArgument } from '../errors.js';
import type { ScMapEntry, ScVal } from '../model.js';
import { MAX_SC_ERROR_CODE, MAX_SC_ERROR_TYPE, MAX_SCVAL_DEPTH, SC_VAL_TYPE, XDR_LIMITS } from '../xdr-constants.js';
import { bigOf, bytesOf, i32Of, requiredArrayOf, tagOf, U32_MAX, u32Of, varBytesOf } from './input-checks.js';
import { writeScAddress } from './sc-address.js';
import { encodeWith, type XdrWriter } from './xdr-writer.js';

/** `SCMap*` whose entries sit one nesting level below `depth`; null is the absent map, [] the empty one. */
function writeScMap(w: XdrWriter, entries: readonly ScMapEntry[] | null, depth: number, field: string): void {
  if (entries === null) {
    w.u32(0);
    return;
  }
  const list = requiredArrayOf(entries, U32_MAX, field);
  w.u32(1);
  w.u32(list.length);
  for (let i = 0; i < list.length; i++) {
    const entry = list[i];
    if (!Array.isArray(entry) || entry.length !== 2) invalidArgument(`${field}[${i}]`, 'expected a [key, val] pair');
    writeScVal(w, entry[0]!, depth + 1, `${field}[${i}][0]`);
    writeScVal(w, entry[1]!, depth + 1, `${field}[${i}][1]`);
  }
}

/** Writes a two's-complement / unsigned integer of `bits` (128 or 256) as big-endian 64-bit limbs. */
function writeWide(w: XdrWriter, value: bigint, bits: number): void {
  for (let shift = bits - 64; shift >= 0; shift -= 64) w.u64(BigInt.asUintN(64, value >> BigInt(shift)));
}

/**
 * One SCVal at nesting level `depth`. The depth bound is the reader's (MAX_SCVAL_DEPTH), so everything written here
 * can be read back, and a cyclic input object fails instead of recursing forever.
 */
export function writeScVal(w: XdrWriter, value: ScVal, depth: number, field: string): void {
  if (depth > MAX_SCVAL_DEPTH) invalidArgument(field, `SCVal nesting deeper than MAX_SCVAL_DEPTH (${MAX_SCVAL_DEPTH})`);
  switch (value?.type) {
    case 'bool':
      if (typeof value.value !== 'boolean') invalidArgument(field, 'expected a boolean');
      w.u32(SC_VAL_TYPE.BOOL);
      w.u32(value.value ? 1 : 0);
      return;
    case 'void':
      w.u32(SC_VAL_TYPE.VOID);
      return;
    case 'error': {
      const errorType = u32Of(value.errorType, `${field}.errorType`);
      if (errorType > MAX_SC_ERROR_TYPE) invalidArgument(`${field}.errorType`, `unknown SCErrorType ${errorType}`);
      const code = u32Of(value.code, `${field}.code`);
      if (errorType !== 0 && code > MAX_SC_ERROR_CODE) invalidArgument(`${field}.code`, `unknown SCErrorCode ${code}`);
      w.u32(SC_VAL_TYPE.ERROR);
      w.u32(errorType);
      w.u32(code);
      return;
    }
    case 'u32':
      w.u32(SC_VAL_TYPE.U32);
      w.u32(u32Of(value.value, field));
      return;
    case 'i32':
      w.u32(SC_VAL_TYPE.I32);
      w.i32(i32Of(value.value, field));
      return;
    case 'u64':
    case 'timepoint':
    case 'duration':
      w.u32(SC_VAL_TYPE[value.type === 'u64' ? 'U64' : value.type === 'timepoint' ? 'TIMEPOINT' : 'DURATION']);
      w.u64(bigOf(value.value, 64, false, field));
      return;
    case 'i64':
      w.u32(SC_VAL_TYPE.I64);
      w.u64(bigOf(value.value, 64, true, field));
      return;
    case 'u128':
      w.u32(SC_VAL_TYPE.U128);
      writeWide(w, bigOf(value.value, 128, false, field), 128);
      return;
    case 'i128':
      w.u32(SC_VAL_TYPE.I128);
      writeWide(w, bigOf(value.value, 128, true, field), 128);
      return;
    case 'u256':
      w.u32(SC_VAL_TYPE.U256);
      writeWide(w, bigOf(value.value, 256, false, field), 256);
      return;
    case 'i256':
      w.u32(SC_VAL_TYPE.I256);
      writeWide(w, bigOf(value.value, 256, true, field), 256);
      return;
    case 'bytes':
      if (!(value.value instanceof Uint8Array)) invalidArgument(field, 'expected a Uint8Array');
      w.u32(SC_VAL_TYPE.BYTES);
      w.variable(value.value);
      return;
    case 'string':
      w.u32(SC_VAL_TYPE.STRING);
      w.variable(varBytesOf(value.value, XDR_LIMITS.UNBOUNDED, field));
      return;
    case 'symbol':
      w.u32(SC_VAL_TYPE.SYMBOL);
      w.variable(varBytesOf(value.value, XDR_LIMITS.SYMBOL, field));
      return;
    case 'vec': {
      w.u32(SC_VAL_TYPE.VEC);
      if (value.value === null) {
        w.u32(0);
        return;
      }
      const items = requiredArrayOf(value.value, U32_MAX, field);
      w.u32(1);
      w.u32(items.length);
      for (let i = 0; i < items.length; i++) writeScVal(w, items[i]!, depth + 1, `${field}[${i}]`);
      return;
    }
    case 'map':
      w.u32(SC_VAL_TYPE.MAP);
      writeScMap(w, value.value, depth, field);
      return;
    case 'address':
      w.u32(SC_VAL_TYPE.ADDRESS);
      writeScAddress(w, value.value, `${field}.address`);
      return;
    case 'contractInstance': {
      w.u32(SC_VAL_TYPE.CONTRACT_INSTANCE);
      const executable = value.executable;
      if (executable?.type === 'wasm') {
        w.u32(0);
        w.fixed(bytesOf(executable.wasmHash, 32, `${field}.executable.wasmHash`));
      } else if (executable?.type === 'stellarAsset') {
        w.u32(1);
      } else {
        invalidArgument(`${field}.executable`, `unknown ContractExecutable type ${tagOf(executable)}`);
      }
      writeScMap(w, value.storage, depth, `${field}.storage`);
      return;
    }
    case 'ledgerKeyContractInstance':
      w.u32(SC_VAL_TYPE.LEDGER_KEY_CONTRACT_INSTANCE);
      return;
    case 'ledgerKeyNonce':
      w.u32(SC_VAL_TYPE.LEDGER_KEY_NONCE);
      w.u64(bigOf(value.nonce, 64, true, `${field}.nonce`));
      return;
    default:
      invalidArgument(field, `unknown SCVal type ${tagOf(value)}`);
  }
}

/** Canonical XDR of an SCVal (nesting limited to MAX_SCVAL_DEPTH). */
export function encodeScVal(value: ScVal): Uint8Array {
  return encodeWith(value, (w, v, f) => writeScVal(w, v, 1, f), 'ScVal');
}
