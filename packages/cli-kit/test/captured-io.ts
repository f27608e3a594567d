// Streams for the tests that collect what a tool writes; `tty` makes stderr claim to be a terminal.
import { PassThrough } from 'node:stream';
import type { CliIo } from '../src/index.js';

/** A PassThrough that keeps everything written to it; `text()` is what was written so far (written synchronously). */
export function capture(tty = false): PassThrough & { isTTY: boolean; text(): string } {
  const chunks: Buffer[] = [];
  const stream = Object.assign(new PassThrough(), { isTTY: tty, text: () => Buffer.concat(chunks).toString('utf8') });
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return stream;
}

/** A CliIo over two captured streams. */
export function capturedIo(tty = false) {
  const stdout = capture();
  const stderr = capture(tty);
  const io: CliIo = { stdout, stderr, tty };
  return { io, stdout, stderr };
}

/** The stderr lines that are not pino log lines: what a tool said to a person. */
export const messageLines = (text: string): string[] =>
  text.split('\n').filter((line) => line !== '' && !line.startsWith('{"level":'));
