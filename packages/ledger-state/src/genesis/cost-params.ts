// The Soroban cost models genesis writes into CONFIG_SETTING_CONTRACT_COST_PARAMS_CPU_INSTRUCTIONS (6) and
// _MEMORY_BYTES (7), ported from stellar-core src/ledger/NetworkConfig.cpp (at a9b8613). One table per upstream
// function, named after it; each row is [ContractCostType, constTerm, linearTerm]. A "create" table fills a fresh
// vector; an "update" table first grows the vector to `size` (new slots {0, 0}, as std::vector::resize does) and then
// overwrites its rows.
import { assert } from '@strata/base';

/** ContractCostType (Stellar-contract-config-setting.x): the index of each cost model in ContractCostParams. */
export const ContractCostType = {
  WasmInsnExec: 0,
  MemAlloc: 1,
  MemCpy: 2,
  MemCmp: 3,
  DispatchHostFunction: 4,
  VisitObject: 5,
  ValSer: 6,
  ValDeser: 7,
  ComputeSha256Hash: 8,
  ComputeEd25519PubKey: 9,
  VerifyEd25519Sig: 10,
  VmInstantiation: 11,
  VmCachedInstantiation: 12,
  InvokeVmFunction: 13,
  ComputeKeccak256Hash: 14,
  DecodeEcdsaCurve256Sig: 15,
  RecoverEcdsaSecp256k1Key: 16,
  Int256AddSub: 17,
  Int256Mul: 18,
  Int256Div: 19,
  Int256Pow: 20,
  Int256Shift: 21,
  ChaCha20DrawBytes: 22,
  ParseWasmInstructions: 23,
  ParseWasmFunctions: 24,
  ParseWasmGlobals: 25,
  ParseWasmTableEntries: 26,
  ParseWasmTypes: 27,
  ParseWasmDataSegments: 28,
  ParseWasmElemSegments: 29,
  ParseWasmImports: 30,
  ParseWasmExports: 31,
  ParseWasmDataSegmentBytes: 32,
  InstantiateWasmInstructions: 33,
  InstantiateWasmFunctions: 34,
  InstantiateWasmGlobals: 35,
  InstantiateWasmTableEntries: 36,
  InstantiateWasmTypes: 37,
  InstantiateWasmDataSegments: 38,
  InstantiateWasmElemSegments: 39,
  InstantiateWasmImports: 40,
  InstantiateWasmExports: 41,
  InstantiateWasmDataSegmentBytes: 42,
  Sec1DecodePointUncompressed: 43,
  VerifyEcdsaSecp256r1Sig: 44,
  Bls12381EncodeFp: 45,
  Bls12381DecodeFp: 46,
  Bls12381G1CheckPointOnCurve: 47,
  Bls12381G1CheckPointInSubgroup: 48,
  Bls12381G2CheckPointOnCurve: 49,
  Bls12381G2CheckPointInSubgroup: 50,
  Bls12381G1ProjectiveToAffine: 51,
  Bls12381G2ProjectiveToAffine: 52,
  Bls12381G1Add: 53,
  Bls12381G1Mul: 54,
  Bls12381G1Msm: 55,
  Bls12381MapFpToG1: 56,
  Bls12381HashToG1: 57,
  Bls12381G2Add: 58,
  Bls12381G2Mul: 59,
  Bls12381G2Msm: 60,
  Bls12381MapFp2ToG2: 61,
  Bls12381HashToG2: 62,
  Bls12381Pairing: 63,
  Bls12381FrFromU256: 64,
  Bls12381FrToU256: 65,
  Bls12381FrAddSub: 66,
  Bls12381FrMul: 67,
  Bls12381FrPow: 68,
  Bls12381FrInv: 69,
  Bn254EncodeFp: 70,
  Bn254DecodeFp: 71,
  Bn254G1CheckPointOnCurve: 72,
  Bn254G2CheckPointOnCurve: 73,
  Bn254G2CheckPointInSubgroup: 74,
  Bn254G1ProjectiveToAffine: 75,
  Bn254G1Add: 76,
  Bn254G1Mul: 77,
  Bn254Pairing: 78,
  Bn254FrFromU256: 79,
  Bn254FrToU256: 80,
  Bn254FrAddSub: 81,
  Bn254FrMul: 82,
  Bn254FrPow: 83,
  Bn254FrInv: 84,
  Bn254G1Msm: 85,
} as const;

