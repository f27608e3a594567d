// The checked-in schema walker (src/xdr-walker.generated.ts) is what scripts/generate-xdr-walker.ts makes of the
// schema in src/xdr-schema.ts: (1) regenerating it in memory gives the checked-in file byte for byte (after a schema
// change: `pnpm --filter @strata/ledger-meta generate:xdr`); (2) a negative control: one more enum value in the
// schema changes the output, so a stale file cannot pass; (3) the file is type-checked like any other (no
// `@ts-nocheck`, no `any`) and evaluates nothing at run time (no `new Function`, no `eval`).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_WALKER_PATH, generateXdrWalker } from '../scripts/generate-xdr-walker.js';
import { LCM_SCHEMA } from '../src/xdr-schema.js';

const checkedIn = readFileSync(GENERATED_WALKER_PATH, 'utf8');

describe('generated schema walker', () => {
  it('(1) is in sync with the schema', () => {
    // toBe on the whole text would print two 200 KB strings; the first differing line says what is stale.
    const generated = generateXdrWalker();
    const generatedLines = generated.split('\n');
    const checkedInLines = checkedIn.split('\n');
    const first = generatedLines.findIndex((line, i) => line !== checkedInLines[i]);
    expect(
      first < 0 && generatedLines.length === checkedInLines.length
        ? null
        : { line: first + 1, generated: generatedLines[first], checkedIn: checkedInLines[first] },
      'src/xdr-walker.generated.ts is stale: run pnpm --filter @strata/ledger-meta generate:xdr',
    ).toBeNull();
    expect(generated).toBe(checkedIn);
  });

  it('(2) negative control: a schema change changes the generated walker', () => {
    const changed = { ...LCM_SCHEMA, MemoType: `${LCM_SCHEMA.MemoType} 5` };
    const generated = generateXdrWalker(changed);
    expect(generated).not.toBe(checkedIn);
    expect(generated).toContain(
      '    case 5:\n      return p + 4;\n  }\n  return fail(BAD_DISCRIMINANT, p, undefined, `MemoType',
    );
  });

  it('(3) is checked and static', () => {
    expect(checkedIn).not.toMatch(/@ts-nocheck|@ts-ignore|@ts-expect-error|\bany\b|biome-ignore/);
    expect(checkedIn).not.toMatch(/new Function|\beval\(/);
  });
});
