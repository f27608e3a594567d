// Peak resident memory of a function, measured in a child process of its own so nothing the parent holds
// (other benchmarks, the harness, earlier garbage) counts. The child imports a module, awaits one of its
// exports with JSON arguments, and reports its peak resident set (Linux VmHWM: the child's own high-water mark, not
// maxRSS, which includes the parent's resident memory at the fork — see rss-job.ts).
// A `bundled` job runs as one esbuild bundle under plain node: no TypeScript loader in the process it measures.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
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
  /**
   * Run the job as one esbuild bundle (workspace sources included, other packages left to node) under plain node,
   * so the measured process holds no TypeScript loader (tsx and its transform cache are some 50 MiB of every peak
   * otherwise) — as a node running the packages' compiled code would. The module and what it imports must bundle:
   * no worker or file loaded by a URL relative to its own module. Bundles are built once per module and process.
   */
  bundled?: boolean;
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

const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const childScript = fileURLToPath(new URL(`./rss-child${extension}`, import.meta.url));
const jobScript = fileURLToPath(new URL(`./rss-job${extension}`, import.meta.url));

/** Leaves packages outside the workspace to node (native addons cannot be bundled), at their resolved paths. */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(plugin) {
    plugin.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith('@strata/') || args.path.startsWith('node:') || args.pluginData === 'inner') return;
      const resolved = await plugin.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'inner',
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: resolved.path, external: true };
    });
  },
};

let bundleDir: string | undefined;
const bundles = new Map<string, Promise<string>>();

/** The bundled entry of `module`'s export: built once per module in a temp dir removed at exit. */
function bundledEntry(module: string): Promise<string> {
  const path = module.startsWith('file:') ? fileURLToPath(module) : resolve(module);
  let entry = bundles.get(path);
  if (entry === undefined) {
    if (bundleDir === undefined) {
      const dir = mkdtempSync(join(tmpdir(), 'strata-bench-rss-'));
      bundleDir = dir;
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    }
    const at = join(bundleDir, `job-${bundles.size}`);
    const source = `${at}.ts`;
    writeFileSync(
      source,
      `import { runJob } from ${JSON.stringify(jobScript)};\n` +
        `import * as job from ${JSON.stringify(path)};\n` +
        'const [exportName, argsJson] = process.argv.slice(2);\n' +
        'void runJob(async () => job, exportName, argsJson);\n',
    );
    entry = build({
      entryPoints: [source],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      conditions: ['strata-source'],
      outfile: `${at}.mjs`,
      logLevel: 'error',
      plugins: [externalPackages],
      // a CommonJS dependency's require() of a builtin needs one in an ES module bundle
      banner: {
        js: "import { createRequire as __strataRequire } from 'node:module'; const require = __strataRequire(import.meta.url);",
      },
    }).then(() => `${at}.mjs`);
    bundles.set(path, entry);
  }
  return entry;
}

/** Runs `job` in a fresh Node process and reports its peak RSS. Rejects with the child's error if it fails. */
export async function measurePeakRss(job: PeakRssJob): Promise<PeakRssReport> {
  const args = JSON.stringify(job.args ?? []);
  const [script, argv, execArgv] = job.bundled
    ? [await bundledEntry(job.module), [job.exportName, args], job.execArgv ?? []]
    : [childScript, [job.module, job.exportName, args], [...typeScriptExecArgv(), ...(job.execArgv ?? [])]];
  return new Promise((resolvePromise, reject) => {
    const child = fork(script, argv, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
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

/** Peak RSS of a child that does nothing: the floor every measurement includes (Node, the harness, and tsx unless
 * `bundled`). */
export function measureIdleRss(options: { bundled?: boolean } = {}): Promise<PeakRssReport> {
  return measurePeakRss({ module: jobScript, exportName: 'idle', bundled: options.bundled === true });
}
