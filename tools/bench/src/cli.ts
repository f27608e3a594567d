// `strata-bench run [files...]`: runs a package's bench files (default bench/*.bench.ts), each in its own Node
// process, and writes <root>/bench-results/<package>.json. `strata-bench report`: renders BENCHMARKS.md.
// STRATA_BENCH_FILTER=<regex> runs only matching bench files; STRATA_BENCH_QUICK=1 makes a short smoke run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { typeScriptExecArgv } from './child-process.js';
import { renderReport } from './report.js';
import {
  type BenchResult,
  type BenchResultsFile,
  findWorkspaceRoot,
  RESULTS_SCHEMA_VERSION,
  resultsFileName,
  runEnvironment,
} from './results.js';

/** The STRATA_BENCH_* settings that shaped this run, as a prefix of the reproducing command. */
function benchEnvPrefix(): string {
  return ['STRATA_BENCH_QUICK', 'STRATA_BENCH_ROUNDS', 'STRATA_BENCH_FILTER']
    .filter((name) => process.env[name] !== undefined && process.env[name] !== '')
    .map((name) => `${name}=${process.env[name]} `)
    .join('');
}

function runPackage(files: string[]): number {
  const packageDir = process.cwd();
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { name: string };
  const root = findWorkspaceRoot(packageDir);
  let benchFiles = files;
  if (benchFiles.length === 0) {
    const benchDir = join(packageDir, 'bench');
    benchFiles = existsSync(benchDir)
      ? readdirSync(benchDir)
          .filter((name) => name.endsWith('.bench.ts'))
          .sort()
          .map((name) => join('bench', name))
      : [];
  }
  const filter = process.env.STRATA_BENCH_FILTER;
  if (filter !== undefined && filter !== '') benchFiles = benchFiles.filter((f) => new RegExp(filter).test(f));
  if (benchFiles.length === 0) {
    console.log(`${manifest.name}: no bench files`);
    return 0;
  }

  const scratch = mkdtempSync(join(tmpdir(), 'strata-bench-'));
  const results: BenchResult[] = [];
  const failures: BenchResultsFile['failures'] = [];
  try {
    for (const [index, file] of benchFiles.entries()) {
      console.log(`\n== ${manifest.name} ${file}`);
      const out = join(scratch, `${index}.json`);
      // --expose-gc: mitata then collects garbage before each timed round, so a subject does not pay for the
      // garbage its baseline left behind in the previous round (or the other way round).
      const child = spawnSync(process.execPath, [...typeScriptExecArgv(), '--expose-gc', file], {
        cwd: packageDir,
        stdio: 'inherit',
        env: { ...process.env, STRATA_BENCH_OUT: out },
      });
      if (child.status !== 0 || !existsSync(out)) {
        failures.push({ file, error: child.error?.message ?? `exit ${child.status ?? child.signal}` });
        continue;
      }
      results.push(...(JSON.parse(readFileSync(out, 'utf8')) as BenchResult[]));
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }

  const report: BenchResultsFile = {
    schema: RESULTS_SCHEMA_VERSION,
    package: manifest.name,
    command: `${benchEnvPrefix()}pnpm --filter ${manifest.name} bench`,
    ...runEnvironment(root),
    results,
    failures,
  };
  const outDir = join(root, 'bench-results');
  mkdirSync(outDir, { recursive: true });
  const outFile = join(outDir, resultsFileName(manifest.name));
  writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nwrote ${relative(process.cwd(), outFile)} (${results.length} results, ${failures.length} failures)`);
  return failures.length === 0 ? 0 : 1;
}

function report(): number {
  const root = findWorkspaceRoot();
  const dir = join(root, 'bench-results');
  const files = existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.endsWith('.json'))
        .sort()
        .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as BenchResultsFile)
    : [];
  const target = join(root, 'BENCHMARKS.md');
  const previous = existsSync(target) ? readFileSync(target, 'utf8') : '';
  writeFileSync(target, renderReport(files, previous));
  console.log(`rendered BENCHMARKS.md from ${files.length} results file(s)`);
  return 0;
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'run') process.exitCode = runPackage(rest);
else if (command === 'report') process.exitCode = report();
else {
  console.error('usage: strata-bench run [bench files...] | strata-bench report');
  process.exitCode = 2;
}
