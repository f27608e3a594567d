// SHA-256 over `u32 LE length ‖ payload` of every payload in order — the packfile's content-hash construction
// (FORMAT.md), computed by a freeze on its own from the hot chunk's payloads and again from the payloads read back
// from events.pack, so the writer's hash, the hot chunk and the file are compared three ways. Payloads are staged
// into one buffer and hashed in large updates: one hash update per payload costs about five times as much.
import { createHash, type Hash } from 'node:crypto';

const STAGE_BYTES = 256 * 1024;

export class PayloadHasher {
  private readonly hash: Hash = createHash('sha256');
  private readonly stage = new Uint8Array(STAGE_BYTES);
  private readonly view = new DataView(this.stage.buffer);
  private used = 0;

  add(payload: Uint8Array): void {
    if (this.used + 4 + payload.length > STAGE_BYTES) this.flush();
    this.view.setUint32(this.used, payload.length, true);
    this.used += 4;
    if (payload.length > STAGE_BYTES - this.used) {
      this.flush();
      this.hash.update(payload);
      return;
    }
    this.stage.set(payload, this.used);
    this.used += payload.length;
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
