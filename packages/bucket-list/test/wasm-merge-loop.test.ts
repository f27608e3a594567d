// The WebAssembly merge loop as a module: the checked-in build (src/merge-loop-wasm.ts, generated) is exactly what
// strata-wasm-build makes of src/merge-loop.wat now, so the text and the shipped bytes cannot drift apart (regenerate
// with `pnpm build:wasm`); and the loop runs only in an arena of the KeyedRecordArena ABI it was written for.
import { AssertionError } from '@strata/base';
import { KEYED_RECORD_ARENA_ABI_VERSION, KeyedRecordArena } from '@strata/ledger-key';
import { errorOf, expectWasmModuleInSync } from '@strata/test-kit';
import { expect, it } from 'vitest';
import { MERGE_LOOP_ARENA_ABI, MERGE_LOOP_ARENA_BYTES, MergeLoop } from '../src/merge/wasm-merge-loop.js';

it('src/merge-loop-wasm.ts is the current build of src/merge-loop.wat', async () => {
  await expectWasmModuleInSync(new URL('../src/merge-loop.wat', import.meta.url));
});

it('runs in the arena ABI this ledger-key provides', () => {
  expect(KEYED_RECORD_ARENA_ABI_VERSION).toBe(MERGE_LOOP_ARENA_ABI);
  expect(new MergeLoop(new KeyedRecordArena(MERGE_LOOP_ARENA_BYTES))).toBeInstanceOf(MergeLoop);
});

it('refuses an arena of another ABI version', () => {
  class FutureArena extends KeyedRecordArena {
    override readonly abiVersion = 2;
  }
  const error = errorOf(AssertionError, () => new MergeLoop(new FutureArena(MERGE_LOOP_ARENA_BYTES)));
  expect(error.message).toContain('ABI version 2');
  expect(error.message).toContain('written for version 1');
});

it('does not link against an arena that exports no ABI version', () => {
  const arena = new KeyedRecordArena(MERGE_LOOP_ARENA_BYTES);
  const { memory, compareKeyedAt } = arena.imports;
  const withoutVersion = Object.assign(Object.create(arena) as KeyedRecordArena, {
    imports: { memory, compareKeyedAt },
  });
  expect(withoutVersion.abiVersion).toBe(MERGE_LOOP_ARENA_ABI);
  expect(() => new MergeLoop(withoutVersion)).toThrow(WebAssembly.LinkError);
});
