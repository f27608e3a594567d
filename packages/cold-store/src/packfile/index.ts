// The packfile container: an immutable sequence of byte items grouped into checksummed, optionally zstd-compressed
// records, with a streaming writer and a batched, concurrent reader. FORMAT.md § "Packfile container".
export { PACKFILE_VERSION } from './format.js';
export { PackfileReader, type PackfileReaderStats, type PackfileReadOptions } from './reader.js';
export { type PackfileSummary, PackfileWriter, type PackfileWriterOptions } from './writer.js';
