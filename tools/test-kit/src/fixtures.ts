// Where the shared real-data fixtures live, and how a suite that needs them skips (with the reason in its name)
// when they are absent. Tests read fixtures in place; they are never copied into the repo.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'vitest';

/** The fixtures folder: `$STRATA_FIXTURES` if set, else `../shared/fixtures` beside the checkout. */
export function fixturesDir(): string {
  const fromEnv = process.env.STRATA_FIXTURES;
  if (fromEnv !== undefined && fromEnv !== '') return resolve(fromEnv);
  // tools/test-kit/src → checkout root → its sibling `shared/`.
  return resolve(import.meta.dirname, '../../../../shared/fixtures');
}

/** Absolute path of a fixture file or folder, e.g. `fixturePath('stellar-core-lcm', 'MergeTests')`. */
export function fixturePath(...parts: string[]): string {
  return join(fixturesDir(), ...parts);
}

/** Why a suite needing these fixture paths cannot run, or undefined when they are all present. */
export function fixturesMissingReason(...paths: string[][]): string | undefined {
  const missing = paths.map((parts) => fixturePath(...parts)).filter((path) => !existsSync(path));
  if (missing.length === 0) return undefined;
  return `fixtures not found: ${missing.join(', ')} (set STRATA_FIXTURES to the shared fixtures folder)`;
}

/**
 * A `describe` that runs when every listed fixture path exists and is otherwise skipped, with the reason in
 * the suite's name so a skipped run says why.
 */
export function describeWithFixtures(name: string, paths: string[][], body: () => void): void {
  const reason = fixturesMissingReason(...paths);
  if (reason === undefined) describe(name, body);
  // The body is not run: it may read the missing fixtures while it collects its tests.
  else describe.skip(`${name} [skipped: ${reason}]`, () => it.skip('needs the fixtures', () => undefined));
}

/**
 * Every stellar-core LedgerCloseMeta stream in the fixtures (`stellar-core-lcm/<Group>/<hex>.xdr`), sorted by group
 * and name so every run reads them in the same order.
 */
export function lcmFixtureStreams(): string[] {
  const root = fixturePath('stellar-core-lcm');
  const files: string[] = [];
  for (const group of readdirSync(root).sort()) {
    const dir = join(root, group);
    if (!statSync(dir).isDirectory()) continue;
    for (const name of readdirSync(dir).sort()) if (name.endsWith('.xdr')) files.push(join(dir, name));
  }
  return files;
}
