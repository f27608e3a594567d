// What a peak-RSS child does: run one exported function, report the kernel's high-water mark over IPC, exit. The
// plain child (rss-child.ts) imports the job's module by path; a bundled job's entry (rss.ts) imports it statically.
import { readFileSync } from 'node:fs';
import type { ChildMessage } from './rss.js';

/**
 * The process's peak resident set, in bytes: Linux's VmHWM, the high-water mark of this process's own memory since
 * it began executing. Not `resourceUsage().maxRSS`: the kernel carries the pre-exec image's high-water mark into
 * it, and a forked child's pre-exec image is a copy of its parent's resident memory — a child forked by a parent of
 * 300 MiB reports a maxRSS of 300 MiB before it allocates anything. maxRSS is the fallback where /proc is missing.
 */
export function peakRssBytes(): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'latin1'));
    if (match !== null) return Number(match[1]) * 1024;
  } catch {
    // not Linux: below
  }
  return process.resourceUsage().maxRSS * 1024;
}

/** The no-op job measureIdleRss runs. */
export function idle(): null {
  return null;
}

/** Runs `exportName` of the loaded module with the JSON arguments, reports the peak RSS over IPC, and exits. */
export async function runJob(load: () => Promise<Record<string, unknown>>, exportName: string, argsJson: string) {
  let message: ChildMessage;
  try {
    const loaded = await load();
    const fn = loaded[exportName];
    if (typeof fn !== 'function') throw new Error(`the job module has no exported function ${exportName}`);
    const result = await (fn as (...args: unknown[]) => unknown)(...(JSON.parse(argsJson) as unknown[]));
    message = { peakRssBytes: peakRssBytes(), result: result ?? null };
  } catch (error) {
    message = { error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  process.send?.(message, () => process.exit(0));
}
