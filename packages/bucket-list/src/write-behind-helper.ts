// Worker-thread entry of write-behind (write-behind.ts starts one per thread that writes, on first use): for each
// output it is handed, SHA-256-hashes and writes the chunks the producer publishes, in order, then reports the
// digest or the first failed write (write-behind-protocol.ts has the protocol). It loads only node builtins, base's
// assert and the protocol constants, so it starts quickly.
import { createHash } from 'node:crypto';
import { writeSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { assert } from '@strata/base';
import * as protocol from './write-behind-protocol.js';

const port = parentPort;
assert(port !== null, 'write-behind-helper.ts must run in a worker thread');

port.on('message', ({ control, ring }: protocol.WriteBehindChannel) => {
  const words = new Int32Array(control);
  const bytes = new Uint8Array(control);
  const hash = createHash('sha256');
  const fd = words[protocol.Word.FD]!;
  let consumed = 0;
  let failure: string | undefined;
  for (;;) {
    const signal = Atomics.load(words, protocol.Word.SIGNAL);
    if (consumed < Atomics.load(words, protocol.Word.PRODUCED)) {
      const slot = consumed % protocol.SLOTS;
      const chunk = new Uint8Array(ring, slot * protocol.WRITE_BEHIND_CHUNK, words[protocol.Word.LENGTHS + slot]);
      if (failure === undefined) {
        try {
          hash.update(chunk);
          let done = 0;
          while (done < chunk.length) done += writeSync(fd, chunk, done, chunk.length - done);
        } catch (error) {
          failure = (error instanceof Error && error.message) || String(error);
          Atomics.store(words, protocol.Word.ERROR, 1);
        }
      }
      consumed++;
      Atomics.store(words, protocol.Word.CONSUMED, consumed);
      Atomics.notify(words, protocol.Word.CONSUMED);
      continue;
    }
    if (Atomics.load(words, protocol.Word.CLOSED) === 1) {
      if (consumed < Atomics.load(words, protocol.Word.PRODUCED)) continue;
      if (failure === undefined) {
        bytes.set(hash.digest(), protocol.DIGEST_BYTE);
      } else {
        const message = Buffer.from(failure).subarray(0, protocol.MESSAGE_CAPACITY);
        bytes.set(message, protocol.MESSAGE_BYTE);
        words[protocol.Word.MESSAGE_LENGTH] = message.length;
      }
      Atomics.store(words, protocol.Word.STATUS, failure === undefined ? protocol.Status.OK : protocol.Status.FAILED);
      Atomics.notify(words, protocol.Word.STATUS);
      return;
    }
    Atomics.wait(words, protocol.Word.SIGNAL, signal);
  }
});
