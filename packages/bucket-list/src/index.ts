// @strata/bucket-list: stellar-core's BucketList — bucket files byte for byte, merges, the 11-level list with
// background merges in worker threads, per-bucket indexes, and History Archive State persistence.

export type { BucketFile, OutputOptions } from './bucket-file.js';
export {
  BucketInput,
  BucketOutput,
  bucketFileName,
  emptyBucket,
  verifyBucketFile,
  writeBucket,
} from './bucket-file.js';
export { INDEX_VERSION, indexPathOf, openBucketIndex } from './bucket-index/bucket-index.js';
export type { BucketIndex, IndexOptions, TypeRange } from './bucket-index/types.js';
export type { BucketEvent, BucketManagerOptions, LookupResult } from './bucket-manager.js';
export { Bucket, BucketManager, MAX_PROTOCOL_VERSION } from './bucket-manager.js';
export type { BucketErrorContext } from './errors.js';
export { BucketError, BucketErrorCode } from './errors.js';
export type { FutureBucketState, HasLevel, HistoryArchiveState } from './history-archive-state.js';
export {
  parseHistoryArchiveState,
  referencedBucketHashes,
  serializeHistoryArchiveState,
  ZERO_HASH,
} from './history-archive-state.js';
export type { BucketKind } from './kind.js';
export {
  BOTTOM_LEVEL,
  keepTombstoneEntries,
  levelHalf,
  levelShouldSpill,
  levelSize,
  NUM_LEVELS,
  roundDown,
  shouldMergeWithEmptyCurr,
} from './levels.js';
export type { HotArchiveBatch, LiveBatch, MergeOptions } from './merge/bucket-merge.js';
export { freshHotArchiveEntries, freshLiveEntries, mergeArrays, mergeBucketFiles } from './merge/bucket-merge.js';
export type { MergeJob, Merger } from './merge/worker-merger.js';
export { InlineMerger, WorkerMerger } from './merge/worker-merger.js';
export type { Future, Level, ScheduleOps } from './schedule.js';
export { Schedule } from './schedule.js';
export type { SnapshotBucket } from './snapshot.js';
export { BucketListSnapshot } from './snapshot.js';
