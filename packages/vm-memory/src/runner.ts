// ContractRunner: compile a contract once (cached by the SHA-256 of its code), make its memory the pool's imported
// `env.memory`, and run one export per execution in a new Instance over a leased memory. The lease is released in a
// `finally`, so a trap, a host exception or a failed instantiation still returns the memory to the pool (reset or
// retired); the error is rethrown unchanged. Instances never escape the runner, so nothing can reach the memory after
// release except views a host function kept against the contract of `ExecutionContext`.

import { createHash } from 'node:crypto';
import { VmMemoryError } from './errors.js';
import type { MemoryLease, MemoryPool } from './pool.js';
import { Wasm, type WasmImports, type WasmMemory, type WasmModule } from './wasm-api.js';
import { MEMORY_IMPORT, standardizeMemory } from './wasm-binary.js';

/** What a host function sees of the execution it serves. Valid only while that execution runs. */
export interface ExecutionContext {
  /** The leased memory; throws LEASE_REVOKED once the execution has ended. */
  readonly memory: WasmMemory;
  /** A view of the memory's current buffer: take a new one after anything that can grow the memory. */
  bytes(): Uint8Array;
}

/** Builds the imports of one execution (everything but `env.memory`, which the runner supplies). */
export type HostImports = (context: ExecutionContext) => WasmImports;

/** A compiled contract. */
export interface PreparedContract {
  /** SHA-256 of the code as given (before any rewrite), hex. */
  readonly codeHash: string;
  readonly module: WasmModule;
  /** Whether the memory section or import had to be rewritten. */
  readonly memoryRewritten: boolean;
}

export interface ContractRunnerOptions {
  /** Compiled modules kept, least recently used dropped first (default 256). */
  maxCachedModules?: number;
}

export interface RunnerStats {
  compiles: number;
  cacheHits: number;
  memoryRewrites: number;
  cachedModules: number;
  executions: number;
  /** Executions that ended in a WebAssembly trap. */
  traps: number;
  /** Executions that ended in any other exception (host functions, instantiation). */
  otherFailures: number;
}

/** Runs contracts over a pool's memories. Synchronous and single-threaded, like the pool it uses. */
export class ContractRunner {
  private readonly cache = new Map<string, PreparedContract>();
  private readonly maxCachedModules: number;
  private readonly counters = {
    compiles: 0,
    cacheHits: 0,
    memoryRewrites: 0,
    executions: 0,
    traps: 0,
    otherFailures: 0,
  };

  constructor(
    readonly pool: MemoryPool,
    options: ContractRunnerOptions = {},
  ) {
    const max = options.maxCachedModules ?? 256;
    if (!Number.isInteger(max) || max < 1)
      throw new VmMemoryError('INVALID_ARGUMENT', `must be a positive integer, got ${max}`, {
        field: 'maxCachedModules',
      });
    this.maxCachedModules = max;
  }

  /**
   * Compiles `code` (or returns the cached compilation of the same bytes). Its memory becomes `env.memory` with the
   * pool's limits when needed; throws BAD_MODULE for binaries that cannot be pooled, and WebAssembly.CompileError for
   * invalid ones.
   */
  prepare(code: Uint8Array): PreparedContract {
    const codeHash = createHash('sha256').update(code).digest('hex');
    const cached = this.cache.get(codeHash);
    if (cached !== undefined) {
      this.counters.cacheHits++;
      this.cache.delete(codeHash); // re-insert: Map order is the LRU order
      this.cache.set(codeHash, cached);
      return cached;
    }
    const { bytes, rewritten } = standardizeMemory(code, this.pool);
    const module = new Wasm.Module(bytes);
    this.counters.compiles++;
    if (rewritten) this.counters.memoryRewrites++;
    const prepared: PreparedContract = { codeHash, module, memoryRewritten: rewritten };
    this.cache.set(codeHash, prepared);
    if (this.cache.size > this.maxCachedModules) this.cache.delete(this.cache.keys().next().value!);
    return prepared;
  }

  /**
   * One execution: lease a memory, instantiate, call `exportName(...args)`, release. Returns what the export
   * returned. Pass a PreparedContract on hot paths (raw bytes are hashed on every call).
   */
  run(
    contract: PreparedContract | Uint8Array,
    exportName: string,
    args: readonly unknown[] = [],
    imports?: HostImports,
  ): unknown {
    const prepared = contract instanceof Uint8Array ? this.prepare(contract) : contract;
    const lease: MemoryLease = this.pool.acquire();
    this.counters.executions++;
    try {
      const context: ExecutionContext = {
        get memory() {
          return lease.memory;
        },
        bytes: () => lease.bytes(),
      };
      const hostImports = imports?.(context) ?? {};
      const instance = new Wasm.Instance(prepared.module, {
        ...hostImports,
        [MEMORY_IMPORT.module]: { ...hostImports[MEMORY_IMPORT.module], [MEMORY_IMPORT.name]: lease.memory },
      });
      const entry = instance.exports[exportName];
      if (typeof entry !== 'function')
        throw new VmMemoryError('INVALID_ARGUMENT', `the contract has no exported function ${exportName}`, {
          field: 'exportName',
        });
      return (entry as (...values: unknown[]) => unknown)(...args);
    } catch (error) {
      if (error instanceof Wasm.RuntimeError) this.counters.traps++;
      else this.counters.otherFailures++;
      throw error;
    } finally {
      this.pool.release(lease);
    }
  }

  stats(): RunnerStats {
    return { ...this.counters, cachedModules: this.cache.size };
  }
}
