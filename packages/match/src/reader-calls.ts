// How the engine and the pager report what goes wrong below them: a source or reader call that throws becomes
// READER_FAILED with the error as `cause` (never swallowed); an answer outside the EventChunkSource / ChunkReader
// contract is STORE_INCONSISTENT; the engine's own MatchErrors (and assertion failures, which are bugs) pass through
// the pager unchanged.
import { AssertionError } from '@strata/base';
import { MatchError, MatchErrorCode } from './errors.js';

/** STORE_INCONSISTENT, naming the chunk when there is one. */
export function storeInconsistent(detail: string, chunkId: number | undefined, cause?: unknown): never {
  const context: { chunkId?: number; cause?: unknown } = {};
  if (chunkId !== undefined) context.chunkId = chunkId;
  if (cause !== undefined) context.cause = cause;
  throw new MatchError(MatchErrorCode.STORE_INCONSISTENT, detail, context);
}

function readerFailed(call: string, chunkId: number | undefined, cause: unknown): MatchError {
  return new MatchError(
    MatchErrorCode.READER_FAILED,
    `${call} failed`,
    chunkId === undefined ? { cause } : { cause, chunkId },
  );
}

/** Runs one source or reader call (sync or async); whatever it throws becomes READER_FAILED with it as `cause`. */
export async function readerCall<T>(call: string, chunkId: number | undefined, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw readerFailed(call, chunkId, error);
  }
}

/** An error out of the engine's walk: its MatchErrors and assertion failures as they are, anything else wrapped. */
export function engineFailure(chunkId: number, error: unknown): unknown {
  if (error instanceof MatchError || error instanceof AssertionError) return error;
  return readerFailed('matchEvents', chunkId, error);
}
