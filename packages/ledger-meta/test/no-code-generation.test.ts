// The package needs no code generation from strings (the schema walker is generated at build time, not compiled with
// `new Function` at load): (1) in a child process started with `node --disallow-code-generation-from-strings`, a
// generated network is written as a record stream and as a data lake, read back, validated and extracted; (2) a
// negative control: in the same kind of child, `new Function` is refused, so the flag is really in force.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { typeScriptExecArgv } from '@strata/bench';
import { describe, expect, it } from 'vitest';
import type { NoCodeGenerationReport } from './no-code-generation-child.js';

const childScript = fileURLToPath(new URL('./no-code-generation-child.ts', import.meta.url));

/** Runs the child under the flag and returns the JSON line it printed last. */
function runChild(...args: string[]): unknown {
  const child = spawnSync(
    process.execPath,
    ['--disallow-code-generation-from-strings', ...typeScriptExecArgv(), childScript, ...args],
    { encoding: 'utf8' },
  );
  expect(child.status, `child exited with ${child.status} (${child.signal}): ${child.stderr}`).toBe(0);
  return JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}');
}

describe('without code generation from strings', () => {
  it('(1) reads, validates and extracts a generated network from a stream and a data lake', () => {
    const report = runChild() as NoCodeGenerationReport;
    expect(report.error).toBeNull();
    expect([report.streamLedgers, report.lakeLedgers]).toEqual([6, 6]);
    expect(report.events).toBeGreaterThan(0);
    expect(report.changes).toBeGreaterThan(0);
  });

  it('(2) negative control: the flag refuses new Function in the child', () => {
    expect(runChild('probe')).toEqual({ refused: true });
  });
});
