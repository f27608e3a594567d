// The checked-in module bytes (src/key-order-wasm.ts, generated) are exactly what wabt compiles src/key-order.wat
// to, so the text and the binary cannot drift apart; regenerate with `node scripts/build-wasm.mjs`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import wabtInit from 'wabt';
import { KEY_ORDER_WASM_BASE64 } from '../src/key-order-wasm.js';

it('src/key-order-wasm.ts holds the wabt compilation of src/key-order.wat', async () => {
  const wat = readFileSync(fileURLToPath(new URL('../src/key-order.wat', import.meta.url)), 'utf8');
  const wabt = await wabtInit();
  const module = wabt.parseWat('key-order.wat', wat);
  try {
    module.validate();
    expect(Buffer.from(module.toBinary({}).buffer).toString('base64')).toBe(KEY_ORDER_WASM_BASE64);
  } finally {
    module.destroy();
  }
});
