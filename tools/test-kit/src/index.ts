// Test helpers shared by every Strata package. Private: used by tests, never by published code.

export {
  type AnyArgumentCase,
  acceptedOrRefusedWith,
  type BadArguments,
  badArgumentFailures,
  type CodedError,
  describeAnyArguments,
  describeBadArguments,
  type EntryPoint,
  expectErrorCode,
  expectRejectionCode,
} from './bad-arguments.js';
export type { ChildDeadlineJob } from './child-deadline.js';
export { runChildWithDeadline } from './child-deadline.js';
export { type ErrorClass, errorOf, hex, rejectionOf } from './errors.js';
export {
  describeWithFixtures,
  fixturePath,
  fixturesDir,
  fixturesMissingReason,
  lcmFixtureStreams,
} from './fixtures.js';
export { propertyParams } from './property.js';
export { seededRandom } from './random.js';
export { tempDir, withTempDir } from './temp-dir.js';
export { expectWasmModuleInSync } from './wasm-drift.js';
