// The one error class of @strata/vm-memory. A caller's bad argument, a strategy this machine cannot run, an exhausted
// pool, a revoked lease or a malformed wasm binary throw only this; bugs in this package are `assert` failures
// (@strata/base) instead. A reset that fails does not throw: the pool retires the memory and counts the reason
// (fail closed). Traps and host exceptions from a contract are rethrown unchanged by the runner.
import { StrataError } from '@strata/base';

/** Stable error codes. New codes may be added; existing ones keep their meaning. */
export const VmMemoryErrorCode = {
  /** A bad option or argument (shape, count, export name, a lease of another pool). */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  /** The requested strategy cannot run here (no pagemap, no native helper, failed self-test); `cause` says why. */
  UNAVAILABLE: 'UNAVAILABLE',
  /** `maxTotal` memories are leased or idle and `whenExhausted` is 'throw'. */
  POOL_EXHAUSTED: 'POOL_EXHAUSTED',
  /** A lease used after release, or released twice. */
  LEASE_REVOKED: 'LEASE_REVOKED',
  /** The pool was closed. */
  CLOSED: 'CLOSED',
  /** A wasm binary that cannot be parsed, has several or 64-bit or shared memories, or needs more initial pages. */
  BAD_MODULE: 'BAD_MODULE',
  /**
   * A contract through which a reference (funcref, externref or any other reference type) could outlive its
   * execution: an exported function returning one, an imported function, tag or mutable global receiving one, an
   * imported table. Refused by `prepare` (and any reference result by `run`), because a kept guest function writes
   * into its pooled memory after the reset, where the next tenant reads it.
   */
  REFERENCE_ESCAPE: 'REFERENCE_ESCAPE',
} as const;
export type VmMemoryErrorCode = (typeof VmMemoryErrorCode)[keyof typeof VmMemoryErrorCode];

export interface VmMemoryErrorContext {
  /** The option, argument or binary field concerned, e.g. `maximumPages`, `import section` or `export "run"`. */
  readonly field?: string;
  /** Byte offset in a wasm binary. */
  readonly offset?: number;
  /** The reset strategy concerned. */
  readonly strategy?: string;
  readonly cause?: unknown;
}

/**
 * An expected failure; `code` says which, the context says where. A StrataError: every field is read-only and the
 * message, `CODE at offset N field F strategy S: detail`, is built once.
 */
export class VmMemoryError extends StrataError<VmMemoryErrorCode> {
  override readonly name = 'VmMemoryError';
  readonly strategy: string | undefined;

  constructor(code: VmMemoryErrorCode, detail: string, context: VmMemoryErrorContext = {}) {
    super(code, detail, context, context.strategy === undefined ? {} : { where: [`strategy ${context.strategy}`] });
    this.strategy = context.strategy;
  }
}

/** INVALID_ARGUMENT for `field`. */
export function invalidArgument(field: string, detail: string): VmMemoryError {
  return new VmMemoryError('INVALID_ARGUMENT', detail, { field });
}
