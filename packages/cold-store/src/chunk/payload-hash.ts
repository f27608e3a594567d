// SHA-256 over `u32 LE length ‖ payload` of every payload in order — the packfile's content-hash construction
// (FORMAT.md), computed by a freeze's verification from the records read back from events.pack, to compare with the
// hash the writer took of the hot chunk's payloads as it wrote them (and stored in the trailer). Payloads are staged
// into one buffer and hashed in large updates: one hash update per payload costs about five times as much.
import { createHash, type Hash } from 'node:crypto';

const STAGE_BYTES = 256 * 1024;

export class PayloadHasher {
  private readonly hash: Hash = createHash('sha256');
  private readonly stage = Buffer.allocUnsafe(STAGE_BYTES);
  private used = 0;

  /**
   * Adds the items of one raw record payload, `itemSizes[i]` bytes each, back to back: copied into the stage with
   * Buffer.copy (no view per item).
   */
  addRecord(payload: Uint8Array, itemSizes: ArrayLike<number>): void {
    const source = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
    const stage = this.stage;
    let at = 0;
    for (let i = 0; i < itemSizes.length; i++) {
      const size = itemSizes[i]!;
      if (this.used + 4 + size > STAGE_BYTES) this.flush();
      stage.writeUInt32LE(size, this.used);
      this.used += 4;
      if (size > STAGE_BYTES - this.used) {
        this.flush();
        this.hash.update(source.subarray(at, at + size));
      } else {
        source.copy(stage, this.used, at, at + size);
        this.used += size;
      }
      at += size;
    }
  }

  digest(): Uint8Array {
    this.flush();
    return new Uint8Array(this.hash.digest());
  }

  private flush(): void {
    if (this.used === 0) return;
    this.hash.update(this.stage.subarray(0, this.used));
    this.used = 0;
  }
}
