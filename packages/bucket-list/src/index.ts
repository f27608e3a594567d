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
export type { BucketEvent, BucketManagerOptions, LookupResult } from './bucket-manager.js';
export { Bucket, BucketManager, MAX_PROTOCOL_VERSION } from './bucket-manager.js';
export type { BucketErrorContext } from './errors.js';
export { BucketError, BucketErrorCode } from './errors.js';
export type { FutureBucketState, HasLevel, HistoryArchiveState } from './has.js';
export { parseHistoryArchiveState, referencedBucketHashes, serializeHistoryArchiveState, ZERO_HASH } from './has.js';
export type { BucketIndex, IndexOptions, TypeRange } from './index/bucket-index.js';
export { INDEX_VERSION, indexPathOf, openBucketIndex } from './index/bucket-index.js';
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
export type { HotArchiveBatch, LiveBatch, MergeOptions } from './merge.js';
export { freshHotArchiveEntries, freshLiveEntries, mergeArrays, mergeBucketFiles } from './merge.js';
export type { MergeJob, Merger } from './merger.js';
export { InlineMerger, WorkerMerger } from './merger.js';
export type { Future, Level, ScheduleOps } from './schedule.js';
export { Schedule } from './schedule.js';
export type { SnapshotBucket } from './snapshot.js';
export { BucketListSnapshot } from './snapshot.js';
