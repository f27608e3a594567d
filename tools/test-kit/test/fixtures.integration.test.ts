// The shared fixtures are where the test kit says they are, and a suite that needs them runs.
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { describeWithFixtures, fixturePath } from '../src/index.js';

describeWithFixtures('shared fixtures', [['stellar-core-lcm'], ['README.md']], () => {
  it('lists the stellar-core ledger-close-meta captures with their index files', () => {
    const suites = readdirSync(fixturePath('stellar-core-lcm'));
    expect(suites.length).toBeGreaterThan(0);
    for (const suite of suites) {
      const index = JSON.parse(readFileSync(fixturePath('stellar-core-lcm', suite, 'index.json'), 'utf8'));
      expect(index).toBeTypeOf('object');
    }
  });
});
