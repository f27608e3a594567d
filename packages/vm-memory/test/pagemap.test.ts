// The page-table backends: pagemap bit handling (one bit at a time: wasmer's dirty_map.rs read bit 54 for soft-dirty),
// the pure-JS reader and address finder against the real /proc/self/pagemap, and the native helper (PAGEMAP_SCAN,
// madvise) cross-checked against the pure-JS reader. Real-kernel tests are skipped where there is no pagemap.
// pagemap.property.test.ts checks the verdicts against an oracle for any entry.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { loadNative } from '../src/native.js';
import {
  confirmAddress,
  createLocatedMemory,
  decodePagemapEntry,
  OS_PAGE_SIZE,
  PAGEMAP_BIT,
  PagemapReader,
  PagemapScanner,
  PageVerdict,
  pageVerdict,
  privateMappingsOfLength,
} from '../src/pagemap.js';
import { RangeList } from '../src/ranges.js';

const bit = (n: number) => 1n << BigInt(n);
const high = (entry: bigint) => Number(entry >> 32n);
const hasPagemap = process.platform === 'linux' && existsSync('/proc/self/pagemap');
const native = loadNative().binding;

describe('pagemap entry bits', () => {
  it('reads present 63, swapped 62, file/shared 61, exclusive 56, soft-dirty 55 — and nothing else', () => {
    expect(PAGEMAP_BIT).toEqual({ present: 63, swapped: 62, fileOrShared: 61, exclusive: 56, softDirty: 55 });
    expect(decodePagemapEntry(bit(63))).toEqual({
      present: true,
      swapped: false,
      fileOrShared: false,
      exclusive: false,
      softDirty: false,
    });
    expect(decodePagemapEntry(bit(62)).swapped).toBe(true);
    expect(decodePagemapEntry(bit(61)).fileOrShared).toBe(true);
    expect(decodePagemapEntry(bit(56)).exclusive).toBe(true);
    expect(decodePagemapEntry(bit(55)).softDirty).toBe(true);
    // The neighbours of each bit mean nothing to the decoder (bit 54 is the wasmer mistake; 57-60 are zero/reserved).
    for (const n of [54, 57, 58, 59, 60, 0, 31, 32])
      expect(Object.values(decodePagemapEntry(bit(n))).some(Boolean), `bit ${n}`).toBe(false);
  });

  it('verdicts: swapped or present+exclusive is dirty; present alone is checked (conservative) or skipped', () => {
    const cases: [bigint, number, number][] = [
      // entry, conservative, exclusive
      [0n, PageVerdict.CLEAN, PageVerdict.CLEAN],
      [bit(63), PageVerdict.CHECK, PageVerdict.CLEAN], // the zero page after a read, or shared after fork/KSM
      [bit(63) | bit(56), PageVerdict.DIRTY, PageVerdict.DIRTY], // written by this process
      [bit(62), PageVerdict.DIRTY, PageVerdict.DIRTY], // swapped out: still holds data (Wasmtime PR #14357)
      [bit(62) | bit(56), PageVerdict.DIRTY, PageVerdict.DIRTY],
      [bit(55), PageVerdict.CLEAN, PageVerdict.CLEAN], // soft-dirty alone says nothing about presence
      [bit(54), PageVerdict.CLEAN, PageVerdict.CLEAN],
      [bit(56), PageVerdict.CLEAN, PageVerdict.CLEAN], // exclusive but not present: nothing there
      [bit(63) | bit(55), PageVerdict.CHECK, PageVerdict.CLEAN],
      [bit(63) | bit(54), PageVerdict.CHECK, PageVerdict.CLEAN],
      [bit(63) | bit(61), PageVerdict.CHECK, PageVerdict.CLEAN],
      [bit(63) | 0x7fffffffffffffn, PageVerdict.CHECK, PageVerdict.CLEAN], // PFN bits 0-54 set: irrelevant
    ];
    for (const [entry, conservative, exclusive] of cases) {
      expect(pageVerdict(high(entry), 'conservative'), `0x${entry.toString(16)}`).toBe(conservative);
      expect(pageVerdict(high(entry), 'exclusive'), `0x${entry.toString(16)}`).toBe(exclusive);
    }
  });
});

describe('RangeList', () => {
  it('merges touching ranges, counts bytes, grows', () => {
    const list = new RangeList(1);
    list.push(0, 4096);
    list.push(4096, 8192);
    list.push(16384, 20480);
    list.push(40960, 45056);
    expect(list.count).toBe(3);
    expect(list.bytes).toBe(16384);
    expect([list.start(0), list.end(0), list.start(2), list.end(2)]).toEqual([0, 8192, 40960, 45056]);
    list.clear();
    expect([list.count, list.bytes]).toEqual([0, 0]);
  });
});

