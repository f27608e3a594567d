// Checks that every changeset in .changeset/ has the frontmatter `changeset version` needs: a `---` line, one or more
// `"<package>": patch|minor|major` lines naming workspace packages, a `---` line, then a summary. A formatter or a
// hand edit can break it silently (biome once turned it into a heading); `npm test` runs this instead of
// `changeset status`, which also depends on the git history of the checkout.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const packageNames = new Set();
for (const group of ['packages', 'apps', 'tools']) {
  let names = [];
  try {
    names = readdirSync(join(root, group));
  } catch {
    continue;
  }
  for (const name of names) {
    try {
      packageNames.add(JSON.parse(readFileSync(join(root, group, name, 'package.json'), 'utf8')).name);
    } catch {
      // not a package folder
    }
  }
}

const problems = [];
const dir = join(root, '.changeset');
for (const file of readdirSync(dir).filter((name) => name.endsWith('.md') && name !== 'README.md')) {
  const text = readFileSync(join(dir, file), 'utf8');
  const match = /^---\n((?:"[^"\n]+": (?:patch|minor|major)\n)+)---\n\n?\S/.exec(text);
  if (match === null) {
    problems.push(`${file}: no valid frontmatter (--- / "package": patch|minor|major / --- / summary)`);
    continue;
  }
  for (const line of match[1].trim().split('\n')) {
    const name = line.slice(1, line.indexOf('"', 1));
    if (!packageNames.has(name)) problems.push(`${file}: unknown package ${name}`);
  }
}
for (const problem of problems) console.error(`changeset: ${problem}`);
process.exit(problems.length === 0 ? 0 : 1);
