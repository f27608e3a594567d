// Record-marked stream files from the generator: the writer's framing (4-byte BE mark, top bit set, then the XDR)
// checked byte by byte, atomicity (no file before close, none after abort), and equality with the in-memory encoder.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { generateNetwork } from '../src/generator.js';
import { encodeLedgerStream, LedgerStreamWriter, writeLedgerStream } from '../src/stream-writer.js';

const ledgers = [
  ...generateNetwork({ seed: 3, ledgers: 12, eventsPerLedger: 15, accounts: 40, contracts: 3, record: false }),
];

describe('record-marked stream writer', () => {
  it('frames each LCM with a last-fragment mark and its length', async () => {
    const path = join(tempDir('stream'), 'ledgers.xdr');
    const written = await writeLedgerStream(
      path,
      ledgers.map((l) => l.lcm),
    );
    const bytes = await readFile(path);
    expect(bytes.length).toBe(written);
    expect(Buffer.compare(bytes, Buffer.from(encodeLedgerStream(ledgers.map((l) => l.lcm))))).toBe(0);
    let offset = 0;
    for (const ledger of ledgers) {
      const mark = bytes.readUInt32BE(offset);
      expect(mark >>> 31).toBe(1);
      expect(mark & 0x7fff_ffff).toBe(ledger.lcm.length);
      expect(Buffer.compare(bytes.subarray(offset + 4, offset + 4 + ledger.lcm.length), Buffer.from(ledger.lcm))).toBe(
        0,
      );
      offset += 4 + ledger.lcm.length;
    }
    expect(offset).toBe(bytes.length);
  });

  it('shows nothing at the path before close and leaves nothing after abort', async () => {
    const dir = tempDir('stream');
    const path = join(dir, 'ledgers.xdr');
    const writer = await LedgerStreamWriter.create(path);
    await writer.write((ledgers[0] as (typeof ledgers)[0]).lcm);
    expect(existsSync(path)).toBe(false);
    await writer.abort();
    expect(await readdir(dir)).toEqual([]);
  });
});