const T = ContractCostType;

/** ContractCostParamEntry {ExtensionPoint ext (always v0); int64 constTerm; int64 linearTerm}. */
export interface ContractCostParamEntry {
  constTerm: number;
  linearTerm: number;
}

/** [ContractCostType, constTerm, linearTerm]. */
export type CostRow = readonly [costType: number, constTerm: number, linearTerm: number];

/** One upstream update function: grow to `size` cost types, then set `rows`. */
export interface CostUpdate {
  readonly size: number;
  readonly rows: readonly CostRow[];
}

/** initialCpuCostParamsEntryForV20: every cost type up to ChaCha20DrawBytes. */
export const initialCpuCostParamsEntryForV20: readonly CostRow[] = [
  [T.WasmInsnExec, 4, 0],
  [T.MemAlloc, 434, 16],
  [T.MemCpy, 42, 16],
  [T.MemCmp, 44, 16],
  [T.DispatchHostFunction, 310, 0],
  [T.VisitObject, 61, 0],
  [T.ValSer, 230, 29],
  [T.ValDeser, 59052, 4001],
  [T.ComputeSha256Hash, 3738, 7012],
  [T.ComputeEd25519PubKey, 40253, 0],
  [T.VerifyEd25519Sig, 377524, 4068],
  [T.VmInstantiation, 451626, 45405],
  [T.VmCachedInstantiation, 451626, 45405],
  [T.InvokeVmFunction, 1948, 0],
  [T.ComputeKeccak256Hash, 3766, 5969],
  [T.DecodeEcdsaCurve256Sig, 710, 0],
  [T.RecoverEcdsaSecp256k1Key, 2315295, 0],
  [T.Int256AddSub, 4404, 0],
  [T.Int256Mul, 4947, 0],
  [T.Int256Div, 4911, 0],
  [T.Int256Pow, 4286, 0],
  [T.Int256Shift, 913, 0],
  [T.ChaCha20DrawBytes, 1058, 501],
];

/** initialMemCostParamsEntryForV20: every cost type up to ChaCha20DrawBytes. */
export const initialMemCostParamsEntryForV20: readonly CostRow[] = [
  [T.WasmInsnExec, 0, 0],
  [T.MemAlloc, 16, 128],
  [T.MemCpy, 0, 0],
  [T.MemCmp, 0, 0],
  [T.DispatchHostFunction, 0, 0],
  [T.VisitObject, 0, 0],
  [T.ValSer, 242, 384],
  [T.ValDeser, 0, 384],
  [T.ComputeSha256Hash, 0, 0],
  [T.ComputeEd25519PubKey, 0, 0],
  [T.VerifyEd25519Sig, 0, 0],
  [T.VmInstantiation, 130065, 5064],
  [T.VmCachedInstantiation, 130065, 5064],
  [T.InvokeVmFunction, 14, 0],
  [T.ComputeKeccak256Hash, 0, 0],
  [T.DecodeEcdsaCurve256Sig, 0, 0],
  [T.RecoverEcdsaSecp256k1Key, 181, 0],
  [T.Int256AddSub, 99, 0],
  [T.Int256Mul, 99, 0],
  [T.Int256Div, 99, 0],
  [T.Int256Pow, 99, 0],
  [T.Int256Shift, 99, 0],
  [T.ChaCha20DrawBytes, 0, 0],
];

/**
 * SorobanNetworkConfig::updateRecalibratedCostTypesForV20 (BUILD_TESTS only: genesis catches up with the costs
 * protocol 20 was recalibrated to shortly after its release), CPU half. No resize.
 */
