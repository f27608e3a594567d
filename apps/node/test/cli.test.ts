// The `strata` command in-process (main with captured streams). Checks:
// 1. --version prints the package version, --help lists the commands, on every command;
// 2. usage errors are one line naming the option (bad --from, --to below --from), exit code 1 or commander's;
// 3. inspect of a directory without node.json is one BAD_DATA_DIR line.
import { tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import manifest from '../package.json' with { type: 'json' };
import { strata } from './support/in-process.js';

describe('strata CLI', () => {
  it('prints its version and help', async () => {
    expect(await strata('--version')).toMatchObject({ code: 0, stdout: `${manifest.version}\n` });
    const help = await strata('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/ingest/);
    expect(help.stdout).toMatch(/inspect/);
    const ingestHelp = await strata('ingest', '--help');
    expect(ingestHelp.stdout).toMatch(/--data-dir/);
    expect(ingestHelp.stdout).toMatch(/--network-passphrase/);
    expect((await strata('inspect', '--help')).stdout).toMatch(/--json/);
  });

  it('reports usage errors as one line naming the option', async () => {
    const bad = await strata('ingest', '--source', 'x', '--from', '1e3');
    expect(bad.code).not.toBe(0);
    expect(bad.said).toEqual([expect.stringMatching(/^strata: .*--from.*whole number/)]);
    const reversed = await strata('ingest', '--source', 'x', '--from', '9', '--to', '3');
    expect(reversed).toMatchObject({ code: 1, said: ['strata: --to 3 is below --from 9'] });
    const missing = await strata('ingest');
    expect(missing.said).toEqual([expect.stringMatching(/^strata: .*--source/)]);
  });

  it('refuses to inspect a directory that is not a data directory', async () => {
    const result = await strata('inspect', '--data-dir', tempDir('node-cli'));
    expect(result.code).toBe(1);
    expect(result.said).toEqual([expect.stringMatching(/^strata: BAD_DATA_DIR in .*: no node\.json/)]);
  });
});
