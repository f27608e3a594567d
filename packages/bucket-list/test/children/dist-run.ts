// Child of dist.test.ts, run WITHOUT the strata-source condition: every @strata import resolves to dist/, as for a
// user of the published packages. Closes 300 ledgers with worker-thread merges and prints the list hash.
import { withTempDir } from '@strata/test-kit';
import { BucketManager } from '../../dist/index.js';
import { BatchStream } from '../support.js';

const hash = await withTempDir(async (dir) => {
  const stream = new BatchStream(200, 5, 20);
  const manager = await BucketManager.open(dir, { merger: 'workers', fsync: false });
  try {
    for (let ledger = 1; ledger <= 300; ledger++) {
      const { live, hot } = stream.next(ledger, 23);
      await manager.addLedger(ledger, 23, live, hot);
    }
    return manager.bucketListHash();
  } finally {
    await manager.close();
  }
});
process.stdout.write(`${hash}\n`);
