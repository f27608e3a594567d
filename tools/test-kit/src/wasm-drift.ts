// The wasm drift test every package with a .wat runs: the checked-in `<name>-wasm.ts` must be exactly what
// strata-wasm-build makes of the .wat now, so the text and the shipped bytes cannot drift apart.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkWasmModule } from '@strata/wasm-build';
import { expect } from 'vitest';

/** Asserts that the module generated from `wat` (a file URL, e.g. `new URL('../src/x.wat', import.meta.url)`) is current. */
export async function expectWasmModuleInSync(wat: URL): Promise<void> {
  const watPath = fileURLToPath(wat);
  const result = await checkWasmModule(watPath, dirname(dirname(watPath)));
  expect(result.actual, `${result.modulePath} is stale: run \`pnpm build:wasm\` in the package`).toBe(result.expected);
}
