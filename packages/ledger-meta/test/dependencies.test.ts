// The library's runtime imports. Properties:
// 1. No source imports a command-line-only package (commander, pino, cli-progress, and @stellar/stellar-base, which
//    only the CLIs' --json used): the tools live in @strata/ledger-meta-cli, so a reader of ledgers installs none.
// 2. Every package a source imports is a runtime dependency in package.json (node: built-ins aside).
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const CLI_ONLY = ['commander', 'pino', 'cli-progress', '@stellar/stellar-base'];

const sourceDir = new URL('../src/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  dependencies?: Record<string, string>;
};

/** The package each bare import of each source names: `@scope/name` or `name` (subpaths dropped). */
function importedPackages(): Map<string, string[]> {
  const byPackage = new Map<string, string[]>();
  for (const name of readdirSync(sourceDir, { recursive: true }).map(String)) {
    if (!name.endsWith('.ts')) continue;
    const text = readFileSync(new URL(name, sourceDir), 'utf8');
    for (const match of text.matchAll(/^\s*(?:import|export)\b[^'"]*?\bfrom\s+'([^'.][^']*)'/gm)) {
      const specifier = match[1] as string;
      if (specifier.startsWith('node:')) continue;
      const parts = specifier.split('/');
      const pkg = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
      byPackage.set(pkg, [...(byPackage.get(pkg) ?? []), name]);
    }
  }
  return byPackage;
}

describe('runtime imports of @strata/ledger-meta', () => {
  const imported = importedPackages();

  it('(1) include no command-line-only package', () => {
    expect(imported.has('@strata/ledger-key')).toBe(true);
    expect(CLI_ONLY.filter((pkg) => imported.has(pkg)).map((pkg) => [pkg, imported.get(pkg)])).toEqual([]);
  });

  it('(2) are all declared dependencies', () => {
    const declared = new Set(Object.keys(manifest.dependencies ?? {}));
    expect([...imported.keys()].filter((pkg) => !declared.has(pkg))).toEqual([]);
  });
});
