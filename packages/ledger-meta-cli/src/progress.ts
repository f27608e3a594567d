// Progress reporting for the package's command-line tools: a cli-progress bar when stderr is a terminal, pino JSON
// log lines otherwise (CI, pipes, log collectors), behind one small interface so every CLI reports the same way.
import cliProgress from 'cli-progress';
import { pino } from 'pino';

/** Reports the progress of one job. Call from one place; `finish` (or `abort`) once at the end. */
export interface ProgressReporter {
  /** `done` units are complete; `counters` are the figures named in ProgressOptions.counters. */
  update(done: number, counters?: Record<string, number>): void;
  /** A one-off message (start, summary). */
  info(message: string, fields?: Record<string, unknown>): void;
  /** The job succeeded: the bar's last state stays on screen, the log gets a `done` line with `fields`. */
  finish(fields?: Record<string, unknown>): void;
  /** The job failed: the bar is stopped (its timer too) so the error line that follows starts on a line of its own. */
  abort(): void;
}

export interface ProgressOptions {
  /** What is counted, e.g. "ledgers" or "bytes" (bytes are shown in MiB on the bar). */
  unit: string;
  /** Units in the whole job; undefined when unknown (the bar then shows the count and the time, no percentage). */
  total: number | undefined;
  /** Further figures shown after the main one, each starting at 0 (e.g. `['events']`). */
  counters?: readonly string[];
  /** Force the bar (true) or the log lines (false); default: bar iff `stream` is a TTY. */
  tty?: boolean;
  /** Where the bar or the log lines go (default stderr, so stdout stays free for a tool's data). */
  stream?: NodeJS.WritableStream;
  /** Minimum milliseconds between JSON progress lines (default 1000). */
  logIntervalMs?: number;
}

export function createProgress(options: ProgressOptions): ProgressReporter {
  const stream = options.stream ?? process.stderr;
  const tty = options.tty ?? (stream as { isTTY?: boolean }).isTTY === true;
  return tty ? barProgress(options, stream) : logProgress(options, stream);
}

const MIB = 1024 * 1024;

function barProgress(options: ProgressOptions, stream: NodeJS.WritableStream): ProgressReporter {
  const counters = options.counters ?? [];
  const figures = counters.map((name) => ` | {${name}} ${name}`).join('');
  const format =
    options.total === undefined
      ? `{value} ${options.unit}${figures} | {duration_formatted}`
      : `{bar} {percentage}% | {value}/{total} ${options.unit}${figures} | {eta_formatted} left`;
  const inMib = options.unit === 'bytes';
  const bar = new cliProgress.SingleBar(
    {
      format: inMib ? format.replace(` ${options.unit}`, ' MiB') : format,
      stream: stream as NodeJS.WriteStream,
      hideCursor: true,
      // Bytes as MiB with one decimal; every other figure as it is.
      formatValue: (value, _options, type) =>
        inMib && (type === 'value' || type === 'total') ? (value / MIB).toFixed(1) : String(value),
    },
    cliProgress.Presets.shades_classic,
  );
  const zero = Object.fromEntries(counters.map((name) => [name, 0]));
  bar.start(options.total ?? 0, 0, zero);
  return {
    update: (done, values) => bar.update(done, values),
    info: (message) => stream.write(`${message}\n`),
    finish: () => bar.stop(),
    abort: () => bar.stop(),
  };
}

function logProgress(options: ProgressOptions, stream: NodeJS.WritableStream): ProgressReporter {
  const logger = pino({ base: null }, stream as pino.DestinationStream);
  const interval = options.logIntervalMs ?? 1000;
  const total = options.total === undefined ? {} : { total: options.total };
  let lastLog = Number.NEGATIVE_INFINITY;
  return {
    update: (done, values) => {
      const now = performance.now();
      if (now - lastLog < interval && (options.total === undefined || done < options.total)) return;
      lastLog = now;
      logger.info({ done, ...total, unit: options.unit, ...values }, 'progress');
    },
    info: (message, fields) => logger.info(fields ?? {}, message),
    finish: (fields) => logger.info({ ...fields }, 'done'),
    abort: () => {},
  };
}
