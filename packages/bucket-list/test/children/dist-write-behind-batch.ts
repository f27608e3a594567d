// The batch dist-write-behind.ts writes from dist/ and dist.test.ts writes from the sources, to compare the two.
import { poolEntry } from '../support.js';

/** 20 000 live entries: a bucket of about 2 MiB, two write-behind chunks and a part. */
export function distWriteBehindBatch(): { init: Uint8Array[]; live: Uint8Array[]; dead: Uint8Array[] } {
  return { init: [], live: Array.from({ length: 20_000 }, (_, n) => poolEntry(n, 1)), dead: [] };
}
