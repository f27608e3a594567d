// How the harness starts Node child processes that may run TypeScript sources: tsx's loader, and the
// `strata-source` condition so workspace imports resolve to src/*.ts as they do under vitest.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

/** Node flags for a child that imports TypeScript files and workspace sources. */
export function typeScriptExecArgv(): string[] {
  const tsxLoader = pathToFileURL(require.resolve('tsx')).href;
  return ['--conditions=strata-source', '--import', tsxLoader];
}
