// The command-line tools as a package of their own, apart from the library. Properties:
// 1. `--version` is this package's version: the manifest the commands read is @strata/ledger-meta-cli's.
// 2. The sources reach @strata/ledger-meta only through its published entry point (the package name), never through
//    a relative path or a deep import into its files, so the CLI works against the packed library.
// 3. Each bin runs the built module of a source that exports `main` (bin/<name>.js imports ../dist/<name>.js).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packageManifest } from '../src/command.js';
import * as entry from '../src/index.js';
import { runCli } from './cli-harness.js';

const packageDir = new URL('../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', packageDir), 'utf8')) as {
  name: string;
  version: string;
  bin: Record<string, string>;
};

describe('@strata/ledger-meta-cli', () => {
  it('(1) reads its own manifest for --version and says so in --help', async () => {
    expect(packageManifest()).toEqual({ name: '@strata/ledger-meta-cli', version: manifest.version });
    for (const name of ['strata-gen', 'strata-meta'] as const) {
      const help = await runCli(name, ['--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('print the version of @strata/ledger-meta-cli');
    }
  });

  it('(2) imports @strata/ledger-meta by its package name only', () => {
    const sourceDir = new URL('../src/', import.meta.url);
    const specifiers: string[] = [];
    for (const name of readdirSync(sourceDir)) {
      const text = readFileSync(new URL(name, sourceDir), 'utf8');
      for (const match of text.matchAll(/\bfrom\s+'([^']+)'/g)) specifiers.push(match[1] as string);
    }
    expect(specifiers).toContain('@strata/ledger-meta');
    const outside = specifiers.filter(
      (specifier) =>
        specifier.startsWith('@strata/ledger-meta/') ||
        specifier.includes('ledger-meta/src') ||
        specifier.startsWith('../'),
    );
    expect(outside).toEqual([]);
  });

  it('(3) runs each bin from the built module of a source with a main', () => {
    expect(Object.keys(manifest.bin).sort()).toEqual(['strata-gen', 'strata-meta']);
    for (const [name, path] of Object.entries(manifest.bin)) {
      const bin = readFileSync(new URL(path, packageDir), 'utf8');
      expect(bin.startsWith('#!/usr/bin/env node\n'), name).toBe(true);
      expect(bin).toContain(`import { main } from '../dist/${name}.js';`);
      expect(existsSync(new URL(`src/${name}.ts`, packageDir)), name).toBe(true);
    }
    expect(typeof entry.strataGenMain).toBe('function');
    expect(typeof entry.strataMetaMain).toBe('function');
  });
});
