// Child process for atomic-file.test.ts: rewrites one file over and over (version n is 256 KiB of byte n % 251,
// after a 4-byte version), printing each committed version, until it is killed.
import { writeFileAtomic, writeFileAtomicSync } from '../../src/index.js';

const [path, mode] = process.argv.slice(2) as [string, 'sync' | 'async'];
for (let version = 1; ; version++) {
  const bytes = new Uint8Array(256 * 1024).fill(version % 251);
  new DataView(bytes.buffer).setUint32(0, version);
  if (mode === 'sync') writeFileAtomicSync(path, bytes);
  else await writeFileAtomic(path, bytes);
  process.stdout.write(`${version}\n`);
}
