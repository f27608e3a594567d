// spawnWorker: a worker beside its caller runs from .ts sources in the workspace and from .js when built.
import { spawnSync } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { spawnWorker } from '../src/index.js';

async function ask(worker: Worker, message: unknown): Promise<unknown> {
  try {
    return await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.postMessage(message);
    });
  } finally {
    await worker.terminate();
  }
}

describe('spawnWorker', () => {
  it('runs the .ts entry beside a caller that runs from source, with workerData', async () => {
    const callerUrl = new URL('./workers/caller.ts', import.meta.url).href;
    const reply = await ask(spawnWorker(callerUrl, 'echo-worker', { workerData: { n: 7 } }), 'hello');
    expect(reply).toEqual({ message: 'hello', workerData: { n: 7 }, from: 'ts' });
  });

  it('runs the .js entry beside a caller that runs from dist', async () => {
    const dir = tempDir('base-worker');
    writeFileSync(
      join(dir, 'echo-worker.js'),
      "import { parentPort, workerData } from 'node:worker_threads';\n" +
        "parentPort.on('message', (message) => parentPort.postMessage({ message, workerData, from: 'js' }));\n",
    );
    copyFileSync(new URL('./workers/echo-worker.ts', import.meta.url), join(dir, 'echo-worker.ts'));
    const callerUrl = pathToFileURL(join(dir, 'caller.js')).href;
    const reply = await ask(spawnWorker(callerUrl, 'echo-worker', { workerData: 'w' }), 1);
    expect(reply).toEqual({ message: 1, workerData: 'w', from: 'js' });
  });
});

describe('spawnWorker from a parent run as `node --input-type=module -e`', () => {
  it("starts the .js entry (the parent's --input-type and process-wide options are not inherited)", () => {
    const dir = tempDir('base-worker-eval');
    writeFileSync(
      join(dir, 'echo-worker.js'),
      "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', (m) => parentPort.postMessage(m));\n",
    );
    const workerModule = new URL('../src/worker.ts', import.meta.url).href;
    const script =
      `const { spawnWorker } = await import(${JSON.stringify(workerModule)});\n` +
      `const w = spawnWorker(${JSON.stringify(pathToFileURL(join(dir, 'caller.js')).href)}, 'echo-worker');\n` +
      "w.once('message', (m) => { console.log('reply', m); w.terminate(); });\n" +
      "w.once('error', (e) => { console.log('error', e.message); process.exitCode = 1; });\n" +
      "w.postMessage('hi');\n";
    // --expose-gc and --max-old-space-size are process-wide: a worker given them fails to start.
    const result = spawnSync(
      process.execPath,
      ['--expose-gc', '--max-old-space-size=512', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    expect(result.stdout + result.stderr).toContain('reply hi');
    expect(result.status).toBe(0);
  });
});
