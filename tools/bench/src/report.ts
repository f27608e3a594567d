// Renders BENCHMARKS.md from bench-results/*.json. Each package owns a section between marker comments; a
// package with no fresh results keeps its section from the previous BENCHMARKS.md, so benchmarking one package
// does not erase the others' figures.
import { type BenchResult, type BenchResultsFile, RESULTS_SCHEMA_VERSION } from './results.js';
import { formatNumber } from './session.js';

const TITLE = '# Benchmarks';
const PREAMBLE = `Figures measured with \`pnpm bench\` (the \`tools/bench\` harness) and rendered by \`pnpm bench:report\`.
Each result that has a baseline measured it in the same process, alternating rounds with the subject; \`ratio\` is
value ÷ baseline (for a time, 0.5 means twice as fast; for a throughput, 2 means twice as fast). Latencies are
medians with p99 beside them. Our machines have 2 cores and are noisy: read medians and ratios, not single runs.`;

const sectionStart = (name: string) => `<!-- bench:${name} -->`;
const sectionEnd = (name: string) => `<!-- /bench:${name} -->`;

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function targetText(result: BenchResult): string {
  if (!result.target) return '';
  const goals: string[] = [];
  const sign = result.higherIsBetter ? '≥' : '≤';
  if (result.target.value !== undefined) goals.push(`${sign} ${formatNumber(result.target.value)} ${result.unit}`);
  if (result.target.ratio !== undefined) goals.push(`ratio ${sign} ${formatNumber(result.target.ratio)}`);
  return `${goals.join(', ')}: ${result.target.met ? 'met' : '**missed**'}`;
}

/** The markdown section for one package's results file. */
export function renderSection(file: BenchResultsFile): string {
  const lines = [
    sectionStart(file.package),
    `## ${file.package}`,
    '',
    `Command \`${file.command}\` · commit \`${file.commit.slice(0, 12)}\`${file.dirty ? ' (uncommitted changes)' : ''} · ` +
      `Node ${file.node} · ${file.cpu.model}, ${file.cpu.cores} cores · ${file.date.slice(0, 10)}`,
    '',
    '| id | value | p99 | baseline | baseline value | ratio | target |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of file.results) {
    const value = `${formatNumber(r.value)} ${r.unit}${r.higherIsBetter ? ' ↑' : ' ↓'}`;
    const p99 = r.p99 === undefined ? '' : formatNumber(r.p99);
    const baselineName = r.baseline?.name ?? '';
    const baselineValue = r.baseline ? `${formatNumber(r.baseline.value)} ${r.baseline.unit}` : '';
    const ratio = r.ratio === undefined ? '' : formatNumber(r.ratio);
    const idText = r.note === undefined ? `\`${r.id}\`` : `\`${r.id}\` (${r.note})`;
    lines.push(`| ${[idText, value, p99, baselineName, baselineValue, ratio, targetText(r)].map(cell).join(' | ')} |`);
  }
  for (const failure of file.failures) lines.push('', `Failed: \`${failure.file}\`: ${cell(failure.error)}`);
  lines.push('', sectionEnd(file.package));
  return lines.join('\n');
}

/** Sections of a previous BENCHMARKS.md, by package name. */
export function parseSections(markdown: string): Map<string, string> {
  const sections = new Map<string, string>();
  const pattern = /<!-- bench:(\S+) -->[\s\S]*?<!-- \/bench:\1 -->/g;
  for (const match of markdown.matchAll(pattern)) sections.set(match[1] as string, match[0]);
  return sections;
}

/** The whole BENCHMARKS.md: fresh sections replace old ones; packages sorted by name. */
export function renderReport(files: readonly BenchResultsFile[], previous = ''): string {
  const sections = parseSections(previous);
  for (const file of files) {
    if (file.schema !== RESULTS_SCHEMA_VERSION) {
      throw new Error(`${file.package}: results schema ${file.schema}, expected ${RESULTS_SCHEMA_VERSION}`);
    }
    sections.set(file.package, renderSection(file));
  }
  const ordered = [...sections.keys()].sort().map((name) => sections.get(name) as string);
  return `${[TITLE, '', PREAMBLE, '', ...ordered.flatMap((s) => [s, ''])].join('\n').trimEnd()}\n`;
}
