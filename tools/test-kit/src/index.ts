// Test helpers shared by every Strata package. Private: used by tests, never by published code.
export { describeWithFixtures, fixturePath, fixturesDir, fixturesMissingReason } from './fixtures.js';
export { propertyParams } from './property.js';
export { tempDir, withTempDir } from './temp-dir.js';
