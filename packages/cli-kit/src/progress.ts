// Progress and structured logs for the command-line tools: a cli-progress bar when the stream is a terminal, pino
// JSON lines otherwise (CI, pipes, log collectors), behind one small interface so every tool reports the same way;
// and the pino logger itself (`logger`), for a tool's own log lines in the same format.
import { describeValue } from '@strata/base';
import cliProgress from 'cli-progress';
import { type DestinationStream, type Logger, pino } from 'pino';
import { checkObject, checkOptionalBoolean, checkString, checkWritable } from './arguments.js';
import { invalidArgument } from './errors.js';

/**
 * Reports the progress of one job. Call it from one place (the job's own loop); `finish` or `abort` once at the end.
 * Nothing it writes is durable or read back: it is for a person or a log collector watching.
 */
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
  /** Further figures shown after the main one, each starting at 0 (e.g. `['events']`): identifiers. */
  counters?: readonly string[];
  /**
   * Force the bar (true) or the log lines (false); default: bar iff `stream` is a TTY. A bar on a stream that is not
   * a terminal is written as plain lines (at the start, every 2 s, at the end) instead of being redrawn in place.
   */
  tty?: boolean;
  /** Where the bar or the log lines go (default stderr, so stdout stays free for a tool's data). */
  stream?: NodeJS.WritableStream;
  /** Minimum milliseconds between JSON progress lines (default 1000; the last unit done is always logged). */
  logIntervalMs?: number;
}

/** The names cli-progress's format and the log line already use: a counter may not take one. */
const RESERVED_COUNTERS = new Set([
  'bar',
  'value',
  'total',
  'percentage',
  'eta',
  'eta_formatted',
  'duration',
  'duration_formatted',
  'done',
  'unit',
  'level',
  'time',
  'msg',
]);

/** A counter name: an identifier, so it can stand in a cli-progress format `{name}` and as a JSON key. */
const COUNTER_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

const isTerminal = (stream: NodeJS.WritableStream): boolean => (stream as { isTTY?: boolean }).isTTY === true;

/** A progress reporter: a bar on `stream` when it is a terminal (or `tty` is true), JSON log lines otherwise. */
export function createProgress(options: ProgressOptions): ProgressReporter {
  const checked = checkProgressOptions(options);
  const tty = checked.tty ?? isTerminal(checked.stream);
  return tty ? barProgress(checked) : logProgress(checked);
}

/**
 * A pino logger writing JSON lines to `stream` (default stderr) at level info and above, without pid or hostname
 * (`base: null`): `{"level":30,"time":…,"msg":…, …fields}`. Progress log lines have the same form.
 */
export function logger(stream: NodeJS.WritableStream = process.stderr): Logger {
  checkWritable(stream, 'stream');
  return pino({ base: null }, stream as DestinationStream);
}

interface CheckedOptions {
  unit: string;
  total: number | undefined;
  counters: readonly string[];
  tty: boolean | undefined;
  stream: NodeJS.WritableStream;
  logIntervalMs: number;
}

function checkProgressOptions(options: unknown): CheckedOptions {
  const fields = checkObject(options, 'options');
  const unit = checkString(fields.unit, 'options.unit');
  const { total, counters = [], logIntervalMs = 1000 } = fields;
  if (total !== undefined && !(typeof total === 'number' && Number.isSafeInteger(total) && total >= 0)) {
    throw invalidArgument('options.total', `must be a whole number or undefined, got ${describeValue(total)}`);
  }
  if (
    !Array.isArray(counters) ||
    !counters.every((name) => typeof name === 'string' && COUNTER_NAME.test(name) && !RESERVED_COUNTERS.has(name))
  ) {
    throw invalidArgument(
      'options.counters',
      `must be an array of identifiers other than ${[...RESERVED_COUNTERS].join(', ')}, got ${describeValue(counters)}`,
    );
  }
  if (!(typeof logIntervalMs === 'number' && logIntervalMs >= 0 && logIntervalMs < Number.POSITIVE_INFINITY)) {
    throw invalidArgument('options.logIntervalMs', `must be a number ≥ 0, got ${describeValue(logIntervalMs)}`);
  }
  return {
    unit,
    total,
    counters: counters as readonly string[],
    tty: checkOptionalBoolean(fields.tty, 'options.tty'),
    stream: fields.stream === undefined ? process.stderr : checkWritable(fields.stream, 'options.stream'),
    logIntervalMs,
  };
}

const MIB = 1024 * 1024;

function barProgress(options: CheckedOptions): ProgressReporter {
  const { unit, total, counters, stream } = options;
  const figures = counters.map((name) => ` | {${name}} ${name}`).join('');
  const format =
    total === undefined
      ? `{value} ${unit}${figures} | {duration_formatted}`
      : `{bar} {percentage}% | {value}/{total} ${unit}${figures} | {eta_formatted} left`;
  const inMib = unit === 'bytes';
  const terminal = isTerminal(stream);
  const bar = new cliProgress.SingleBar(
    {
      format: inMib ? format.replace(` ${unit}`, ' MiB') : format,
      stream: stream as NodeJS.WriteStream,
      hideCursor: true,
      // A bar forced onto a stream that is not a terminal (a file, a pipe, a test's PassThrough): cli-progress
      // would draw nothing there, so it writes the bar as a new line at the start, every 2 s and at the end. (Its
      // clear-on-complete is a no-op there; it only keeps stop() from adding an empty line after the last one.)
      noTTYOutput: !terminal,
      clearOnComplete: !terminal,
      // Bytes as MiB with one decimal; every other figure as it is.
      formatValue: (value, _options, type) =>
        inMib && (type === 'value' || type === 'total') ? (value / MIB).toFixed(1) : String(value),
    },
    cliProgress.Presets.shades_classic,
  );
  const zero = Object.fromEntries(counters.map((name) => [name, 0]));
  bar.start(total ?? 0, 0, zero);
  return {
    update: (done, values) => bar.update(done, values),
    info: (message) => stream.write(`${message}\n`),
    finish: () => bar.stop(),
    abort: () => bar.stop(),
  };
}

function logProgress(options: CheckedOptions): ProgressReporter {
  const { unit, total, stream, logIntervalMs } = options;
  const log = logger(stream);
  const totalField = total === undefined ? {} : { total };
  let lastLog = Number.NEGATIVE_INFINITY;
  return {
    update: (done, values) => {
      const now = performance.now();
      if (now - lastLog < logIntervalMs && (total === undefined || done < total)) return;
      lastLog = now;
      log.info({ done, ...totalField, unit, ...values }, 'progress');
    },
    info: (message, fields) => log.info(fields ?? {}, message),
    finish: (fields) => log.info({ ...fields }, 'done'),
    abort: () => {},
  };
}
