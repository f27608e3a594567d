// `query`: ns per `index` of a member key read out of a Buffer, the function's bytes also in a Buffer (target
// ≤ 60 ns p50), for 10 M random 16-byte keys, against the JavaScript alternatives in the same process:
// - Map.get with the hex strings computed beforehand (the Map's best case: no conversion in the timed loop),
// - Map.get including the key-to-hex conversion a caller holding bytes must do,
// - binary search over the keys sorted into one packed array,
// and `lookup` with 16-bit fingerprints against plain `index` (the price of rejecting non-members).
// Each timed call answers 1024 queries from a pool of 16 384 member keys sampled across the key set; the pool is
// small enough to stay in cache, so the figures are the structures' cost, not the pool's.
import { runBench } from '@strata/bench';
import { buildMphf, openMphf } from '../src/index.js';
import { binarySearch, buildHexMap, KEY_COUNT, KEY_SEED, randomKeys, sortKeys } from './data.js';

const n = KEY_COUNT;
const keys = randomKeys(n, KEY_SEED);
const keysBuffer = Buffer.from(keys.buffer, keys.byteOffset, keys.length);
const mphf = openMphf(Buffer.from(buildMphf({ bytes: keys, keyLength: 16 })));
const fingerprinted = openMphf(Buffer.from(buildMphf({ bytes: keys, keyLength: 16 }, { fingerprintBits: 16 })));
const map = buildHexMap(keysBuffer);
const sorted = sortKeys(keys);

const POOL = 16_384;
const BATCH = 1024;
const pool = Buffer.alloc(16 * POOL);
const poolHex: string[] = [];
for (let i = 0; i < POOL; i++) {
  const key = (Math.imul(i, 0x9e3779b1) >>> 0) % n;
  keysBuffer.copy(pool, 16 * i, 16 * key, 16 * key + 16);
  poolHex.push(pool.toString('hex', 16 * i, 16 * i + 16));
}
let cursor = 0;
let sink = 0;
/** The next batch's first pool position; batches walk the pool so consecutive calls query different keys. */
function nextBatch(): number {
  cursor = (cursor + BATCH) % POOL;
  return cursor;
}

const mphfIndex = {
  name: 'Mphf.index(buffer, offset, 16), function bytes in a Buffer',
  fn: () => {
    const first = nextBatch();
    let acc = 0;
    for (let i = first; i < first + BATCH; i++) acc += mphf.index(pool, 16 * i, 16);
    sink += acc;
  },
  opsPerCall: BATCH,
};

await runBench(async (bench) => {
  const note = `${n} random 16-byte keys; 1024 member queries per call from a pool of ${POOL}`;
  await bench.latency('query', {
    subject: mphfIndex,
    baseline: {
      name: 'Map<hex key, slot>.get with the hex key precomputed',
      fn: () => {
        const first = nextBatch();
        let acc = 0;
        for (let i = first; i < first + BATCH; i++) acc += map.get(poolHex[i]!)!;
        sink += acc;
      },
      opsPerCall: BATCH,
    },
    target: { value: 60 },
    note,
  });
  await bench.latency('query.vs-map-with-hex', {
    subject: mphfIndex,
    baseline: {
      name: 'Map<hex key, slot>.get(buffer.toString("hex", offset, offset + 16))',
      fn: () => {
        const first = nextBatch();
        let acc = 0;
        for (let i = first; i < first + BATCH; i++) acc += map.get(pool.toString('hex', 16 * i, 16 * i + 16))!;
        sink += acc;
      },
      opsPerCall: BATCH,
    },
    note: `${note}; the baseline includes the bytes-to-hex conversion`,
  });
  await bench.latency('query.vs-binary-search', {
    subject: mphfIndex,
    baseline: {
      name: 'binary search over the sorted packed keys',
      fn: () => {
        const first = nextBatch();
        let acc = 0;
        for (let i = first; i < first + BATCH; i++) acc += binarySearch(sorted, pool, 16 * i);
        sink += acc;
      },
      opsPerCall: BATCH,
    },
    note,
  });
  await bench.latency('lookup.fingerprint16', {
    subject: {
      name: 'Mphf.lookup with 16-bit fingerprints',
      fn: () => {
        const first = nextBatch();
        let acc = 0;
        for (let i = first; i < first + BATCH; i++) acc += fingerprinted.lookup(pool, 16 * i, 16);
        sink += acc;
      },
      opsPerCall: BATCH,
    },
    baseline: mphfIndex,
    note: `${note}; member keys, so every fingerprint is read and matches`,
  });
  if (sink === 0) console.log('');
});