export const updateRecalibratedCpuCostTypesForV20: CostUpdate = {
  size: T.ChaCha20DrawBytes + 1,
  rows: [
    [T.DispatchHostFunction, 295, 0],
    [T.VisitObject, 60, 0],
    [T.ValSer, 221, 26],
    [T.ValDeser, 331, 4369],
    [T.ComputeSha256Hash, 3636, 7013],
    [T.ComputeEd25519PubKey, 40256, 0],
    [T.VerifyEd25519Sig, 377551, 4059],
    [T.VmInstantiation, 417482, 45712],
    [T.VmCachedInstantiation, 417482, 45712],
    [T.InvokeVmFunction, 1945, 0],
    [T.ComputeKeccak256Hash, 6481, 5943],
    [T.DecodeEcdsaCurve256Sig, 711, 0],
    [T.RecoverEcdsaSecp256k1Key, 2314804, 0],
    [T.Int256AddSub, 4176, 0],
    [T.Int256Mul, 4716, 0],
    [T.Int256Div, 4680, 0],
    [T.Int256Pow, 4256, 0],
    [T.Int256Shift, 884, 0],
    [T.ChaCha20DrawBytes, 1059, 502],
  ],
};

/** SorobanNetworkConfig::updateRecalibratedCostTypesForV20, memory half. No resize. */
export const updateRecalibratedMemCostTypesForV20: CostUpdate = {
  size: T.ChaCha20DrawBytes + 1,
  rows: [
    [T.VmInstantiation, 132773, 4903],
    [T.VmCachedInstantiation, 132773, 4903],
  ],
};

/** updateCpuCostParamsEntryForV21: VmCachedInstantiation updated, the Wasm parse/instantiate and P-256 types new. */
export const updateCpuCostParamsEntryForV21: CostUpdate = {
  size: T.VerifyEcdsaSecp256r1Sig + 1,
  rows: [
    [T.VmCachedInstantiation, 41142, 634],
    [T.ParseWasmInstructions, 73077, 25410],
    [T.ParseWasmFunctions, 0, 540752],
    [T.ParseWasmGlobals, 0, 176363],
    [T.ParseWasmTableEntries, 0, 29989],
    [T.ParseWasmTypes, 0, 1061449],
    [T.ParseWasmDataSegments, 0, 237336],
    [T.ParseWasmElemSegments, 0, 328476],
    [T.ParseWasmImports, 0, 701845],
    [T.ParseWasmExports, 0, 429383],
    [T.ParseWasmDataSegmentBytes, 0, 28],
    [T.InstantiateWasmInstructions, 43030, 0],
    [T.InstantiateWasmFunctions, 0, 7556],
    [T.InstantiateWasmGlobals, 0, 10711],
    [T.InstantiateWasmTableEntries, 0, 3300],
    [T.InstantiateWasmTypes, 0, 0],
    [T.InstantiateWasmDataSegments, 0, 23038],
    [T.InstantiateWasmElemSegments, 0, 42488],
    [T.InstantiateWasmImports, 0, 828974],
    [T.InstantiateWasmExports, 0, 297100],
    [T.InstantiateWasmDataSegmentBytes, 0, 14],
    [T.Sec1DecodePointUncompressed, 1882, 0],
    [T.VerifyEcdsaSecp256r1Sig, 3000906, 0],
  ],
};

/** updateMemCostParamsEntryForV21. */
export const updateMemCostParamsEntryForV21: CostUpdate = {
  size: T.VerifyEcdsaSecp256r1Sig + 1,
  rows: [
    [T.VmCachedInstantiation, 69472, 1217],
    [T.ParseWasmInstructions, 17564, 6457],
    [T.ParseWasmFunctions, 0, 47464],
    [T.ParseWasmGlobals, 0, 13420],
    [T.ParseWasmTableEntries, 0, 6285],
    [T.ParseWasmTypes, 0, 64670],
    [T.ParseWasmDataSegments, 0, 29074],
    [T.ParseWasmElemSegments, 0, 48095],
    [T.ParseWasmImports, 0, 103229],
    [T.ParseWasmExports, 0, 36394],
    [T.ParseWasmDataSegmentBytes, 0, 257],
    [T.InstantiateWasmInstructions, 70704, 0],
    [T.InstantiateWasmFunctions, 0, 14613],
    [T.InstantiateWasmGlobals, 0, 6833],
    [T.InstantiateWasmTableEntries, 0, 1025],
    [T.InstantiateWasmTypes, 0, 0],
    [T.InstantiateWasmDataSegments, 0, 129632],
    [T.InstantiateWasmElemSegments, 0, 13665],
    [T.InstantiateWasmImports, 0, 97637],
    [T.InstantiateWasmExports, 0, 9176],
    [T.InstantiateWasmDataSegmentBytes, 0, 126],
    [T.Sec1DecodePointUncompressed, 0, 0],
    [T.VerifyEcdsaSecp256r1Sig, 0, 0],
  ],
};

