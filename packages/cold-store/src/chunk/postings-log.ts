// The postings of a chunk being frozen, in ordinal order, as one u32 per posting: the term id, with the top bit set
// on the first term of each event (every event has at least its type and topic-count terms, so the marks count the
// ordinals). Blocks live in memory up to a budget; past it, full blocks are appended to a scratch file, so a
// freeze's postings cost at most the budget whatever the chunk holds. A scan replays the log in order, from the
// file first, then memory.
import { randomBytes } from 'node:crypto';
import { type FileHandle, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ColdStoreError, ColdStoreErrorCode, ioError } from '../errors.js';

/** Marks the first posting of an event. */
export const EVENT_MARK = 0x8000_0000;
/** u32 entries per block (4 MiB). */
export const BLOCK_ENTRIES = 1 << 20;

export class PostingsLog {
  private readonly blocks: Uint32Array[] = [];
  private current: Uint32Array;
  private used = 0;
  private spill: { handle: FileHandle; path: string; entries: number } | undefined;
  private total = 0;

  /**
   * `memoryBytes`: most bytes of full blocks kept in memory (at least one block is); `scratchDir`: where the spill
   * file goes (created on first spill, removed by dispose()); `blockEntries`: entries per block (tests shrink it).
   */
  constructor(
    private readonly memoryBytes: number,
    private readonly scratchDir: string,
    private readonly blockEntries = BLOCK_ENTRIES,
  ) {
    this.current = new Uint32Array(blockEntries);
  }

  /** Postings appended so far. */
  get length(): number {
    return this.total;
  }

  /** Bytes written to the scratch file so far. */
  get spilledBytes(): number {
    return (this.spill?.entries ?? 0) * 4;
  }

  /**
   * Appends one entry; returns a promise only when the append spilled, which the caller must await before the next
   * push (spills append to one file in order).
   */
  push(entry: number): Promise<void> | undefined {
    this.current[this.used++] = entry;
    this.total++;
    if (this.used < this.blockEntries) return undefined;
    this.blocks.push(this.current);
    this.current = new Uint32Array(this.blockEntries);
    this.used = 0;
    if ((this.blocks.length + 1) * this.blockEntries * 4 <= this.memoryBytes) return undefined;
    return this.spillBlocks();
  }

  private async spillBlocks(): Promise<void> {
    if (this.spill === undefined) {
      const path = join(this.scratchDir, `strata-freeze-${process.pid}-${randomBytes(6).toString('hex')}.postings`);
      try {
        this.spill = { handle: await open(path, 'wx+'), path, entries: 0 };
      } catch (error) {
        throw ioError(error, path, 'create the postings scratch file');
      }
    }
    const spill = this.spill;
    for (const block of this.blocks.splice(0)) {
      try {
        await writeAll(spill.handle, new Uint8Array(block.buffer, block.byteOffset, block.byteLength));
      } catch (error) {
        throw ioError(error, spill.path, 'write the postings scratch file');
      }
      spill.entries += block.length;
    }
  }

  /**
   * Calls `visit(block, count)` for the log's entries in order, block by block (the spilled ones read back through
   * one reused buffer): the block is only valid during the call. With `rewrite`, what `visit` writes into a block
   * is kept: the log holds the changed entries from then on (spilled blocks are written back in place).
   */
  async scan(visit: (entries: Uint32Array, count: number) => void, rewrite = false): Promise<void> {
    if (this.spill !== undefined) {
      const buffer = new Uint32Array(this.blockEntries);
      const bytes = new Uint8Array(buffer.buffer);
      for (let entry = 0; entry < this.spill.entries; entry += this.blockEntries) {
        const count = Math.min(this.blockEntries, this.spill.entries - entry);
        const block = bytes.subarray(0, count * 4);
        try {
          await readAll(this.spill.handle, block, entry * 4);
        } catch (error) {
          throw ioError(error, this.spill.path, 'read the postings scratch file');
        }
        visit(buffer, count);
        if (!rewrite) continue;
        try {
          await writeAll(this.spill.handle, block, entry * 4);
        } catch (error) {
          throw ioError(error, this.spill.path, 'write the postings scratch file');
        }
      }
    }
    for (const block of this.blocks) visit(block, block.length);
    if (this.used > 0) visit(this.current, this.used);
  }

  /** Removes the scratch file and drops the blocks. Idempotent, never throws. */
  async dispose(): Promise<void> {
    this.blocks.length = 0;
    this.current = new Uint32Array(0);
    this.used = 0;
    const spill = this.spill;
    this.spill = undefined;
    if (spill === undefined) return;
    await spill.handle.close().catch(() => undefined);
    await rm(spill.path, { force: true }).catch(() => undefined);
  }
}

/** Writes all of `bytes` at `position`, or appends them (position undefined: the file's own position). */
async function writeAll(handle: FileHandle, bytes: Uint8Array, position?: number): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const at = position === undefined ? null : position + done;
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, at);
    done += bytesWritten;
  }
}

async function readAll(handle: FileHandle, into: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < into.length) {
    const { bytesRead } = await handle.read(into, done, into.length - done, position + done);
    if (bytesRead === 0)
      throw new ColdStoreError(ColdStoreErrorCode.TRUNCATED, 'the postings scratch file ended early');
    done += bytesRead;
  }
}
