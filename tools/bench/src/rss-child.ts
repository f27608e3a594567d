// Child side of measurePeakRss: `rss-child <module> <export> <argsJSON>`, reports over IPC and exits.
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runJob } from './rss-job.js';

if (
  process.send !== undefined &&
  process.argv[1] !== undefined &&
  import.meta.url === pathToFileURL(process.argv[1]).href
) {
  const [modulePath, exportName, argsJson] = process.argv.slice(2);
  if (modulePath === undefined || exportName === undefined) {
    process.send({ error: 'usage: rss-child <module> <export> <args>' }, () => process.exit(0));
  } else {
    const specifier = isAbsolute(modulePath) ? pathToFileURL(modulePath).href : modulePath;
    void runJob(() => import(specifier) as Promise<Record<string, unknown>>, exportName, argsJson ?? '[]');
  }
}
