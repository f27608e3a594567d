// Progress and logs. Properties:
// 1. on a stream that is not a terminal, progress is pino JSON lines: `progress` lines with done, total, unit and
//    the counters (the first update and the last unit always, others at most once per logIntervalMs), then a
//    `done` line with the fields passed to finish; no pid or hostname; nothing else on the stream;
// 2. without a total there is no `total` field and the last line is the `done` line;
// 3. on a terminal (isTTY) the default is the bar: percentage, value/total, unit, counters; bytes are shown in MiB;
// 4. `tty: true` forces the bar onto any stream, as plain lines; `tty: false` forces log lines onto a terminal;
// 5. a job without a total shows the count and the elapsed time instead of a percentage;
// 6. abort stops the bar so that what follows starts on a line of its own;
// 7. logger writes the same JSON lines for a tool's own messages.
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createProgress, logger } from '../src/index.js';
import { capture } from './captured-io.js';

interface LogLine {
  level: number;
  time: number;
  msg: string;
  [field: string]: unknown;
}

/** Each line of `text` parsed as JSON: every line progress and logger write is one. */
const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line): LogLine => JSON.parse(line));

describe('progress without a terminal', () => {
  it('1. logs JSON lines: the first and the last unit, a done line with the fields of finish', () => {
    const stream = capture();
    // An interval no test run reaches: only the first update and the one that completes the job are logged.
    const progress = createProgress({ unit: 'ledgers', total: 5, counters: ['events'], stream, logIntervalMs: 1e9 });
    progress.info('starting', { seed: '1' });
    for (let done = 1; done <= 5; done++) progress.update(done, { events: done * 10 });
    progress.finish({ ledgers: 5, events: 50 });
    const lines = jsonLines(stream.text());
    expect(lines.map(({ level, time, ...fields }) => fields)).toEqual([
      { msg: 'starting', seed: '1' },
      { msg: 'progress', done: 1, total: 5, unit: 'ledgers', events: 10 },
      { msg: 'progress', done: 5, total: 5, unit: 'ledgers', events: 50 },
      { msg: 'done', ledgers: 5, events: 50 },
    ]);
    for (const line of lines) {
      expect(line.level).toBe(30);
      expect(typeof line.time).toBe('number');
      expect(line).not.toHaveProperty('pid');
      expect(line).not.toHaveProperty('hostname');
    }
  });

  it('1. logs every update with an interval of 0', () => {
    const stream = capture();
    const progress = createProgress({ unit: 'bytes', total: 300, stream, logIntervalMs: 0 });
    for (const done of [100, 200, 300]) progress.update(done);
    progress.finish();
    expect(jsonLines(stream.text()).map((line) => [line.msg, line.done])).toEqual([
      ['progress', 100],
      ['progress', 200],
      ['progress', 300],
      ['done', undefined],
    ]);
  });

  it('2. has no total field when the total is unknown', () => {
    const stream = capture();
    const progress = createProgress({ unit: 'ledgers', total: undefined, stream, logIntervalMs: 1e9 });
    for (let done = 1; done <= 3; done++) progress.update(done);
    progress.abort();
    progress.finish({ ledgers: 3 });
    const lines = jsonLines(stream.text());
    expect(lines.map(({ level, time, ...fields }) => fields)).toEqual([
      { msg: 'progress', done: 1, unit: 'ledgers' },
      { msg: 'done', ledgers: 3 },
    ]);
  });
});

describe('progress as a bar', () => {
  it('3. draws a bar on a terminal by default, with the counters', () => {
    const stream = capture(true);
    const progress = createProgress({ unit: 'ledgers', total: 10, counters: ['events', 'lines'], stream });
    progress.update(10, { events: 5, lines: 7 });
    progress.finish();
    const text = stripVTControlCharacters(stream.text());
    expect(text).toMatch(/[█░]{10,} 100% \| 10\/10 ledgers \| 5 events \| 7 lines \| 0s left/);
    expect(stream.text()).not.toContain('{"level"');
  });

  it('3. shows bytes in MiB', () => {
    const stream = capture(true);
    const progress = createProgress({ unit: 'bytes', total: 3 * 1024 * 1024, stream });
    progress.update(1.5 * 1024 * 1024);
    progress.finish();
    expect(stripVTControlCharacters(stream.text())).toMatch(/ 50% \| 1\.5\/3\.0 MiB \|/);
  });

  it('4. tty: true forces the bar onto a stream that is not a terminal, as lines; tty: false forces the log', () => {
    const stream = capture(false);
    const progress = createProgress({ unit: 'ledgers', total: 4, counters: ['events'], tty: true, stream });
    progress.update(4, { events: 2 });
    progress.finish();
    const text = stream.text();
    expect(text).toBe(stripVTControlCharacters(text));
    expect(text.endsWith(' left\n') && !text.includes('\n\n'), JSON.stringify(text)).toBe(true);
    const lines = text.split('\n').filter((line) => line !== '');
    expect(lines[0]).toMatch(/ 0% \| 0\/4 ledgers \| 0 events \|/);
    expect(lines.at(-1)).toMatch(/[█] 100% \| 4\/4 ledgers \| 2 events \| 0s left/);

    const terminal = capture(true);
    const logged = createProgress({ unit: 'ledgers', total: 4, tty: false, stream: terminal });
    logged.update(4);
    logged.finish();
    expect(jsonLines(terminal.text()).map((line) => line.msg)).toEqual(['progress', 'done']);
  });

  it('5. shows the count and the time without a total', () => {
    const stream = capture(true);
    const progress = createProgress({ unit: 'ledgers', total: undefined, counters: ['lines'], stream });
    progress.update(12, { lines: 30 });
    progress.finish();
    const text = stripVTControlCharacters(stream.text());
    expect(text).toMatch(/12 ledgers \| 30 lines \| \d+s/);
    expect(text).not.toContain('%');
  });

  it('6. abort stops the bar, so the next line starts on its own', () => {
    const stream = capture(true);
    const progress = createProgress({ unit: 'ledgers', total: 10, stream });
    progress.update(3);
    progress.abort();
    stream.write('tool: it failed\n');
    expect(stripVTControlCharacters(stream.text())).toMatch(/ 30% \| 3\/10 ledgers \|[^\n]*\ntool: it failed\n$/);
  });
});

describe('logger', () => {
  it('7. writes JSON lines without pid or hostname', () => {
    const stream = capture();
    const log = logger(stream);
    log.info({ ledger: 7 }, 'applied');
    log.warn('slow');
    log.debug('not shown');
    const lines = jsonLines(stream.text());
    expect(lines.map(({ time, ...fields }) => fields)).toEqual([
      { level: 30, msg: 'applied', ledger: 7 },
      { level: 40, msg: 'slow' },
    ]);
  });
});
