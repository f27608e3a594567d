// Worker threads whose entry file sits beside the module that starts them. Published, that entry is the compiled
// `.js` in dist; in the workspace (tests, benchmarks under tsx or vitest) the caller runs from its `.ts` source, and
// the worker must too, through tsx's loader and the `strata-source` condition, so both threads run the same code.
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts `./<entryName>.js` (or `.ts`, when the caller runs from source) relative to `callerUrl`, which is the
 * caller's `import.meta.url`. `options` are passed to the Worker (workerData, resourceLimits, ...); from source its
 * execArgv gains `--conditions=strata-source`.
 */
export function spawnWorker(callerUrl: string, entryName: string, options: WorkerOptions = {}): Worker {
  if (!callerUrl.endsWith('.ts')) {
    return new Worker(new URL(`./${entryName}.js`, callerUrl), {
      ...options,
      execArgv: options.execArgv ?? inheritableExecArgv(),
    });
  }
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const entry = new URL(`./${entryName}.ts`, callerUrl).href;
  const code =
    `import(${JSON.stringify(tsxApi)}).then(({ register }) => { register(); ` +
    `return import(${JSON.stringify(entry)}); });`;
  return new Worker(code, {
    ...options,
    eval: true,
    execArgv: [...(options.execArgv ?? []), '--conditions=strata-source'],
  });
}

/**
 * The parent's Node options a worker started from a file can take: `--input-type` (set when the parent runs
 * `node --input-type=module -e ...`) makes a worker with a file entry fail, so it is left out.
 */
function inheritableExecArgv(): string[] {
  const args: string[] = [];
  for (let i = 0; i < process.execArgv.length; i++) {
    const arg = process.execArgv[i] as string;
    if (arg === '--input-type') i++;
    else if (!arg.startsWith('--input-type=')) args.push(arg);
  }
  return args;
}
