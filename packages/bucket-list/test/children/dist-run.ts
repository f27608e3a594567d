// Child of dist.test.ts, run WITHOUT the strata-source condition: every @strata import resolves to dist/, as for a
// user of the published packages. Closes 300 ledgers with worker-thread merges and prints the list hash.
import { BucketManager } from '../../dist/index.js';
import { listHashAfter } from '../support.js';

process.stdout.write(`${await listHashAfter(BucketManager, 'workers')}\n`);
