import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { fixturePath, fixturesDir, fixturesMissingReason, propertyParams, tempDir, withTempDir } from '../src/index.js';

const savedEnv = { ...process.env };
afterEach(() => {
  process.env = { ...savedEnv };
});

describe('fixtures', () => {
  it('defaults to ../shared/fixtures beside the checkout and honours STRATA_FIXTURES', () => {
    delete process.env.STRATA_FIXTURES;
    expect(fixturesDir().endsWith(join('shared', 'fixtures'))).toBe(true);
    process.env.STRATA_FIXTURES = '/somewhere/else';
    expect(fixturesDir()).toBe('/somewhere/else');
    expect(fixturePath('a', 'b.json')).toBe('/somewhere/else/a/b.json');
  });

  it('names every missing fixture path in the skip reason', () => {
    process.env.STRATA_FIXTURES = '/nonexistent-strata-fixtures';
    const reason = fixturesMissingReason(['x'], ['y', 'z']);
    expect(reason).toContain('/nonexistent-strata-fixtures/x');
    expect(reason).toContain('/nonexistent-strata-fixtures/y/z');
    expect(reason).toContain('STRATA_FIXTURES');
  });
});

describe('temp dirs', () => {
  let fromTest = '';
  it('gives a test a real directory', () => {
    fromTest = tempDir('kit');
    writeFileSync(join(fromTest, 'f'), 'x');
    expect(existsSync(join(fromTest, 'f'))).toBe(true);
  });
  it('removes it when that test finished', () => {
    expect(fromTest).not.toBe('');
    expect(existsSync(fromTest)).toBe(false);
  });
  it('withTempDir removes the directory even when the body throws', async () => {
    let seen = '';
    await expect(
      withTempDir((dir) => {
        seen = dir;
        throw new Error('body failed');
      }),
    ).rejects.toThrow('body failed');
    expect(existsSync(seen)).toBe(false);
  });
});

describe('propertyParams', () => {
  it('takes seed, path and run count from the environment', () => {
    process.env.STRATA_FC_SEED = '42';
    process.env.STRATA_FC_PATH = '3:1';
    process.env.STRATA_FC_RUNS = '7';
    expect(propertyParams({ numRuns: 1000 })).toEqual({ numRuns: 7, seed: 42, path: '3:1' });
  });
  it('rejects a seed that is not an integer', () => {
    process.env.STRATA_FC_SEED = 'abc';
    expect(() => propertyParams()).toThrow(/STRATA_FC_SEED/);
  });
  it('reports the seed of a failing property so it can be replayed', () => {
    delete process.env.STRATA_FC_SEED;
    const failing = () =>
      fc.assert(
        fc.property(fc.nat(), (n) => n < 5),
        propertyParams({ numRuns: 200 }),
      );
    expect(failing).toThrow(/seed: -?\d+/);
  });
});
