// `strata-wasm-build [--check] [file.wat ...]`: compiles each .wat (default: every src/*.wat of the package in the
// current directory) into its `<name>-wasm.ts`; with --check, writes nothing and exits 1 if any module is stale.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkWasmModule, compileWat } from './wasm-module.js';

const USAGE = 'usage: strata-wasm-build [--check] [file.wat ...]   (default: src/*.wat)';

/** Runs the command; returns the exit code. */
export async function main(args: readonly string[], cwd = process.cwd()): Promise<number> {
  const check = args.includes('--check');
  const unknown = args.filter((arg) => arg.startsWith('-') && arg !== '--check');
  if (unknown.length > 0 || args.includes('--help')) {
    console.error(unknown.length > 0 ? `unknown option ${unknown.join(' ')}\n${USAGE}` : USAGE);
    return unknown.length > 0 ? 2 : 0;
  }
  let files = args.filter((arg) => !arg.startsWith('-')).map((file) => resolve(cwd, file));
  if (files.length === 0) {
    const src = join(cwd, 'src');
    if (!existsSync(src)) {
      console.error(`no src folder in ${cwd}\n${USAGE}`);
      return 2;
    }
    files = readdirSync(src)
      .filter((name) => name.endsWith('.wat'))
      .sort()
      .map((name) => join(src, name));
    if (files.length === 0) {
      console.error(`no .wat files in ${src}\n${USAGE}`);
      return 2;
    }
  }
  let stale = 0;
  for (const file of files) {
    try {
      if (check) {
        const result = await checkWasmModule(file, cwd);
        if (!result.upToDate) stale++;
        process.stdout.write(`${result.upToDate ? 'up to date' : 'STALE     '} ${result.modulePath}\n`);
      } else {
        const compiled = await compileWat(file, cwd);
        writeFileSync(compiled.modulePath, compiled.source);
        process.stdout.write(`${compiled.modulePath}: ${compiled.bytes.length} wasm bytes\n`);
      }
    } catch (error) {
      console.error(`${file}: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
  }
  return stale > 0 ? 1 : 0;
}
