// What a user outside the workspace gets: packs every published package exactly as `pnpm publish` would (publishConfig
// applied, workspace: ranges rewritten), installs the tarballs with plain npm into a scratch project in the system
// temp dir, checks what each tarball holds, type-checks and runs every ```ts block of each package README as
// written — twice, in the same initially empty working directory, as a user re-running an example would — and runs
// each bin's --version. Run by `npm test` (scripts/test.sh); needs the workspace built (bootstrap does that).
//
// README blocks: a block whose first line is `// fragment: <why>` is not run (it is shown for reading); a block
// whose first line is `// needs: <name>@<version> ...` gets those packages installed beside the tarballs.
//
// Usage: node scripts/check-packed.mjs [--counts FILE] [--keep]
//   --counts FILE  write {"passed": N, "failed": N, "skipped": N} there (scripts/test.sh adds them to its summary)
//   --keep         leave the scratch project in place and print its path
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const countsFile = args.includes('--counts') ? args[args.indexOf('--counts') + 1] : undefined;
const keep = args.includes('--keep');
// The versions the workspace itself pins, so the scratch project runs examples with the same tools.
const rootManifest = readJson(join(root, 'package.json'));
const TSX_VERSION = rootManifest.devDependencies.tsx;
const TYPESCRIPT_VERSION = rootManifest.devDependencies.typescript;
const TYPES_NODE_VERSION = rootManifest.devDependencies['@types/node'];
const EXAMPLE_TIMEOUT_MS = 180_000;

const results = { passed: 0, failed: 0, skipped: 0 };
function check(name, body) {
  try {
    const detail = body();
    results.passed++;
    console.log(`ok      ${name}${detail ? ` (${detail})` : ''}`);
  } catch (error) {
    results.failed++;
    console.log(`FAILED  ${name}\n${indent(error instanceof Error ? error.message : String(error))}`);
  }
}
function skip(name, why) {
  results.skipped++;
  console.log(`skipped ${name}: ${why}`);
}
function indent(text) {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `        ${line}`)
    .join('\n');
}
function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}
function run(command, commandArgs, options) {
  const result = spawnSync(command, commandArgs, { encoding: 'utf8', maxBuffer: 64 << 20, ...options });
  if (result.error) throw result.error;
  return result;
}
function mustSucceed(result, what) {
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-40).join('\n');
    throw new Error(`${what} exited ${result.status ?? result.signal}\n${output}`);
  }
  return result;
}

const published = readdirSync(join(root, 'packages'))
  .sort()
  .map((name) => ({
    dir: join(root, 'packages', name),
    manifest: readJson(join(root, 'packages', name, 'package.json')),
  }))
  .filter(({ manifest }) => !manifest.private);

const scratch = mkdtempSync(join(tmpdir(), 'strata-packed-'));
const tarballs = join(scratch, 'tarballs');
mkdirSync(tarballs);
console.log(`packing ${published.length} packages into ${scratch}`);

