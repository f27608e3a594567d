// Builds the optional native helper (native/vm_memory.c → build/Release/vm_memory.node) with node-gyp. It is the
// package's `install` script, so `pnpm install` (and scripts/bootstrap.sh) builds it on every machine. The helper
// is optional: when it cannot be built (not Linux, no compiler, no node-gyp) this prints why and exits 0, and the
// package falls back to reading /proc/self/pagemap from JavaScript (`stats().backend` says which is in use).
// `--required` (the build:native script) exits 1 instead, for machines where the helper must exist.
// STRATA_VM_MEMORY_SKIP_NATIVE=1 skips the build.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const required = process.argv.includes('--required');

function skip(reason) {
  const line = `@strata/vm-memory: native helper not built (${reason}); the pure-JS backend will be used`;
  if (required) {
    console.error(line);
    process.exit(1);
  }
  console.warn(line);
  process.exit(0);
}

if (process.env.STRATA_VM_MEMORY_SKIP_NATIVE === '1') skip('STRATA_VM_MEMORY_SKIP_NATIVE=1');
if (process.platform !== 'linux') skip(`platform ${process.platform}: PAGEMAP_SCAN and the pagemap are Linux-only`);

// node-gyp: the package's own devDependency inside the workspace, else the one the package manager provides.
function findNodeGyp() {
  try {
    return createRequire(join(packageDir, 'package.json')).resolve('node-gyp/bin/node-gyp.js');
  } catch {
    const fromNpm = process.env.npm_config_node_gyp;
    return fromNpm !== undefined && existsSync(fromNpm) ? fromNpm : undefined;
  }
}
const nodeGyp = findNodeGyp();
if (nodeGyp === undefined) skip('node-gyp not found');

// Headers: the running Node's own (node-gyp would otherwise try to download them, which fails offline). pnpm does
// not pass npm's global nodedir through, so derive it from the Node binary unless the caller set one.
const args = [nodeGyp, 'rebuild'];
if (process.env.npm_config_nodedir === undefined || process.env.npm_config_nodedir === '') {
  const prefix = dirname(dirname(process.execPath));
  if (existsSync(join(prefix, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${prefix}`);
}
const build = spawnSync(process.execPath, args, {
  cwd: packageDir,
  stdio: ['ignore', 'pipe', 'pipe'],
  encoding: 'utf8',
});
if (build.status !== 0 || !existsSync(join(packageDir, 'build', 'Release', 'vm_memory.node'))) {
  const output = `${build.stdout ?? ''}${build.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
  if (output !== '') console.warn(output);
  skip(`node-gyp rebuild failed: ${build.error?.message ?? `exit ${build.status ?? build.signal}`}`);
}
console.log('@strata/vm-memory: native helper built (build/Release/vm_memory.node)');