/** updateCpuCostParamsEntryForV22: the BLS12-381 types, new. */
export const updateCpuCostParamsEntryForV22: CostUpdate = {
  size: T.Bls12381FrInv + 1,
  rows: [
    [T.Bls12381EncodeFp, 661, 0],
    [T.Bls12381DecodeFp, 985, 0],
    [T.Bls12381G1CheckPointOnCurve, 1934, 0],
    [T.Bls12381G1CheckPointInSubgroup, 730510, 0],
    [T.Bls12381G2CheckPointOnCurve, 5921, 0],
    [T.Bls12381G2CheckPointInSubgroup, 1057822, 0],
    [T.Bls12381G1ProjectiveToAffine, 92642, 0],
    [T.Bls12381G2ProjectiveToAffine, 100742, 0],
    [T.Bls12381G1Add, 7689, 0],
    [T.Bls12381G1Mul, 2458985, 0],
    [T.Bls12381G1Msm, 2426722, 96397671],
    [T.Bls12381MapFpToG1, 1541554, 0],
    [T.Bls12381HashToG1, 3211191, 6713],
    [T.Bls12381G2Add, 25207, 0],
    [T.Bls12381G2Mul, 7873219, 0],
    [T.Bls12381G2Msm, 8035968, 309667335],
    [T.Bls12381MapFp2ToG2, 2420202, 0],
    [T.Bls12381HashToG2, 7050564, 6797],
    [T.Bls12381Pairing, 10558948, 632860943],
    [T.Bls12381FrFromU256, 1994, 0],
    [T.Bls12381FrToU256, 1155, 0],
    [T.Bls12381FrAddSub, 74, 0],
    [T.Bls12381FrMul, 332, 0],
    [T.Bls12381FrPow, 691, 74558],
    [T.Bls12381FrInv, 35421, 0],
  ],
};

/** updateMemCostParamsEntryForV22. */
export const updateMemCostParamsEntryForV22: CostUpdate = {
  size: T.Bls12381FrInv + 1,
  rows: [
    [T.Bls12381EncodeFp, 0, 0],
    [T.Bls12381DecodeFp, 0, 0],
    [T.Bls12381G1CheckPointOnCurve, 0, 0],
    [T.Bls12381G1CheckPointInSubgroup, 0, 0],
    [T.Bls12381G2CheckPointOnCurve, 0, 0],
    [T.Bls12381G2CheckPointInSubgroup, 0, 0],
    [T.Bls12381G1ProjectiveToAffine, 0, 0],
    [T.Bls12381G2ProjectiveToAffine, 0, 0],
    [T.Bls12381G1Add, 0, 0],
    [T.Bls12381G1Mul, 0, 0],
    [T.Bls12381G1Msm, 109494, 354667],
    [T.Bls12381MapFpToG1, 5552, 0],
    [T.Bls12381HashToG1, 9424, 0],
    [T.Bls12381G2Add, 0, 0],
    [T.Bls12381G2Mul, 0, 0],
    [T.Bls12381G2Msm, 219654, 354667],
    [T.Bls12381MapFp2ToG2, 3344, 0],
    [T.Bls12381HashToG2, 6816, 0],
    [T.Bls12381Pairing, 2204, 9340474],
    [T.Bls12381FrFromU256, 0, 0],
    [T.Bls12381FrToU256, 248, 0],
    [T.Bls12381FrAddSub, 0, 0],
    [T.Bls12381FrMul, 0, 0],
    [T.Bls12381FrPow, 0, 128],
    [T.Bls12381FrInv, 0, 0],
  ],
};

