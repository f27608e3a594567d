// The checked-in module bytes (src/merge-loop-wasm.ts, generated) are exactly what wabt compiles src/merge-loop.wat
// to, so the text and the binary cannot drift apart; regenerate with `node scripts/build-wasm.mjs`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import wabtInit from 'wabt';
import { MERGE_LOOP_WASM_BASE64 } from '../src/merge-loop-wasm.js';

it('src/merge-loop-wasm.ts holds the wabt compilation of src/merge-loop.wat', async () => {
  const wat = readFileSync(fileURLToPath(new URL('../src/merge-loop.wat', import.meta.url)), 'utf8');
  const wabt = await wabtInit();
  const module = wabt.parseWat('merge-loop.wat', wat, { bulk_memory: true });
  try {
    module.validate();
    expect(Buffer.from(module.toBinary({}).buffer).toString('base64')).toBe(MERGE_LOOP_WASM_BASE64);
  } finally {
    module.destroy();
  }
});
