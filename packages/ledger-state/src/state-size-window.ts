// CONFIG_SETTING_LIVE_SOROBAN_STATE_SIZE_WINDOW: every `liveSorobanStateSizeWindowSamplePeriod` ledgers stellar-core
// drops the oldest sample and appends the Soroban state size of the previous ledger (spec ledger-state-replay.md
// §3.5; NetworkConfig.cpp `maybeSnapshotSorobanStateSize`). The entry is written by stellar-core itself, not carried
// by any meta, so a replay must add it.
import { assert } from '@strata/base';
import { readU32 } from '@strata/ledger-key';

/** The samples of a LIVE_SOROBAN_STATE_SIZE_WINDOW arm (`uint64 window<>`). */
export function decodeStateSizeWindow(body: Uint8Array): bigint[] {
  const count = readU32(body, 0);
  assert(body.length === 4 + 8 * count, 'a state-size window of count samples');
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  return Array.from({ length: count }, (_, i) => view.getBigUint64(4 + 8 * i));
}

/** The arm of a window holding `samples`. */
export function encodeStateSizeWindow(samples: readonly bigint[]): Uint8Array {
  const body = new Uint8Array(4 + 8 * samples.length);
  const view = new DataView(body.buffer);
  view.setUint32(0, samples.length);
  samples.forEach((sample, i) => {
    view.setBigUint64(4 + 8 * i, sample);
  });
  return body;
}

/** The window after one sample: shifted by one, `size` appended (the window is never empty). */
export function shiftStateSizeWindow(body: Uint8Array, size: bigint): Uint8Array {
  const samples = decodeStateSizeWindow(body);
  assert(samples.length > 0, 'a non-empty state-size window');
  samples.shift();
  samples.push(size);
  return encodeStateSizeWindow(samples);
}
