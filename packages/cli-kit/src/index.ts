// @strata/cli-kit: what every Strata command-line tool shares, written once. A commander program that throws
// instead of exiting and prints the tool's own version; `run`, which resolves to the exit code and writes any
// failure as one line on stderr (never a stack trace); strict bounded option parsers; usage errors in the tool's
// own error class; progress as a bar on a terminal or pino JSON lines otherwise, and the logger for a tool's own
// log lines. The tools are the packages' bins (strata-gen, strata-meta, …), each a `main(argv, io)` over these.

export type { Logger } from 'pino';
export { describeError, systemErrorText } from './describe-error.js';
export { CliKitError, CliKitErrorCode } from './errors.js';
export {
  type InvalidArgumentErrorClass,
  integerOption,
  MAX_LEDGER_SEQUENCE,
  type UsageError,
  usageErrorFactory,
} from './options.js';
export {
  type CliIo,
  EXIT_FAILURE,
  EXIT_SUCCESS,
  newProgram,
  type PackageManifest,
  type ProgramVersion,
  packageManifest,
  processIo,
  run,
} from './program.js';
export { createProgress, logger, type ProgressOptions, type ProgressReporter } from './progress.js';
