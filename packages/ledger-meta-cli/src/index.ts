// @strata/ledger-meta-cli: the strata-gen and strata-meta command-line tools over @strata/ledger-meta. The bins run
// `main`; the same commands are callable from code (tests, scripts) with their output streams passed in as a CliIo.
// Each `main` resolves to an exit code (0, or 1 after one line on stderr) and never calls process.exit itself,
// except strata-meta on EPIPE of the real stdout (a reader that went away, as with `| head`).

export type { CliIo, ProgressReporter } from '@strata/cli-kit';
export { EXIT_FAILURE, EXIT_SUCCESS } from '@strata/cli-kit';
export type { GenerateCommandOptions, GenerateSummary } from './strata-gen.js';
export {
  MAX_EVENTS_PER_BATCH,
  main as strataGenMain,
  runGenerate,
  STRATA_GEN_LIMITS,
  STREAM_FILE_NAME,
} from './strata-gen.js';
export type { LineSink, PrintOptions } from './strata-meta.js';
export { main as strataMetaMain, printChanges, printEvents } from './strata-meta.js';
