// The built package (dist/, what users import) finds the native helper from dist/ as the sources do from src/, and
// runs a contract. The run happens in a child process without the `strata-source` condition, so the import resolves
// to dist/ as for a user. `npm test` builds before testing.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadNative } from '../src/native.js';

const distEntry = fileURLToPath(new URL('../dist/index.js', import.meta.url));

describe('built package', () => {
  it('dist/ pools memories with the same backend as the sources', () => {
    expect(existsSync(distEntry), `${distEntry} is missing: run the build (npm test does)`).toBe(true);
    const script = `
      import { ContractRunner, MemoryPool } from ${JSON.stringify(pathToFileURL(distEntry).href)};
      const pool = new MemoryPool({ initialPages: 2, maximumPages: 4, verify: 'always' });
      // (module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))
      const code = Uint8Array.from([0,97,115,109,1,0,0,0,1,7,1,96,2,127,127,1,127,3,2,1,0,7,7,1,3,97,100,100,0,0,10,9,1,7,0,32,0,32,1,106,11]);
      const sum = new ContractRunner(pool).run(code, 'add', [2, 40]);
      const stats = pool.stats();
      console.log(JSON.stringify({ sum, strategy: stats.strategy, scanner: stats.backend.scanner, failures: stats.verifyFailures }));
    `;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    const result = JSON.parse(output.trim()) as { sum: number; strategy: string; scanner: string; failures: number };
    expect(result.sum).toBe(42);
    expect(result.failures).toBe(0);
    if (process.platform === 'linux') {
      expect(result.strategy).toBe('dirty-pages');
      expect(result.scanner).toBe(loadNative().binding === undefined ? 'pagemap-read' : 'pagemap-scan');
    }
  });
});
