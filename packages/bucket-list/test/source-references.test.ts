// Comments and docs that name a file of this package must name one that exists (issue 15: schedule.ts pointed
// readers at a "bucket-list.ts" that never existed). Every `name.ts` / `.js` / `.mjs` / `.wat` mentioned in a comment
// under src/, test/, bench/ and scripts/, or anywhere in README.md and FORMAT.md, must be a file of the package
// (`.js` also matches the `.ts` it is compiled from); names with a directory must resolve from the package root or
// from the mentioning file. Import specifiers are checked by the compiler, not here; this file, which has to name
// missing files to test the check, is left out.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const SOURCE_DIRS = ['src', 'test', 'bench', 'scripts'];
const FILE_NAME = /(?:[\w.-]+\/)*[\w.-]+\.(?:ts|js|mjs|wat)\b/g;

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const self = fileURLToPath(import.meta.url);
const files = SOURCE_DIRS.filter((dir) => existsSync(join(root, dir))).flatMap((dir) => walk(join(root, dir)));
const names = new Set(files.map((path) => basename(path)));

/** The comment text of a source file (line comments, block comments, .wat `;;` comments), one entry per line. */
function commentLines(path: string): [line: number, text: string][] {
  const out: [number, string][] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const trimmed = line.trim();
      const at = trimmed.startsWith('*') || trimmed.startsWith('/*') ? 0 : line.search(/\/\/|;;/);
      if (at >= 0 && !/^\s*(import|export) .* from '/.test(line))
        out.push([i + 1, trimmed.startsWith('*') ? trimmed : line.slice(at)]);
    });
  return out;
}

function exists(mentioned: string, from: string): boolean {
  const candidates = mentioned.endsWith('.js') ? [mentioned, mentioned.replace(/\.js$/, '.ts')] : [mentioned];
  return candidates.some((candidate) =>
    candidate.includes('/')
      ? existsSync(join(root, candidate)) || existsSync(join(dirname(from), candidate)) || candidate.startsWith('dist/')
      : names.has(candidate),
  );
}

describe('file names in comments and docs', () => {
  it('every file a comment or doc names exists in the package', () => {
    const missing: string[] = [];
    const sources: [string, [number, string][]][] = [
      ...files
        .filter((path) => /\.(ts|mjs|wat)$/.test(path) && path !== self)
        .map((path): [string, [number, string][]] => [path, commentLines(path)]),
      ...['README.md', 'FORMAT.md'].map((doc): [string, [number, string][]] => [
        join(root, doc),
        readFileSync(join(root, doc), 'utf8')
          .split('\n')
          .map((text, i): [number, string] => [i + 1, text]),
      ]),
    ];
    for (const [path, lines] of sources) {
      for (const [line, text] of lines) {
        for (const mentioned of text.match(FILE_NAME) ?? []) {
          if (!exists(mentioned, path)) missing.push(`${relative(root, path)}:${line} names ${mentioned}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('negative control: a made-up name is reported', () => {
    expect(exists('bucket-list.ts', join(root, 'src', 'schedule.ts'))).toBe(false);
    expect(exists('schedule.ts', join(root, 'src', 'levels.ts'))).toBe(true);
    expect(exists('../src/merge/bucket-merge.js', join(root, 'test', 'merge.test.ts'))).toBe(true);
  });
});
