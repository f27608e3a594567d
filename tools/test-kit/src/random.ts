// A small seeded PRNG for tests and benchmarks whose inputs must be the same on every run (and replayable from the
// seed a failure prints). Not for anything security-related.

/** mulberry32: a fast 32-bit generator; returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
