// @strata/base: what every Strata package shares, written once. No runtime dependencies; the lowest layer.
import './webassembly.js';

export { AssertionError, assert, unreachable } from './assert.js';
export {
  AtomicFile,
  AtomicFileSync,
  atomicTempPath,
  type CommitOptions,
  fsyncDirectory,
  fsyncDirectorySync,
  isAtomicTempName,
  writeFileAtomic,
  writeFileAtomicSync,
} from './atomic-file.js';
export { COPY_BLOCK_BYTES, CopyBlocks, FIRST_COPY_BLOCK_BYTES } from './copy-blocks.js';
export { describeValue } from './describe-value.js';
export { type ErrorContext, formatErrorMessage, isErrnoError, StrataError } from './strata-error.js';
export { spawnWorker } from './worker.js';