/** updateCpuCostParamsEntryForV25: the BN254 types, new. */
export const updateCpuCostParamsEntryForV25: CostUpdate = {
  size: T.Bn254FrInv + 1,
  rows: [
    [T.Bn254EncodeFp, 344, 0],
    [T.Bn254DecodeFp, 476, 0],
    [T.Bn254G1CheckPointOnCurve, 904, 0],
    [T.Bn254G2CheckPointOnCurve, 2811, 0],
    [T.Bn254G2CheckPointInSubgroup, 2937755, 0],
    [T.Bn254G1ProjectiveToAffine, 61, 0],
    [T.Bn254G1Add, 3623, 0],
    [T.Bn254G1Mul, 1150435, 0],
    [T.Bn254Pairing, 5263916, 392472814],
    [T.Bn254FrFromU256, 2052, 0],
    [T.Bn254FrToU256, 1133, 0],
    [T.Bn254FrAddSub, 74, 0],
    [T.Bn254FrMul, 332, 0],
    [T.Bn254FrPow, 755, 68930],
    [T.Bn254FrInv, 33151, 0],
  ],
};

/** updateMemCostParamsEntryForV25. */
export const updateMemCostParamsEntryForV25: CostUpdate = {
  size: T.Bn254FrInv + 1,
  rows: [
    [T.Bn254EncodeFp, 0, 0],
    [T.Bn254DecodeFp, 0, 0],
    [T.Bn254G1CheckPointOnCurve, 0, 0],
    [T.Bn254G2CheckPointOnCurve, 0, 0],
    [T.Bn254G2CheckPointInSubgroup, 0, 0],
    [T.Bn254G1ProjectiveToAffine, 0, 0],
    [T.Bn254G1Add, 0, 0],
    [T.Bn254G1Mul, 0, 0],
    [T.Bn254Pairing, 1821, 6232546],
    [T.Bn254FrFromU256, 0, 0],
    [T.Bn254FrToU256, 312, 0],
    [T.Bn254FrAddSub, 0, 0],
    [T.Bn254FrMul, 0, 0],
    [T.Bn254FrPow, 0, 0],
    [T.Bn254FrInv, 0, 0],
  ],
};

/** updateCpuCostParamsEntryForV26: BLS12-381 and one BN254 type recalibrated, Bn254G1Msm new. */
export const updateCpuCostParamsEntryForV26: CostUpdate = {
  size: T.Bn254G1Msm + 1,
  rows: [
    [T.Bls12381G1Msm, 2347584, 94135478],
    [T.Bls12381MapFpToG1, 1020885, 0],
    [T.Bls12381HashToG1, 2638451, 6803],
    [T.Bls12381G2Msm, 7663880, 298580871],
    [T.Bls12381MapFp2ToG2, 1856539, 0],
    [T.Bls12381HashToG2, 6315452, 7232],
    [T.Bn254G2CheckPointInSubgroup, 1706052, 0],
    [T.Bn254G1Msm, 1185193, 41568084],
  ],
};

/** updateMemCostParamsEntryForV26 (leaves Bn254G2CheckPointInSubgroup as it was). */
export const updateMemCostParamsEntryForV26: CostUpdate = {
  size: T.Bn254G1Msm + 1,
  rows: [
    [T.Bls12381G1Msm, 109494, 266603],
    [T.Bls12381MapFpToG1, 2776, 0],
    [T.Bls12381HashToG1, 5896, 0],
    [T.Bls12381G2Msm, 219654, 266603],
    [T.Bls12381MapFp2ToG2, 1672, 0],
    [T.Bls12381HashToG2, 3960, 0],
    [T.Bn254G1Msm, 73061, 229779],
  ],
};

/** A fresh ContractCostParams from a create table, whose rows must be the types 0..n-1 in order. */
export function costParamsFrom(rows: readonly CostRow[]): ContractCostParamEntry[] {
  return rows.map(([costType, constTerm, linearTerm], index) => {
    assert(costType === index, `cost table row ${index} is for cost type ${costType}`);
    return { constTerm, linearTerm };
  });
}

/** Applies an update table in place: std::vector::resize to `size` (never shrinking here), then the rows. */
export function applyCostUpdate(params: ContractCostParamEntry[], update: CostUpdate): void {
  assert(params.length <= update.size, `cost update to ${update.size} types of ${params.length}`);
  while (params.length < update.size) params.push({ constTerm: 0, linearTerm: 0 });
  for (const [costType, constTerm, linearTerm] of update.rows) {
    assert(costType < update.size, `cost type ${costType} beyond the update's size ${update.size}`);
    params[costType] = { constTerm, linearTerm };
  }
}
