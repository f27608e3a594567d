// The built package (dist/, what users import) runs its merges in worker threads loading dist/merge/merge-worker.js, and
// reaches the same list hash as the TypeScript sources with inline merges. The dist run happens in a child process
// without the `strata-source` export condition, so every @strata import there resolves to dist/ as for a user.
// `npm test` builds before testing.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BucketManager } from '../src/bucket-manager.js';
import { listHashAfter } from './support.js';

const distEntry = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const child = fileURLToPath(new URL('./children/dist-run.ts', import.meta.url));
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

describe('built package', () => {
  it('dist/ merges in worker threads and agrees with the sources', async () => {
    expect(existsSync(distEntry), `${distEntry} is missing: run the build (npm test does)`).toBe(true);
    const fromDist = execFileSync(process.execPath, ['--import', tsx, child], { encoding: 'utf8' }).trim();
    const fromSource = await listHashAfter(BucketManager, 'inline');
    expect(fromDist).toMatch(/^[0-9a-f]{64}$/);
    expect(fromDist).toBe(fromSource);
  }, 120_000);
});
