// The built package (dist/, what users import) runs its merges in worker threads loading dist/merge/merge-worker.js, and
// reaches the same list hash as the TypeScript sources with inline merges; it writes large buckets through its
// write-behind helper thread (dist/write-behind-helper.js), byte for byte as the sources write them inline. The dist run happens in a child process
// without the `strata-source` export condition, so every @strata import there resolves to dist/ as for a user.
// `npm test` builds before testing.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { withTempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { writeBucket } from '../src/bucket-file.js';
import { BucketManager } from '../src/bucket-manager.js';
import { freshLiveEntries } from '../src/merge/bucket-merge.js';
import { distWriteBehindBatch } from './children/dist-write-behind-batch.js';
import { listHashAfter } from './support.js';

const distEntry = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const child = fileURLToPath(new URL('./children/dist-run.ts', import.meta.url));
const writeBehindChild = fileURLToPath(new URL('./children/dist-write-behind.ts', import.meta.url));
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

describe('built package', () => {
  it('dist/ merges in worker threads and agrees with the sources', async () => {
    expect(existsSync(distEntry), `${distEntry} is missing: run the build (npm test does)`).toBe(true);
    const fromDist = execFileSync(process.execPath, ['--import', tsx, child], { encoding: 'utf8' }).trim();
    const fromSource = await listHashAfter(BucketManager, 'inline');
    expect(fromDist).toMatch(/^[0-9a-f]{64}$/);
    expect(fromDist).toBe(fromSource);
  }, 120_000);

  it('dist/ hashes and writes a large bucket on its write-behind helper thread, as the sources do inline', async () => {
    expect(existsSync(distEntry), `${distEntry} is missing: run the build (npm test does)`).toBe(true);
    const [hash, onDisk] = execFileSync(process.execPath, ['--import', tsx, writeBehindChild], { encoding: 'utf8' })
      .trim()
      .split(' ');
    const inline = await withTempDir((dir) =>
      writeBucket(dir, 'live', 23, freshLiveEntries(23, distWriteBehindBatch()), { fsync: false, writeBehind: false }),
    );
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(onDisk).toBe(hash);
    expect(hash).toBe(inline.hash);
  }, 120_000);
});
