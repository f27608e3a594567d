// Peak resident memory of a function, measured in a child process of its own so nothing the parent holds
// (other benchmarks, the harness, earlier garbage) counts. The child imports a module, awaits one of its
// exports with JSON arguments, and reports `process.resourceUsage().maxRSS` (the kernel's high-water mark).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { typeScriptExecArgv } from './child-process.js';

export interface PeakRssJob {
  /** Absolute path (or file URL) of the module holding the function. */
  module: string;
  /** Name of the exported function; it may be async. */
  exportName: string;
  /** JSON-serializable arguments. */
  args?: unknown[];
  /** Extra Node flags for the child, e.g. `--max-old-space-size=8192`. */
  execArgv?: string[];
}

export interface PeakRssReport {
  /** Peak resident set size of the child, in bytes. */
  peakRssBytes: number;
  /** What the function returned (JSON round-tripped). */
  result: unknown;
}

export interface ChildMessage {
  peakRssBytes?: number;
  result?: unknown;
  error?: string;
}

const childScript = fileURLToPath(
  new URL(`./rss-child${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
);

/** Runs `job` in a fresh Node process and reports its peak RSS. Rejects with the child's error if it fails. */
export function measurePeakRss(job: PeakRssJob): Promise<PeakRssReport> {
  return new Promise((resolvePromise, reject) => {
    const child = fork(childScript, [job.module, job.exportName, JSON.stringify(job.args ?? [])], {
      execArgv: [...typeScriptExecArgv(), ...(job.execArgv ?? [])],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let message: ChildMessage | undefined;
    child.on('message', (received) => {
      message = received as ChildMessage;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (message?.error !== undefined) reject(new Error(`peak-RSS child failed: ${message.error}`));
      else if (message?.peakRssBytes === undefined)
        reject(new Error(`peak-RSS child exited (code ${code}, signal ${signal}) without a report`));
      else resolvePromise({ peakRssBytes: message.peakRssBytes, result: message.result });
    });
  });
}

/** Peak RSS of a child that does nothing: the floor every measurement includes (Node, tsx, the harness). */
export function measureIdleRss(): Promise<PeakRssReport> {
  return measurePeakRss({ module: childScript, exportName: 'idle' });
}
