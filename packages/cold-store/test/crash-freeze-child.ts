// The crash test's child: freezes one hot chunk (read through its own read-only hot reader) into two directories
// until it is killed, announcing on stdout synchronously "R" once ready, "S <step>" as each freeze step starts and
// "D <frozenNow>" when the freeze returned, so the parent knows where each kill fell. It loads its modules first and
// starts only when the parent writes a line to its stdin ("go", or "go hold" to hold the manifest step open before
// the manifest is written, so a kill aimed at it cannot miss), so the parent can keep children warm.
// argv: hot database path, chunk id, data dir, index dir, scratch dir.
import { writeSync } from 'node:fs';
import { openHotReader } from '@strata/hot-store';
import { freezeChunkWith } from '../src/chunk/freeze.js';
import { LocalStorage } from '../src/index.js';

const [hotPath, chunkArg, dataDir, indexDir, scratchDir] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];

/** Writes a whole line to the stdout pipe before returning (retrying while the non-blocking pipe is full). */
function say(line: string): void {
  const bytes = Buffer.from(`${line}\n`);
  let at = 0;
  while (at < bytes.length) {
    try {
      at += writeSync(1, bytes, at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    }
  }
}

const order = await new Promise<string>((resolve) => process.stdin.once('data', (data) => resolve(data.toString())));
process.stdin.pause();
/** "go hold": the manifest step waits HOLD_MS before writing the manifest, so a kill is sure to land inside it. */
const hold = order.startsWith('go hold');
const HOLD_MS = 500;
const hot = openHotReader(hotPath, { chunkId: Number(chunkArg) });
say('R');
const result = await freezeChunkWith(
  { hot, storage: new LocalStorage(dataDir), indexStorage: new LocalStorage(indexDir), scratchDir },
  {
    onStep: async (step) => {
      say(`S ${step}`);
      if (hold && step === 'manifest') await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
    },
  },
);
say(`D ${result.frozenNow}`);
await result.reader.close();
await hot.close();
