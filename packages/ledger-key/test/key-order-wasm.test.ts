// The checked-in module (src/key-order-wasm.ts, generated) is exactly what strata-wasm-build makes of
// src/key-order.wat now, so the text and the shipped bytes cannot drift apart; regenerate with `pnpm build:wasm`.
import { expectWasmModuleInSync } from '@strata/test-kit';
import { it } from 'vitest';

it('src/key-order-wasm.ts is the current build of src/key-order.wat', async () => {
  await expectWasmModuleInSync(new URL('../src/key-order.wat', import.meta.url));
});
