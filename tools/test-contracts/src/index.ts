// Contract suites for interchangeable Strata backends, with their in-memory reference implementations. Private:
// used by tests of the packages that implement the interfaces.
export {
  type ChunkReaderCheck,
  type ChunkReaderHarness,
  chunkInputArb,
  chunkReaderChecks,
  type MakeHarness,
  runChunkReaderChecks,
  runChunkReaderContract,
} from './chunk-reader-contract.js';
export { type ChunkInput, checkWindow, InMemoryChunkReader } from './in-memory-chunk-reader.js';
