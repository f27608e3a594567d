// The checked-in module bytes (src/xxh3-wasm.ts, generated) are exactly what wabt compiles src/xxh3.wat to, so the
// text and the binary cannot drift apart; regenerate with `node scripts/build-wasm.mjs`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import wabtInit from 'wabt';
import { XXH3_WASM_BASE64 } from '../src/xxh3-wasm.js';

it('src/xxh3-wasm.ts holds the wabt compilation of src/xxh3.wat', async () => {
  const wat = readFileSync(fileURLToPath(new URL('../src/xxh3.wat', import.meta.url)), 'utf8');
  const wabt = await wabtInit();
  const module = wabt.parseWat('xxh3.wat', wat);
  try {
    module.validate();
    expect(Buffer.from(module.toBinary({}).buffer).toString('base64')).toBe(XXH3_WASM_BASE64);
  } finally {
    module.destroy();
  }
});