try {
  // 1. Pack. pnpm applies publishConfig and rewrites workspace: ranges, as `pnpm publish` does.
  for (const pkg of published) {
    const before = new Set(readdirSync(tarballs));
    mustSucceed(
      run('pnpm', ['pack', '--pack-destination', tarballs], { cwd: pkg.dir }),
      `pnpm pack ${pkg.manifest.name}`,
    );
    const made = readdirSync(tarballs).filter((file) => !before.has(file));
    if (made.length !== 1) throw new Error(`pnpm pack ${pkg.manifest.name} wrote ${made.length} files`);
    pkg.tarball = join(tarballs, made[0]);
  }

  // 2. Collect the README examples (from the packed README, which is what users read) and what they need.
  const examples = [];
  const needs = {};
  for (const pkg of published) {
    const readme = execFileSync('tar', ['-xzOf', pkg.tarball, 'package/README.md'], { encoding: 'utf8' });
    let index = 0;
    for (const match of readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
      index++;
      const code = match[1];
      const firstLine = code.split('\n', 1)[0].trim();
      const name = `${pkg.manifest.name} README example ${index}`;
      if (firstLine.startsWith('// fragment:')) {
        skip(name, firstLine.slice('// fragment:'.length).trim());
        continue;
      }
      if (firstLine.startsWith('// needs:')) {
        for (const spec of firstLine.slice('// needs:'.length).trim().split(/\s+/)) {
          const at = spec.lastIndexOf('@');
          if (at <= 0) throw new Error(`${name}: "// needs:" wants name@version, got ${spec}`);
          needs[spec.slice(0, at)] = spec.slice(at + 1);
        }
      }
      examples.push({ name, file: `${pkg.manifest.name.replace('@strata/', '')}-${index}.ts`, code });
    }
  }

  // 3. Install the tarballs with plain npm, as a user would. overrides make the packages' dependencies on each
  //    other resolve to these tarballs, not to the registry.
  const tarballDeps = Object.fromEntries(
    published.map((pkg) => [pkg.manifest.name, `file:${relative(scratch, pkg.tarball)}`]),
  );
  writeFileSync(
    join(scratch, 'package.json'),
    `${JSON.stringify(
      {
        name: 'strata-packed-check',
        private: true,
        type: 'module',
        dependencies: { ...tarballDeps, ...needs },
        devDependencies: { tsx: TSX_VERSION, typescript: TYPESCRIPT_VERSION, '@types/node': TYPES_NODE_VERSION },
        overrides: tarballDeps,
      },
      null,
      2,
    )}\n`,
  );
  let installed = false;
  check('npm install of every packed tarball in a project outside the workspace', () => {
    const started = performance.now();
    mustSucceed(
      run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: scratch }),
      'npm install',
    );
    installed = true;
    return `${((performance.now() - started) / 1000).toFixed(0)} s`;
  });
  if (!installed) throw new Error('stopping: nothing installed');

  // 4. What each tarball holds.
  for (const pkg of published) {
    const name = pkg.manifest.name;
    const installedDir = join(scratch, 'node_modules', name);
    check(`${name} tarball: LICENSE, README, manifest fields, entry points, source maps`, () => {
      const problems = [];
      const manifest = readJson(join(installedDir, 'package.json'));
      for (const file of ['LICENSE', 'README.md']) {
        if (!existsSync(join(installedDir, file))) problems.push(`no ${file}`);
      }
      for (const field of ['license', 'repository', 'description', 'engines']) {
        if (manifest[field] === undefined) problems.push(`package.json has no "${field}"`);
      }
      const text = JSON.stringify(manifest);
      if (text.includes('workspace:')) problems.push('package.json still has a workspace: range');
      if (text.includes('strata-source')) problems.push('package.json exports still name the strata-source condition');
      const targets = [];
      const walk = (value) => {
        if (typeof value === 'string') targets.push(value);
        else if (value && typeof value === 'object') Object.values(value).forEach(walk);
      };
      walk(manifest.exports);
      walk(manifest.bin);
      for (const target of targets) {
        if (!existsSync(join(installedDir, target))) problems.push(`${target} (exports/bin) is not in the tarball`);
      }
      let maps = 0;
      for (const map of listFiles(installedDir).filter((file) => file.endsWith('.map'))) {
        maps++;
        for (const source of readJson(map).sources ?? []) {
          const sourcePath = resolve(dirname(map), source);
          if (!existsSync(sourcePath)) problems.push(`${relative(installedDir, map)} names ${source}, not shipped`);
        }
      }
      if (problems.length > 0) throw new Error(problems.slice(0, 20).join('\n'));
      return `${maps} source maps resolve`;
    });
  }

  // 5. Every package's entry loads with plain Node (no tsx, no conditions).
  for (const pkg of published) {
    const name = pkg.manifest.name;
    check(`${name} loads with plain node from node_modules`, () => {
      const probe = `const m = await import(${JSON.stringify(name)}); console.log(Object.keys(m).length);`;
      const result = mustSucceed(run('node', ['--input-type=module', '-e', probe], { cwd: scratch }), 'import');
      return `${result.stdout.trim()} exports`;
    });
  }

  // 6. The bins.
  for (const pkg of published) {
    for (const bin of Object.keys(pkg.manifest.bin ?? {})) {
      check(`${bin} --version`, () => {
        const result = mustSucceed(
          run(join(scratch, 'node_modules', '.bin', bin), ['--version'], { cwd: scratch }),
          bin,
        );
        if (!result.stdout.includes(pkg.manifest.version)) {
          throw new Error(`printed ${JSON.stringify(result.stdout.trim())}, not the version ${pkg.manifest.version}`);
        }
        return result.stdout.trim();
      });
    }
  }

  // 7. The README examples: type-checked together against the shipped .d.ts files, then each run twice.
  const exampleDir = join(scratch, 'examples');
  mkdirSync(exampleDir);
  for (const example of examples) writeFileSync(join(exampleDir, example.file), example.code);
  if (examples.length > 0) {
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      `${JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          types: ['node'],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
        },
        include: ['examples'],
      })}\n`,
    );
    check(`README examples type-check against the packed .d.ts files (${examples.length} blocks)`, () => {
      mustSucceed(run(join(scratch, 'node_modules', '.bin', 'tsc'), ['-p', scratch], { cwd: scratch }), 'tsc');
    });
  }
  for (const example of examples) {
    const cwd = join(scratch, 'run', example.file.replace(/\.ts$/, ''));
    mkdirSync(cwd, { recursive: true });
    for (const attempt of ['first run', 'second run in the same folder']) {
      check(`${example.name}, ${attempt}`, () => {
        const started = performance.now();
        mustSucceed(
          run(join(scratch, 'node_modules', '.bin', 'tsx'), [join(exampleDir, example.file)], {
            cwd,
            timeout: EXAMPLE_TIMEOUT_MS,
          }),
          example.file,
        );
        return `${(performance.now() - started).toFixed(0)} ms`;
      });
    }
  }
} catch (error) {
  results.failed++;
  console.log(`FAILED  ${error instanceof Error ? error.message : String(error)}`);
} finally {
  if (keep) console.log(`scratch project kept at ${scratch}`);
  else rmSync(scratch, { recursive: true, force: true });
}

function listFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') files.push(...listFiles(path));
    } else files.push(path);
  }
  return files;
}

if (countsFile) writeFileSync(countsFile, JSON.stringify(results));
console.log(`packed: ${results.passed} passed, ${results.failed} failed, ${results.skipped} skipped`);
process.exitCode = results.failed > 0 ? 1 : 0;
