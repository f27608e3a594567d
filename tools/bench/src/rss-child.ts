// Child side of measurePeakRss: `rss-child <module> <export> <argsJSON>`, reports over IPC and exits.
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ChildMessage } from './rss.js';

/** The no-op job measureIdleRss runs. */
export function idle(): null {
  return null;
}

async function main(): Promise<void> {
  const [modulePath, exportName, argsJson] = process.argv.slice(2);
  let message: ChildMessage;
  try {
    if (modulePath === undefined || exportName === undefined)
      throw new Error('usage: rss-child <module> <export> <args>');
    const specifier = isAbsolute(modulePath) ? pathToFileURL(modulePath).href : modulePath;
    const loaded = (await import(specifier)) as Record<string, unknown>;
    const fn = loaded[exportName];
    if (typeof fn !== 'function') throw new Error(`${modulePath} has no exported function ${exportName}`);
    const result = await (fn as (...args: unknown[]) => unknown)(...(JSON.parse(argsJson ?? '[]') as unknown[]));
    message = { peakRssBytes: process.resourceUsage().maxRSS * 1024, result: result ?? null };
  } catch (error) {
    message = { error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  process.send?.(message, () => process.exit(0));
}

if (
  process.send !== undefined &&
  process.argv[1] !== undefined &&
  import.meta.url === pathToFileURL(process.argv[1]).href
) {
  void main();
}
