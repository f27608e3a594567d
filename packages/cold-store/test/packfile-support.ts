// Helpers shared by the packfile tests: write a pack from an in-memory list of items (the oracle), open it again
// (mapped, or without its mapping so that fetches read), and make deterministic item lists.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom } from '@strata/test-kit';
import { PackfileReader, type PackfileReadOptions } from '../src/packfile/reader.ts';
import { type PackfileSummary, PackfileWriter, type PackfileWriterOptions } from '../src/packfile/writer.ts';
import { LocalStorage } from '../src/storage/local-storage.ts';
import type { StorageFile } from '../src/storage/storage.ts';

export const FORMAT_ID = 0x5445_5354; // "TEST"

/** Writes `items` (and `appData`) as the pack `name` in `dir`. */
export async function writePack(
  dir: string,
  name: string,
  items: readonly Uint8Array[],
  options: Partial<PackfileWriterOptions> = {},
  appData?: Uint8Array,
): Promise<PackfileSummary> {
  const writer = await PackfileWriter.create(new LocalStorage(dir), name, { formatId: FORMAT_ID, ...options });
  for (const item of items) await writer.add(item);
  return writer.finish(appData);
}

/** Opens the pack `name` in `dir`. */
export async function openPack(dir: string, name: string, options?: PackfileReadOptions): Promise<PackfileReader> {
  return PackfileReader.open(await new LocalStorage(dir).open(name), FORMAT_ID, options);
}

/** The file without its mapping (as an object store's): the reader then reads every fetch batch with read(). */
export function withoutMapping(file: StorageFile): StorageFile {
  return {
    name: file.name,
    size: file.size,
    read: (offset, length, into) => file.read(offset, length, into),
    map: () => undefined,
    dropCache: () => false,
    close: () => file.close(),
  };
}

/** Opens the pack `name` in `dir` without its mapping: every fetch batch is one storage read (the fan-out path). */
export async function openReadPack(dir: string, name: string, options?: PackfileReadOptions): Promise<PackfileReader> {
  return PackfileReader.open(withoutMapping(await new LocalStorage(dir).open(name)), FORMAT_ID, options);
}

/** Writes raw bytes as a file (a damaged copy of a pack). */
export function writeBytes(dir: string, name: string, bytes: Uint8Array): void {
  writeFileSync(join(dir, name), bytes);
}

/**
 * `count` items of seeded pseudo-random sizes in [0, maxBytes] and content: half of each item is a repeated byte
 * (so zstd has something to compress), half noise, and every item of 4 bytes or more starts with its index.
 */
export function makeItems(count: number, maxBytes: number, seed: number): Uint8Array[] {
  const random = seededRandom(seed);
  const items: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const item = new Uint8Array(Math.floor(random() * (maxBytes + 1)));
    const fill = Math.floor(random() * 256);
    for (let j = 0; j < item.length; j++) item[j] = j < item.length / 2 ? fill : Math.floor(random() * 256);
    if (item.length >= 4) new DataView(item.buffer).setUint32(0, i, true);
    else item.fill(i & 0xff);
    items.push(item);
  }
  return items;
}
