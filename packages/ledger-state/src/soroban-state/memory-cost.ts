// The rent size of a ledger entry (stellar-core LedgerTypeUtils.cpp ledgerEntrySizeForRent): its XDR size, plus for
// a CONTRACT_CODE entry from protocol 23 the memory its parsed Wasm module takes, as soroban-env-host prices it with
// the ledger's CONFIG_SETTING_CONTRACT_COST_PARAMS_MEMORY_BYTES (vm/parsed_module.rs wasm_module_memory_cost, reached
// through stellar-core's rust bridge contract_code_memory_size_for_rent / _v2, which share the formula). Pure and
// synchronous; callable from anywhere.
import { assert } from '@strata/base';
import { LEDGER_ENTRY_TYPE, LedgerKeyError, ledgerEntryLayout, XDR_LIMITS } from '@strata/ledger-key';
import { LedgerStateError } from '../errors.js';

/** ContractCostType values the module memory cost reads (Stellar-contract-config-setting.x). */
const VM_INSTANTIATION = 11;
/** ParseWasmInstructions; the ten ParseWasm* types 23..32 follow ContractCodeCostInputs' field order. */
const PARSE_WASM_INSTRUCTIONS = 23;
const PARSE_WASM_COST_TYPES = 10;
/** From this protocol a CONTRACT_CODE entry's rent size includes its module's memory (ProtocolVersion::V_23). */
export const FIRST_PROTOCOL_CODE_MEMORY_IN_RENT = 23;

const U32_MAX = 0xffff_ffffn;
const U64_MAX = 0xffff_ffff_ffff_ffffn;
/** COST_MODEL_LIN_TERM_SCALE_BITS in soroban-env-host budget/model.rs: linear terms are stored × 2^7. */
const LIN_TERM_SCALE_BITS = 7n;
/** Encoded ContractCostParamEntry: ExtensionPoint (int32 0), int64 constTerm, int64 linearTerm. */
const PARAM_ENTRY_BYTES = 20;

/**
 * The memory dimension of a cost schedule, read once: `constTerms[i]` and `linearTerms[i]` of ContractCostType `i`
 * as soroban-env-host's BudgetDimension holds them (u64, linear terms still scaled by 2^7). Types past the end of
 * the schedule cost nothing, as in a BudgetDimension built from a shorter ContractCostParams.
 */
export interface MemoryCostModels {
  readonly constTerms: BigUint64Array;
  readonly linearTerms: BigUint64Array;
}

