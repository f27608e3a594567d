// The checked-in module (src/xxh3-wasm.ts, generated) is exactly what strata-wasm-build makes of src/xxh3.wat now,
// so the text and the shipped bytes cannot drift apart (regenerate with `pnpm build:wasm`), and it carries xxHash's
// BSD-2 notice: the module is derived from xxHash, whose license requires the notice with every redistribution.
import { readFileSync } from 'node:fs';
import { expectWasmModuleInSync } from '@strata/test-kit';
import { expect, it } from 'vitest';

const generated = readFileSync(new URL('../src/xxh3-wasm.ts', import.meta.url), 'utf8');

it('src/xxh3-wasm.ts is the current build of src/xxh3.wat', async () => {
  await expectWasmModuleInSync(new URL('../src/xxh3.wat', import.meta.url));
});

it("src/xxh3-wasm.ts keeps xxHash's BSD 2-Clause notice", () => {
  for (const line of [
    '//   Copyright (c) Yann Collet - Meta Platforms, Inc',
    '//   BSD 2-Clause License (https://www.opensource.org/licenses/bsd-license.php)',
    '//   * Redistributions of source code must retain the above copyright notice, this list of conditions and the',
    '//   * Redistributions in binary form must reproduce the above copyright notice, this list of conditions and the',
    '//   ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.',
  ]) {
    expect(generated).toContain(line);
  }
});
