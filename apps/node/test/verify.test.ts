// `strata verify` (verify.ts), in-process over a real data directory: a generated network's ledger state and a
// frozen cold chunk. Checks:
// 1. an intact directory passes: every bucket has.json names and the cold chunk, counted on stdout;
// 2. one flipped byte in a bucket file, in events.pack or in index.pack is exit 1 with one VERIFY_FAILED line naming
//    that file (and the directory passes again once the byte is restored).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chunkFileNames } from '@strata/cold-store';
import { describe, expect, it } from 'vitest';
import { dataDirLayout } from '../src/data-dir.js';
import { coldChunkDir, freezeInBackground } from '../src/freezer.js';
import { GENERATOR_PASSPHRASE, type GeneratorSource } from '../src/generator-source.js';
import { StrataNode } from '../src/node.js';
import { writeHotChunk } from './support/hot-chunks.js';
import { strata } from './support/in-process.js';
import { ramTempDir } from './support/ram-dir.js';

/** Flips one byte in the middle of `path`, runs `body`, puts the byte back. */
async function withFlippedByte(path: string, body: () => Promise<void>): Promise<void> {
  const original = readFileSync(path);
  const damaged = Buffer.from(original);
  const at = Math.floor(original.length / 2);
  damaged[at] = (damaged[at] ?? 0) ^ 0x5a;
  writeFileSync(path, damaged);
  try {
    await body();
  } finally {
    writeFileSync(path, original);
  }
}

describe('strata verify', () => {
  it('passes an intact data directory and names the file of a flipped byte', async () => {
    const dataDir = join(ramTempDir('node-verify'), 'data');
    const source: GeneratorSource = {
      kind: 'generator',
      seed: 2,
      ledgers: 40,
      eventsPerLedger: 5,
      accounts: 20,
      contracts: 2,
    };
    const node = await StrataNode.open(dataDir, { source, networkPassphrase: GENERATOR_PASSPHRASE, merger: 'inline' });
    await node.ingest(source);
    await node.close();
    const layout = dataDirLayout(dataDir);
    writeHotChunk(layout, 7, 6);
    await freezeInBackground(layout, 7);

    const intact = await strata('verify', '--data-dir', dataDir);
    expect(intact.code, intact.said.join('\n')).toBe(0);
    const report = JSON.parse(intact.stdout);
    expect(report.buckets).toBeGreaterThan(2);
    expect(report).toMatchObject({ coldChunks: 1, unfrozenColdFolders: 0 });

    const bucketsDir = join(dataDir, 'state', 'buckets');
    const biggest = readdirSync(bucketsDir)
      .filter((name) => /^bucket-[0-9a-f]{64}\.xdr$/.test(name))
      .sort((a, b) => statSync(join(bucketsDir, b)).size - statSync(join(bucketsDir, a)).size)[0];
    const names = chunkFileNames(7);
    const damaged = [
      join(bucketsDir, biggest ?? ''),
      join(coldChunkDir(layout, 7), 'packs', names.eventsPack),
      join(coldChunkDir(layout, 7), 'index', names.indexPack),
    ];
    for (const path of damaged) {
      await withFlippedByte(path, async () => {
        const result = await strata('verify', '--data-dir', dataDir);
        expect(result.code).toBe(1);
        expect(result.said).toEqual([expect.stringMatching(/^strata: VERIFY_FAILED /)]);
        expect(result.said[0]).toContain(path.split('/').at(-1));
      });
    }
    expect((await strata('verify', '--data-dir', dataDir)).code).toBe(0);
  }, 120_000);
});
