// Workspace smoke command (what `npm start` runs until the node app exists): lists every workspace package and
// loads each built entry point from dist with plain Node ESM, the way a user of the published package would.
// Exits 1 if a package that has a build fails to load.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
const groups = ['packages', 'apps', 'tools'];
const rows = [];
let broken = 0;

for (const group of groups) {
  const dir = join(root, group);
  if (!existsSync(dir)) continue;
  for (const name of readdirSync(dir).sort()) {
    const pkgDir = join(dir, name);
    const manifestPath = join(pkgDir, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    const entry = manifest.publishConfig?.exports?.['.']?.default ?? manifest.exports?.['.']?.default;
    let status = 'source only (not built)';
    let exportsCount = '';
    if (entry?.startsWith('./dist/')) {
      const entryPath = join(pkgDir, entry);
      if (!existsSync(entryPath)) {
        status = 'NOT BUILT';
        broken++;
      } else {
        try {
          const mod = await import(pathToFileURL(entryPath).href);
          exportsCount = String(Object.keys(mod).length);
          status = 'loads from dist';
        } catch (error) {
          status = `LOAD FAILED: ${error.message}`;
          broken++;
        }
      }
    }
    rows.push([manifest.name, manifest.version, manifest.private ? 'private' : 'published', status, exportsCount]);
  }
}

const header = ['package', 'version', 'kind', 'status', 'exports'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
console.log(`Strata workspace (${rows.length} packages), Node ${process.version}`);
console.log(line(header));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const row of rows) console.log(line(row));
process.exit(broken === 0 ? 0 : 1);
