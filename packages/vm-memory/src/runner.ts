// ContractRunner: compile a contract once (cached by the SHA-256 of its code), make its memory the pool's imported
// `env.memory`, and run one export per execution in a new Instance over a leased memory. The lease is released in a
// `finally`, so a trap, a host exception or a failed instantiation still returns the memory to the pool (reset or
// retired); the error is rethrown unchanged.
//
// Nothing of an execution may outlive its lease, or it reaches a pooled memory after the reset, where the next tenant
// reads it: a guest function kept by the caller writes into its Instance's memory whenever it is called. So the
// Instance never escapes the runner; `prepare` refuses contracts through which a reference could leave (an export
// returning one; an imported function, tag or mutable global receiving one; an imported table), and `run` refuses
// any result that is not numbers; every view of the memory is detached when the execution ends (a grow by 0 pages),
// and the ExecutionContext is revoked. What remains is `context.memory` itself, which a host function must not keep.

import { createHash } from 'node:crypto';
import { assert, describeValue } from '@strata/base';
import { countOption, optionsObject, wasmCode } from './arguments.js';
import { invalidArgument, VmMemoryError } from './errors.js';
import { type MemoryLease, MemoryPool, TEST_HOOKS } from './pool.js';
import { MEMORY_IMPORT, standardizeMemory } from './wasm-binary.js';
import {
  describeType,
  type FunctionSignature,
  isReference,
  type ModuleInterface,
  type ReferenceEscape,
  readModuleInterface,
} from './wasm-interface.js';

/** What a host function sees of the execution it serves. Valid only while that execution runs. */
export interface ExecutionContext {
  /**
   * The leased memory; throws LEASE_REVOKED once the execution has ended. Do not keep it: it is the pooled memory
   * itself, the next tenant's after the release (the runner cannot revoke a kept Memory object).
   */
  readonly memory: WebAssembly.Memory;
  /**
   * A view of the memory's current buffer: take a new one after anything that can grow the memory. Every view is
   * detached (length 0) when the execution ends; `bytes()` then throws LEASE_REVOKED.
   */
  bytes(): Uint8Array;
}

/** Builds the imports of one execution (everything but `env.memory`, which the runner supplies). */
export type HostImports = (context: ExecutionContext) => WebAssembly.Imports;

/** What `run` returns: the export's result, only ever numbers (a reference result is refused). */
export type ExecutionResult = number | bigint | undefined | (number | bigint)[];

/** A compiled contract, frozen; only contracts returned by `prepare` run. */
export interface PreparedContract {
  /** SHA-256 of the code as given (before any rewrite), hex. */
  readonly codeHash: string;
  readonly module: WebAssembly.Module;
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
  /** Executions that ended in any other exception (host functions, instantiation, a refused result). */
  otherFailures: number;
}

/** Internal knobs for this package's negative controls. Not exported from the package. */
export interface RunnerTestHooks {
  /**
   * 'full' (default). 'results-only': `prepare` lets reference escapes through, `run` still refuses reference
   * results. 'off': references pass through both (the isolation breach of issue 15).
   */
  referenceChecks?: 'full' | 'results-only' | 'off';
  /** Leave views of the memory attached after the execution. */
  keepViews?: boolean;
}

/** What `prepare` read from each contract it returned (any runner's): a contract missing here was not prepared. */
const preparedInterfaces = new WeakMap<PreparedContract, ModuleInterface>();

