// Child of dist.test.ts, run WITHOUT the strata-source condition, so the bucket is written by dist/: the bucket of
// distWriteBehindBatch() (about 2 MiB, more than one write-behind chunk) with write-behind forced on, i.e. hashed
// and written by dist/write-behind-helper.js on a helper thread. Prints the bucket's hash and the SHA-256 of its
// bytes as read back.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { withTempDir } from '@strata/test-kit';
import { freshLiveEntries, writeBucket } from '../../dist/index.js';
import { distWriteBehindBatch } from './dist-write-behind-batch.js';

await withTempDir((dir) => {
  const file = writeBucket(dir, 'live', 23, freshLiveEntries(23, distWriteBehindBatch()), {
    fsync: false,
    writeBehind: true,
  });
  const onDisk = createHash('sha256').update(readFileSync(file.path!)).digest('hex');
  process.stdout.write(`${file.hash} ${onDisk}\n`);
});