describe('/proc/self/maps parsing', () => {
  it('finds private read-write mappings of an exact length', () => {
    const file = join(tempDir('vm-memory-maps'), 'maps');
    writeFileSync(
      file,
      [
        '7f94307b0000-7f94b07b0000 ---p 00000000 00:00 0',
        '7f94b07b0000-7f94b47b0000 rw-p 00000000 00:00 0',
        '7f94b47b0000-7f96b07b0000 ---p 00000000 00:00 0',
        '7f9400000000-7f9404000000 rw-s 00000000 00:05 1234 /memfd:x',
        '7f9500000000-7f9504000000 r--p 00000000 00:00 0',
        '55d0c0000000-55d0c0021000 rw-p 00000000 00:00 0 [heap]',
        '',
      ].join('\n'),
    );
    expect([...privateMappingsOfLength(64 << 20, file)]).toEqual([0x7f94b07b0000]);
    expect([...privateMappingsOfLength(0x21000, file)]).toEqual([0x55d0c0000000]);
  });
});

describe.skipIf(!hasPagemap)('pure-JS reader on the real pagemap', () => {
  const pages = 8;
  const length = pages * 65536;

  it('locates a new memory and sees exactly the pages written, read and zeroed', () => {
    const reader = new PagemapReader();
    try {
      const scanner = new PagemapScanner(reader, length, 'conservative');
      const { memory, address } = createLocatedMemory({ initial: pages, maximum: pages }, scanner);
      expect(address).toBeDefined();
      if (address === undefined) return;
      // The confirmation touched pages 0, 5 and the last one, and zeroed them: they stay resident (dirty, zero).
      const bytes = new Uint8Array(memory.buffer);
      const lastPage = length / OS_PAGE_SIZE - 1;
      expect(scanner.presentPages(address)).toEqual([0, 5, lastPage]);
      for (const page of [0, 5, lastPage])
        expect(bytes.subarray(page * OS_PAGE_SIZE, (page + 1) * OS_PAGE_SIZE).every((byte) => byte === 0)).toBe(true);
      bytes[20 * OS_PAGE_SIZE + 7] = 1; // written: present and exclusive
      let sum = 0;
      for (let page = 30; page < 34; page++) sum += bytes[page * OS_PAGE_SIZE]!; // read only: the zero page
      expect(sum).toBe(0);
      const verdicts = scanner.verdicts(address);
      expect(verdicts[20]).toBe(PageVerdict.DIRTY);
      expect(verdicts[0]).toBe(PageVerdict.DIRTY);
      for (let page = 30; page < 34; page++) expect(verdicts[page]).toBe(PageVerdict.CHECK);
      expect(verdicts[40]).toBe(PageVerdict.CLEAN);
      const exclusiveRule = new PagemapScanner(reader, length, 'exclusive');
      expect(exclusiveRule.verdicts(address)[31]).toBe(PageVerdict.CLEAN);

      const dirty = new RangeList();
      const check = new RangeList();
      scanner.scan(address, dirty, check);
      expect(dirty.bytes).toBe(4 * OS_PAGE_SIZE);
      expect([check.count, check.start(0), check.end(0)]).toEqual([1, 30 * OS_PAGE_SIZE, 34 * OS_PAGE_SIZE]);
    } finally {
      reader.close();
    }
  });

  it('rejects an address that is not the memory', () => {
    const reader = new PagemapReader();
    try {
      const scanner = new PagemapScanner(reader, length, 'conservative');
      const { memory, address } = createLocatedMemory({ initial: pages, maximum: pages }, scanner);
      const other = createLocatedMemory({ initial: pages, maximum: pages }, scanner);
      expect(address).toBeDefined();
      expect(other.address).toBeDefined();
      expect(other.address).not.toBe(address);
      // A fresh memory checked against the other memory's address (whose pages are resident) does not confirm.
      const fresh = new WebAssembly.Memory({ initial: pages, maximum: pages });
      expect(confirmAddress(fresh, address!, scanner)).toBe(false);
      expect(new Uint8Array(fresh.buffer).every((byte) => byte === 0)).toBe(true);
      void memory;
    } finally {
      reader.close();
    }
  });

  it('leaves the address undefined when the maps show no candidate', () => {
    const reader = new PagemapReader();
    try {
      const file = join(tempDir('vm-memory-maps'), 'maps');
      writeFileSync(file, '');
      const scanner = new PagemapScanner(reader, length, 'conservative');
      expect(createLocatedMemory({ initial: pages, maximum: pages }, scanner, file).address).toBeUndefined();
    } finally {
      reader.close();
    }
  });

  it('throws UNAVAILABLE for a pagemap that cannot be opened', () => {
    expect(() => new PagemapReader('/nonexistent/pagemap')).toThrow(/UNAVAILABLE/);
  });
});

