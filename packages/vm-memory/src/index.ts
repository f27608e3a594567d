// @strata/vm-memory: a pool of WebAssembly memories reused across contract executions, reset page by page from the
// kernel's page tables (never from the guest), and a runner that compiles a contract once and instantiates it per
// execution over a leased memory.

export type { VmMemoryErrorContext } from './errors.js';
export { VmMemoryError, VmMemoryErrorCode } from './errors.js';
export type { PagemapRule } from './pagemap.js';
export { decodePagemapEntry, PAGEMAP_BIT } from './pagemap.js';
export type { MemoryPoolOptions, PoolStats, TrimResult } from './pool.js';
export { MemoryLease, MemoryPool, WASM_PAGE_SIZE } from './pool.js';
export type { BackendInfo, DirtyPagesOptions, SelfTestAttempt, SelfTestReport } from './probe.js';
export type { RangeList } from './ranges.js';
export type {
  ContractRunnerOptions,
  ExecutionContext,
  ExecutionResult,
  HostImports,
  PreparedContract,
  RunnerStats,
} from './runner.js';
export { ContractRunner } from './runner.js';
export type { DistributionSnapshot, RetireReason } from './stats.js';
export type {
  DirtyPagesTuning,
  ResetOutcome,
  ResetPath,
  ResetStrategy,
  ResetTarget,
  ScannerKind,
  StrategyName,
} from './strategies.js';
export type { MemoryLimits, ModuleMemory } from './wasm-binary.js';
export { inspectMemory, MEMORY_IMPORT, standardizeMemory } from './wasm-binary.js';
