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
 * V8 and process-wide options a Worker refuses in its execArgv (ERR_WORKER_INVALID_EXEC_ARGV): the worker shares the
 * parent's V8 isolate settings and process, so they are left out. With a value either as `--flag=v` or `--flag v`.
 */
const PROCESS_WIDE_OPTIONS = [
  '--expose-gc',
  '--expose_gc',
  '--max-old-space-size',
  '--max-semi-space-size',
  '--stack-size',
  '--title',
];
/** Of those, the ones that take a value. */
const WITH_VALUE = new Set(['--max-old-space-size', '--max-semi-space-size', '--stack-size', '--title']);

/**
 * The parent's Node options a worker started from a file can take: `--input-type` (set when the parent runs
 * `node --input-type=module -e ...`) makes a worker with a file entry fail, and the process-wide options above make
 * any worker fail, so they are left out.
 */
function inheritableExecArgv(): string[] {
  const args: string[] = [];
  for (let i = 0; i < process.execArgv.length; i++) {
    const arg = process.execArgv[i] as string;
    const name = arg.split('=')[0] as string;
    if (name === '--input-type' || PROCESS_WIDE_OPTIONS.includes(name)) {
      if (!arg.includes('=') && (name === '--input-type' || WITH_VALUE.has(name))) i++;
      continue;
    }
    args.push(arg);
  }
  return args;
}