describe.skipIf(native === undefined || !hasPagemap)('native helper', () => {
  const pages = 8;
  const length = pages * 65536;

  it('PAGEMAP_SCAN finds written pages, skips zero-page reads, merges runs; agrees with the pure-JS reader', () => {
    const binding = native!;
    expect(binding.pageSize).toBe(OS_PAGE_SIZE);
    const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    const out = new Float64Array(64);
    expect(binding.scanDirty(memory.buffer, length, out)).toBe(0);
    const bytes = new Uint8Array(memory.buffer);
    for (const page of [0, 1, 2, 9, 127]) bytes[page * OS_PAGE_SIZE + 100] = 1;
    let sum = 0;
    for (let page = 50; page < 60; page++) sum += bytes[page * OS_PAGE_SIZE]!;
    expect(sum).toBe(0);
    const count = binding.scanDirty(memory.buffer, length, out);
    expect(Array.from(out.subarray(0, count * 2))).toEqual([0, 3 * 4096, 9 * 4096, 10 * 4096, 127 * 4096, 128 * 4096]);

    // The pure-JS reader at the helper's address sees the same written pages.
    const reader = new PagemapReader();
    try {
      const scanner = new PagemapScanner(reader, length, 'conservative');
      const dirty = new RangeList();
      const check = new RangeList();
      scanner.scan(binding.address(memory.buffer), dirty, check);
      expect(Array.from(dirty.data.subarray(0, dirty.count * 2))).toEqual(Array.from(out.subarray(0, count * 2)));
      expect(check.bytes).toBe(10 * OS_PAGE_SIZE);
    } finally {
      reader.close();
    }
  });

  it('the pure-JS address finder and the helper agree on the address', () => {
    const reader = new PagemapReader();
    try {
      const scanner = new PagemapScanner(reader, length, 'conservative');
      const { memory, address } = createLocatedMemory({ initial: pages, maximum: pages }, scanner);
      expect(address).toBe(native!.address(memory.buffer));
    } finally {
      reader.close();
    }
  });

  it('reports more runs than fit and lets the caller retry', () => {
    const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    const bytes = new Uint8Array(memory.buffer);
    for (let page = 0; page < 128; page += 2) bytes[page * OS_PAGE_SIZE] = 1; // 64 separate runs
    const small = new Float64Array(8);
    expect(native!.scanDirty(memory.buffer, length, small)).toBe(64);
    const big = new Float64Array(128);
    expect(native!.scanDirty(memory.buffer, length, big)).toBe(64);
    expect([big[0], big[1], big[126], big[127]]).toEqual([0, 4096, 126 * 4096, 127 * 4096]);
  });

  it('refuses a detached (stale) buffer, a wrong length and unaligned ranges instead of doing nothing', () => {
    const memory = new WebAssembly.Memory({ initial: pages, maximum: pages + 1 });
    const stale = memory.buffer;
    memory.grow(0); // detaches `stale` without changing the size
    const out = new Float64Array(8);
    expect(() => native!.scanDirty(stale, length, out)).toThrow(/detached or not the expected length/);
    expect(() => native!.decommit(stale, length, 0, length)).toThrow(/detached or not the expected length/);
    expect(() => native!.scanDirty(memory.buffer, length + 65536, out)).toThrow(/expected length/);
    expect(() => native!.decommit(memory.buffer, length, 100, 4096)).toThrow(/page aligned/);
    expect(() => native!.decommit(memory.buffer, length, 0, length + 4096)).toThrow(/out of bounds/);
  });

  it('decommit zeroes and drops the pages', () => {
    const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    const bytes = new Uint8Array(memory.buffer);
    bytes.fill(7, 0, 10 * OS_PAGE_SIZE);
    native!.decommit(memory.buffer, length, 4 * OS_PAGE_SIZE, 2 * OS_PAGE_SIZE);
    const out = new Float64Array(8);
    const count = native!.scanDirty(memory.buffer, length, out);
    expect(Array.from(out.subarray(0, count * 2))).toEqual([0, 4 * 4096, 6 * 4096, 10 * 4096]);
    expect(bytes[4 * OS_PAGE_SIZE]).toBe(0);
    expect(bytes[6 * OS_PAGE_SIZE]).toBe(7);
    native!.decommit(memory.buffer, length, 0, length);
    expect(bytes.every((byte) => byte === 0)).toBe(true);
  });
});