function badParams(detail: string, offset: number, field: string, cause?: unknown): never {
  throw new LedgerStateError('BAD_ENTRY', `memory cost params: ${detail}`, {
    offset,
    field,
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * Reads a ContractCostParams (the ConfigSettingEntry arm of CONFIG_SETTING_CONTRACT_COST_PARAMS_MEMORY_BYTES, as
 * `readLedgerEntry(entry).configSettingBody()` returns it). BAD_ENTRY when it is not exactly one ContractCostParams,
 * or when a term is negative (soroban-env-host MeteredCostComponent::try_from refuses the whole schedule then, and
 * stellar-core's call fails).
 */
export function readMemoryCostParams(body: Uint8Array): MemoryCostModels {
  if (!(body instanceof Uint8Array)) {
    throw new LedgerStateError('INVALID_ARGUMENT', 'memCostParams must be the ContractCostParams XDR (a Uint8Array)', {
      field: 'memCostParams',
    });
  }
  if (body.length < 4) badParams('shorter than its entry count', 0, 'ContractCostParams');
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const count = view.getUint32(0);
  if (count > XDR_LIMITS.CONTRACT_COST_PARAMS) {
    badParams(`${count} entries (at most ${XDR_LIMITS.CONTRACT_COST_PARAMS})`, 0, 'ContractCostParams');
  }
  if (body.length !== 4 + count * PARAM_ENTRY_BYTES) {
    badParams(`${body.length} bytes for ${count} entries`, 0, 'ContractCostParams');
  }
  const constTerms = new BigUint64Array(count);
  const linearTerms = new BigUint64Array(count);
  for (let i = 0; i < count; i++) {
    const p = 4 + i * PARAM_ENTRY_BYTES;
    if (view.getInt32(p) !== 0) badParams(`entry ${i} has ext ${view.getInt32(p)}`, p, 'ContractCostParamEntry.ext');
    const constTerm = view.getBigInt64(p + 4);
    const linearTerm = view.getBigInt64(p + 12);
    if (constTerm < 0n) badParams(`entry ${i} has a negative constTerm`, p + 4, 'ContractCostParamEntry.constTerm');
    if (linearTerm < 0n) badParams(`entry ${i} has a negative linearTerm`, p + 12, 'ContractCostParamEntry.linearTerm');
    constTerms[i] = constTerm;
    linearTerms[i] = linearTerm;
  }
  return { constTerms, linearTerms };
}

/**
 * One cost model at one input (soroban-env-host MeteredCostComponent::evaluate with one iteration): `const +
 * ((linear × input) >> 7)`, every step saturating at u64.
 */
function evaluate(models: MemoryCostModels, costType: number, input: number): bigint {
  const constTerm = models.constTerms[costType] ?? 0n;
  const linearTerm = models.linearTerms[costType] ?? 0n;
  if (linearTerm === 0n) return constTerm;
  let scaled = linearTerm * BigInt(input);
  if (scaled > U64_MAX) scaled = U64_MAX;
  const sum = constTerm + (scaled >> LIN_TERM_SCALE_BITS);
  return sum > U64_MAX ? U64_MAX : sum;
}

/**
 * The module memory cost of the CONTRACT_CODE entry `entry` (bytes, offset of its `ContractCodeEntry.ext`, offset of
 * its code length): ext v0 prices VmInstantiation over the code length; ext v1 sums the ten ParseWasm* models over
 * the entry's cost inputs (saturating). The result must fit a u32: stellar-core's bridge converts it with
 * `try_into` and fails otherwise (the host's own rent path saturates instead; the state size follows stellar-core).
 */
export function moduleMemoryCost(
  entry: Uint8Array,
  extStart: number,
  codeLengthAt: number,
  models: MemoryCostModels,
): number {
  const view = new DataView(entry.buffer, entry.byteOffset, entry.byteLength);
  let cost: bigint;
  if (view.getUint32(extStart) === 0) {
    cost = evaluate(models, VM_INSTANTIATION, view.getUint32(codeLengthAt));
  } else {
    // ext v1: ExtensionPoint of ContractCodeEntryV1, ExtensionPoint of ContractCodeCostInputs, then ten uint32 counts
    const inputsStart = extStart + 12;
    cost = 0n;
    for (let i = 0; i < PARSE_WASM_COST_TYPES; i++) {
      cost += evaluate(models, PARSE_WASM_INSTRUCTIONS + i, view.getUint32(inputsStart + 4 * i));
      if (cost > U64_MAX) cost = U64_MAX;
    }
  }
  if (cost > U32_MAX) {
    throw new LedgerStateError('BAD_ENTRY', `module memory cost ${cost} does not fit a u32 (stellar-core fails here)`, {
      field: 'ContractCodeEntry',
    });
  }
  return Number(cost);
}

/** Offsets of a validated CONTRACT_CODE entry: where its ext starts and where its code length is. */
export interface CodeEntryLayout {
  readonly extStart: number;
  readonly codeLengthAt: number;
}

/** Layout scratch for the exported functions (they are synchronous; nothing else uses it). */
const layout = new Int32Array(4);

/** Validates that `entry` is exactly one LedgerEntry (INVALID_ARGUMENT otherwise) and returns its type. */
function entryTypeOf(entry: Uint8Array, field: string): number {
  if (!(entry instanceof Uint8Array)) {
    throw new LedgerStateError('INVALID_ARGUMENT', `${field} must be a LedgerEntry XDR (a Uint8Array)`, { field });
  }
  try {
    ledgerEntryLayout(entry, 0, layout);
  } catch (error) {
    if (!(error instanceof LedgerKeyError)) throw error;
    throw new LedgerStateError('INVALID_ARGUMENT', `${field} is not a LedgerEntry: ${error.message}`, {
      field,
      cause: error,
    });
  }
  if (layout[3] !== entry.length) {
    throw new LedgerStateError('INVALID_ARGUMENT', `${field} has bytes after its LedgerEntry`, { field });
  }
  // `!`: ledgerEntryLayout filled all four
  return layout[0]!;
}

function codeLayoutOf(entry: Uint8Array, field: string): CodeEntryLayout {
  const type = entryTypeOf(entry, field);
  if (type !== LEDGER_ENTRY_TYPE.CONTRACT_CODE) {
    throw new LedgerStateError('INVALID_ARGUMENT', `${field} is not a CONTRACT_CODE entry (type ${type})`, { field });
  }
  // `!`: set by entryTypeOf; the key of CONTRACT_CODE is its 32-byte hash, the code's length follows it
  const keyEnd = layout[2]!;
  assert(keyEnd === layout[1]! + 32, 'a CONTRACT_CODE key is its hash');
  return { extStart: 8, codeLengthAt: keyEnd };
}

/**
 * soroban-env-host `wasm_module_memory_cost` of one CONTRACT_CODE LedgerEntry (XDR) under a memory cost schedule
 * (the ContractCostParams XDR of CONFIG_SETTING_CONTRACT_COST_PARAMS_MEMORY_BYTES): ext v0 entries
 * `VmInstantiation(code length)`, ext v1 entries the sum of `ParseWasm*(cost input)`, each model `const +
 * ((linear × input) >> 7)` saturating at u64. INVALID_ARGUMENT for anything but one CONTRACT_CODE entry; BAD_ENTRY
 * for a malformed or negative schedule, or a cost above u32 (where stellar-core fails).
 */
export function contractCodeMemoryCost(entry: Uint8Array, memCostParams: Uint8Array): number {
  const { extStart, codeLengthAt } = codeLayoutOf(entry, 'entry');
  return moduleMemoryCost(entry, extStart, codeLengthAt, readMemoryCostParams(memCostParams));
}

/**
 * stellar-core `ledgerEntrySizeForRent`: the entry's XDR size; for CONTRACT_CODE at `protocolVersion` ≥ 23 plus its
 * module memory cost, the sum capped at u32. `memCostParams` (ContractCostParams XDR) is read only for code entries
 * from protocol 23. The in-memory Soroban state prices code with at least protocol 23 whatever the ledger's
 * protocol (InMemorySorobanState.cpp contractCodeSizeForRent).
 */
export function ledgerEntrySizeForRent(entry: Uint8Array, protocolVersion: number, memCostParams: Uint8Array): number {
  if (!Number.isInteger(protocolVersion) || protocolVersion < 0 || protocolVersion > 0xffff_ffff) {
    throw new LedgerStateError('INVALID_ARGUMENT', `protocolVersion must be a uint32, got ${String(protocolVersion)}`, {
      field: 'protocolVersion',
    });
  }
  const type = entryTypeOf(entry, 'entry');
  if (type !== LEDGER_ENTRY_TYPE.CONTRACT_CODE || protocolVersion < FIRST_PROTOCOL_CODE_MEMORY_IN_RENT) {
    return entry.length;
  }
  return codeSizeForRent(entry, contractCodeMemoryCost(entry, memCostParams));
}

/** XDR size plus module memory, capped at u32 (ledgerEntrySizeForRent's `std::min(totalSize, UINT32_MAX)`). */
export function codeSizeForRent(entry: Uint8Array, memoryCost: number): number {
  return Math.min(entry.length + memoryCost, 0xffff_ffff);
}
