// The one error class of @strata/cli-kit: a tool passed cli-kit something its signature does not allow (a bound that
// is not a whole number, a progress total below zero, streams that are not writable), or its package.json cannot give
// a version. The tools' own failures stay their packages' errors; cli-kit only reports them (describeError).
import { StrataError } from '@strata/base';

/** Stable error codes. New codes may be added; existing ones keep their meaning. */
export const CliKitErrorCode = {
  /** A bad argument from the calling tool (not from its user's command line); `field` names it. */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  /** The tool's package.json cannot be found or read, or has no string `name` and `version`; `file` names it. */
  BAD_MANIFEST: 'BAD_MANIFEST',
} as const;
export type CliKitErrorCode = (typeof CliKitErrorCode)[keyof typeof CliKitErrorCode];

/** Every error cli-kit throws for bad input; bugs are `assert` failures (@strata/base) instead. */
export class CliKitError extends StrataError<CliKitErrorCode> {
  override readonly name = 'CliKitError';
}

/** INVALID_ARGUMENT naming `field`. */
export function invalidArgument(field: string, detail: string): CliKitError {
  return new CliKitError(CliKitErrorCode.INVALID_ARGUMENT, detail, { field });
}
