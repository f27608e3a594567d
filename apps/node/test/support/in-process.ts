// The `strata` command in-process: main() with captured streams, and what it said to a person (the stderr lines
// that are not pino JSON log lines).
import { Writable } from 'node:stream';
import type { CliIo } from '@strata/cli-kit';
import { main } from '../../src/cli.js';

export async function strata(...args: string[]): Promise<{ code: number; stdout: string; said: string[] }> {
  const text = { stdout: '', stderr: '' };
  const collect = (key: keyof typeof text) =>
    new Writable({
      write(chunk, _encoding, done) {
        text[key] += chunk;
        done();
      },
    });
  const io: CliIo = { stdout: collect('stdout'), stderr: collect('stderr'), tty: false };
  const code = await main(['node', 'strata', ...args], io);
  const said = text.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('{'));
  return { code, stdout: text.stdout, said };
}
