// Progress reporting for the package's command-line tools: a cli-progress bar when stderr is a terminal, pino JSON
// log lines otherwise (CI, pipes, log collectors), behind one small interface so every CLI reports the same way.
import cliProgress from 'cli-progress';
import { pino } from 'pino';

/** Reports the progress of one job. Call from one place; `finish` once at the end. */
export interface ProgressReporter {
  /** `done` units of `total` are complete; `fields` are extra figures (events, bytes) for the line or log. */
  update(done: number, fields?: Record<string, number>): void;
  /** A one-off message (start, summary). */
  info(message: string, fields?: Record<string, unknown>): void;
  finish(fields?: Record<string, unknown>): void;
}

export interface ProgressOptions {
  /** What is counted, e.g. "ledgers". */
  unit: string;
  total: number;
  /** Force the bar (true) or the log lines (false); default: bar iff stderr is a TTY. */
  tty?: boolean;
  /** Minimum milliseconds between JSON progress lines (default 1000). */
  logIntervalMs?: number;
}

export function createProgress(options: ProgressOptions): ProgressReporter {
  const tty = options.tty ?? process.stderr.isTTY === true;
  return tty ? barProgress(options) : logProgress(options);
}

function barProgress(options: ProgressOptions): ProgressReporter {
  const bar = new cliProgress.SingleBar(
    {
      format: `{bar} {percentage}% | {value}/{total} ${options.unit} | {events} events | {eta_formatted} left`,
      stream: process.stderr,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(options.total, 0, { events: 0 });
  return {
    update: (done, fields) => bar.update(done, fields),
    info: (message) => process.stderr.write(`${message}\n`),
    finish: () => bar.stop(),
  };
}

function logProgress(options: ProgressOptions): ProgressReporter {
  // pino writes to stderr so stdout stays free for a tool's data output.
  const logger = pino({ base: null }, pino.destination(2));
  const interval = options.logIntervalMs ?? 1000;
  let lastLog = 0;
  return {
    update: (done, fields) => {
      const now = performance.now();
      if (now - lastLog < interval && done < options.total) return;
      lastLog = now;
      logger.info({ done, total: options.total, unit: options.unit, ...fields }, 'progress');
    },
    info: (message, fields) => logger.info(fields ?? {}, message),
    finish: (fields) => logger.info({ ...fields }, 'done'),
  };
}
