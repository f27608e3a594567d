// The contract between a KeyedRecordArena and a WebAssembly module that runs in it (KEYED_RECORD_ARENA_ABI_VERSION,
// README "The arena ABI"). Checked here:
// 1. the arena states its version (`abiVersion`, and `imports.abiVersion` as an immutable i32 global) and a guest
//    module importing `memory`, `compareKeyedAt` and `abiVersion` links and reads it;
// 2. version 1's layout: `bytes` starts at address 65536 of a memory of 1 + ceil(byteLength / 65536) pages, and the
//    guest's compareKeyedAt on absolute addresses is compareAt on positions in `bytes`;
// 3. compareKeyedAt's signature is enforced at instantiation: a guest importing it with another type does not link.
// A change to any of these must bump the version (and update this test): the literal 1 below is deliberate.
import { describe, expect, it } from 'vitest';
import wabtInit from 'wabt';
import { encodeLedgerEntry, encodeLedgerKey, KEYED_RECORD_ARENA_ABI_VERSION, KeyedRecordArena } from '../src/index.js';

/** Compiles a guest module that imports the arena under the module name "arena". */
async function guest(wat: string): Promise<WebAssembly.Module> {
  const wabt = await wabtInit();
  const module = wabt.parseWat('guest.wat', wat);
  try {
    module.validate();
    return new WebAssembly.Module(new Uint8Array(module.toBinary({}).buffer));
  } finally {
    module.destroy();
  }
}

const GUEST = `(module
  (import "arena" "memory" (memory 1))
  (import "arena" "compareKeyedAt" (func $compareKeyedAt (param i32 i32 i32 i32) (result i32)))
  (import "arena" "abiVersion" (global $abiVersion i32))
  (func (export "abiVersion") (result i32) (global.get $abiVersion))
  (func (export "compare") (param i32 i32 i32 i32) (result i32)
    (call $compareKeyedAt (local.get 0) (local.get 1) (local.get 2) (local.get 3))))`;

interface GuestExports {
  readonly abiVersion: () => number;
  readonly compare: (pa: number, aIsEntry: number, pb: number, bIsEntry: number) => number;
}

describe('KeyedRecordArena ABI', () => {
  it('1. states its version, and a guest links against memory, compareKeyedAt and abiVersion', async () => {
    expect(KEYED_RECORD_ARENA_ABI_VERSION).toBe(1);
    const arena = new KeyedRecordArena(100_000);
    expect(arena.abiVersion).toBe(KEYED_RECORD_ARENA_ABI_VERSION);
    expect(arena.imports.abiVersion.value).toBe(KEYED_RECORD_ARENA_ABI_VERSION);
    expect(() => {
      (arena.imports.abiVersion as { value: number }).value = 2;
    }).toThrow(TypeError); // immutable: a guest cannot change what later guests read
    const loop = new WebAssembly.Instance(await guest(GUEST), { arena: arena.imports })
      .exports as unknown as GuestExports;
    expect(loop.abiVersion()).toBe(1);
  });

  it('2. bytes start at address 65536 of 1 + ceil(n / 65536) pages; the guest compares at absolute addresses', async () => {
    const arena = new KeyedRecordArena(100_000);
    expect(arena.bytes.byteOffset).toBe(65536);
    expect(arena.bytes.length).toBe(100_000);
    expect(arena.imports.memory.buffer.byteLength).toBe(65536 * (1 + Math.ceil(100_000 / 65536)));
    const loop = new WebAssembly.Instance(await guest(GUEST), { arena: arena.imports })
      .exports as unknown as GuestExports;
    const id = (byte: number) => new Uint8Array(32).fill(byte);
    const key = encodeLedgerKey({ type: 'account', accountId: id(2) });
    const entry = encodeLedgerEntry({ lastModifiedLedgerSeq: 9, data: { type: 'account', accountId: id(1) } });
    arena.bytes.set(entry, 0);
    arena.bytes.set(key, 4096);
    const base = arena.bytes.byteOffset;
    expect(loop.compare(base, 1, base + 4096, 0)).toBe(-1);
    expect(loop.compare(base + 4096, 0, base, 1)).toBe(1);
    expect(loop.compare(base, 1, base, 1)).toBe(0);
    expect(arena.compareAt(0, true, 4096, false)).toBe(-1);
  });

  it('3. a guest importing compareKeyedAt with another signature does not link', async () => {
    const arena = new KeyedRecordArena(64);
    const wrong = await guest(`(module
      (import "arena" "compareKeyedAt" (func (param i32 i32) (result i32))))`);
    expect(() => new WebAssembly.Instance(wrong, { arena: arena.imports })).toThrow(WebAssembly.LinkError);
    const wrongGlobal = await guest(`(module (import "arena" "abiVersion" (global i64)))`);
    expect(() => new WebAssembly.Instance(wrongGlobal, { arena: arena.imports })).toThrow(WebAssembly.LinkError);
  });
});
