// The README promises only what the package exports. Properties:
// 1. Every name in the API table's first column is a value export of src/index.ts.
// 2. Every name the README's ```ts examples import from '@strata/ledger-meta' is exported.
// 3. The error-code table lists exactly the codes of LedgerMetaErrorCode.
// 4. The figures the README quotes for the data-lake cap and the generator limits are the code's.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as ledgerMeta from '../src/index.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const exported = new Set(Object.keys(ledgerMeta));

/** The rows of the markdown table whose header starts with `| <firstHeader>`: each row's cells. */
function tableRows(firstHeader: string): string[][] {
  const lines = readme.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`| ${firstHeader} `));
  expect(start, `a table headed "${firstHeader}"`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (let i = start + 2; i < lines.length && (lines[i] ?? '').startsWith('|'); i++) {
    rows.push(
      (lines[i] ?? '')
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

describe('README', () => {
  it('(1) documents only exported names in its API table', () => {
    const documented = tableRows('export').flatMap(([names = '']) =>
      [...names.matchAll(/`([A-Za-z_$][\w$]*)/g)].map((match) => match[1] as string),
    );
    expect(documented).toContain('openLedgerSource');
    expect(documented.filter((name) => !exported.has(name))).toEqual([]);
  });

  it('(2) imports only exported names in its examples', () => {
    const imported: string[] = [];
    for (const block of readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
      for (const statement of (block[1] ?? '').matchAll(/import\s*\{([^}]*)\}\s*from\s*'@strata\/ledger-meta'/g)) {
        imported.push(...(statement[1] ?? '').split(',').map((name) => name.replace(/^type\s+/, '').trim()));
      }
    }
    expect(imported.length).toBeGreaterThan(0);
    expect(imported.filter((name) => name !== '' && !exported.has(name))).toEqual([]);
  });

  it('(3) lists exactly the error codes', () => {
    const codes = tableRows('code').map(([code = '']) => code.replaceAll('`', ''));
    expect(codes.sort()).toEqual(Object.keys(ledgerMeta.LedgerMetaErrorCode).sort());
  });

  it('(4) quotes the cap and the limits the code has', () => {
    const MiB = 1024 * 1024;
    const text = readme.replace(/\s+/g, ' ');
    expect(text).toContain(`\`MAX_BATCH_BYTES_PER_LEDGER\` (${ledgerMeta.MAX_BATCH_BYTES_PER_LEDGER / MiB} MiB)`);
    expect(text).toContain(`\`MAX_BATCH_BYTES\` (${ledgerMeta.MAX_BATCH_BYTES / (1024 * MiB)} GiB)`);
    const limits = ledgerMeta.GENERATOR_LIMITS;
    const spaced = (value: number) => value.toLocaleString('en-US').replaceAll(',', ' ');
    expect(text).toContain(`\`eventsPerLedger\` 0 to ${spaced(limits.maxEventsPerLedger)}`);
    expect(text).toContain(`\`contracts\` 1 to ${spaced(limits.maxContracts)}`);
    expect(text).toContain(`\`accounts\` 0 to ${spaced(limits.maxAccounts)}`);
    expect(text).toContain(`\`protocolVersion\` ${limits.minProtocolVersion} or later`);
  });
});