/** Runs contracts over a pool's memories. Synchronous and single-threaded, like the pool it uses. */
export class ContractRunner {
  private readonly cache = new Map<string, PreparedContract>();
  private readonly maxCachedModules: number;
  private readonly hooks: RunnerTestHooks;
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
    options: ContractRunnerOptions & { [TEST_HOOKS]?: RunnerTestHooks } = {},
  ) {
    if (!(pool instanceof MemoryPool))
      throw invalidArgument('pool', `must be a MemoryPool, got ${describeValue(pool)}`);
    const given = optionsObject(options, 'options', true);
    this.maxCachedModules = countOption(given.maxCachedModules, 256, 'maxCachedModules', 1);
    if (this.maxCachedModules === Number.POSITIVE_INFINITY)
      throw invalidArgument('maxCachedModules', 'must be a finite integer >= 1, got Infinity');
    this.hooks = options[TEST_HOOKS] ?? {};
  }

  /**
   * Compiles `code` (or returns the cached compilation of the same bytes). Its memory becomes `env.memory` with the
   * pool's limits when needed. Throws BAD_MODULE for binaries that cannot be pooled, REFERENCE_ESCAPE for contracts
   * through which a reference could outlive an execution, and WebAssembly.CompileError for invalid ones.
   */
  prepare(code: Uint8Array): PreparedContract {
    const codeHash = createHash('sha256').update(wasmCode(code)).digest('hex');
    const cached = this.cache.get(codeHash);
    if (cached !== undefined) {
      this.counters.cacheHits++;
      this.cache.delete(codeHash); // re-insert: Map order is the LRU order
      this.cache.set(codeHash, cached);
      return cached;
    }
    const { bytes, rewritten } = standardizeMemory(code, this.pool);
    const module = new WebAssembly.Module(bytes);
    this.counters.compiles++;
    // Read after compiling: the engine has validated the structure this reads.
    const moduleInterface = readModuleInterface(bytes);
    if (moduleInterface.escapes.length > 0 && (this.hooks.referenceChecks ?? 'full') === 'full')
      throw escapeError(moduleInterface.escapes);
    if (rewritten) this.counters.memoryRewrites++;
    const prepared: PreparedContract = Object.freeze({ codeHash, module, memoryRewritten: rewritten });
    preparedInterfaces.set(prepared, moduleInterface);
    this.cache.set(codeHash, prepared);
    if (this.cache.size > this.maxCachedModules) this.cache.delete(this.cache.keys().next().value!);
    return prepared;
  }

  /**
   * One execution: lease a memory, instantiate, call `exportName(...args)`, release. `args` holds one value per
   * parameter: a number for i32, f32 and f64, a bigint for i64. Returns what the export returned (numbers only).
   * Bad arguments throw INVALID_ARGUMENT before a memory is leased. Pass a PreparedContract on hot paths (raw bytes
   * are hashed on every call).
   */
  run(
    contract: PreparedContract | Uint8Array,
    exportName: string,
    args: readonly unknown[] = [],
    imports?: HostImports,
  ): ExecutionResult {
    const prepared = contract instanceof Uint8Array ? this.prepare(contract) : contract;
    const moduleInterface = preparedInterfaces.get(prepared);
    if (moduleInterface === undefined)
      throw invalidArgument(
        'contract',
        `must be a contract from prepare() or code bytes, got ${describeValue(contract)}`,
      );
    // A contract prepared by a runner with its checks off (a negative control) still does not run here.
    if (moduleInterface.escapes.length > 0 && (this.hooks.referenceChecks ?? 'full') === 'full')
      throw escapeError(moduleInterface.escapes);
    const signature = typeof exportName === 'string' ? moduleInterface.functions.get(exportName) : undefined;
    if (signature === undefined)
      throw invalidArgument(
        'exportName',
        `the contract has no exported function ${typeof exportName === 'string' ? exportName : describeValue(exportName)}`,
      );
    checkArguments(exportName, signature, args);
    if (imports !== undefined && typeof imports !== 'function')
      throw invalidArgument('imports', `must be a function (context) => imports, got ${describeValue(imports)}`);

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
      const instance = new WebAssembly.Instance(prepared.module, {
        ...hostImports,
        [MEMORY_IMPORT.module]: { ...hostImports[MEMORY_IMPORT.module], [MEMORY_IMPORT.name]: lease.memory },
      });
      const entry = instance.exports[exportName];
      assert(typeof entry === 'function', () => `the binary declares ${exportName} an exported function`);
      const result: unknown = (entry as (...values: unknown[]) => unknown)(...args);
      // The types were checked at prepare; this catches what a type the parser misread would let through.
      if (!isNumbers(result) && this.hooks.referenceChecks !== 'off')
        throw new VmMemoryError(
          'REFERENCE_ESCAPE',
          `export ${exportName} returned ${describeValue(result)}; only numbers leave an execution`,
          { field: `export "${exportName}"` },
        );
      return result as ExecutionResult;
    } catch (error) {
      if (error instanceof WebAssembly.RuntimeError) this.counters.traps++;
      else this.counters.otherFailures++;
      throw error;
    } finally {
      try {
        // Detaches every view of the buffer a host function kept (the pool re-reads `memory.buffer` for its reset).
        if (this.hooks.keepViews !== true) lease.memory.grow(0);
      } finally {
        this.pool.release(lease);
      }
    }
  }

  stats(): RunnerStats {
    return { ...this.counters, cachedModules: this.cache.size };
  }
}

function escapeError(escapes: readonly ReferenceEscape[]): VmMemoryError {
  const first = escapes[0];
  assert(first !== undefined, 'an escape error lists at least one escape');
  const found = escapes.map((each) => `${each.field}: ${each.detail}`).join('; ');
  return new VmMemoryError(
    'REFERENCE_ESCAPE',
    `${found} (a reference kept after the execution would reach its pooled memory after the reset)`,
    { field: first.field },
  );
}

/** The arguments of one call: one per parameter, numbers for i32/f32/f64, bigints for i64. */
function checkArguments(exportName: string, signature: FunctionSignature, args: unknown): void {
  if (!Array.isArray(args)) throw invalidArgument('args', `must be an array, got ${describeValue(args)}`);
  const { params } = signature;
  if (args.length !== params.length)
    throw invalidArgument(
      'args',
      `${exportName} takes ${params.length} argument(s) (${params.map(describeType).join(', ')}), got ${args.length}`,
    );
  params.forEach((type, index) => {
    const value: unknown = args[index];
    if (isReference(type)) return; // the engine checks reference arguments
    if (type === 'v128') throw invalidArgument(`args[${index}]`, 'a v128 parameter cannot be passed from JavaScript');
    const expected = type === 'i64' ? 'bigint' : 'number';
    if (typeof value !== expected)
      throw invalidArgument(`args[${index}]`, `${type} needs a ${expected}, got ${describeValue(value)}`);
  });
}

/** Whether a result is what numeric results look like in JS: nothing, a number or bigint, or an array of them. */
function isNumbers(result: unknown): boolean {
  const numeric = (value: unknown) => typeof value === 'number' || typeof value === 'bigint';
  return result === undefined || numeric(result) || (Array.isArray(result) && result.every(numeric));
}
