// @strata/mphf: a PtrHash-style minimal perfect hash function over byte keys, built in memory proportional to the
// key count and queried in place from a Uint8Array (a Buffer or a memory-mapped file) without deserializing.

export type { AsyncBuildOptions, BuildOptions } from './build.js';
export { buildMphf, buildMphfAsync, DEFAULT_ALPHA, DEFAULT_LAMBDA, DEFAULT_PART_KEYS } from './build.js';
export type { MphfErrorContext } from './errors.js';
export { MphfError, MphfErrorCode } from './errors.js';
export type { FixedWidthKeys, MphfKeys, OffsetKeys } from './keys.js';
export { MPHF_FORMAT_VERSION } from './layout.js';
export type { Mphf } from './mphf.js';
export { openMphf } from './mphf.js';
export type { BijectionReport } from './verify.js';
export { checkBijection } from './verify.js';
