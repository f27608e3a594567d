// A bare LedgerCloseMetaBatch header (startSequence, endSequence, count), for tests that craft batch files the writer
// would never produce: empty batches, bombs behind a valid header.
export function batchHeader(startSequence: number, endSequence: number, count: number): Uint8Array {
  const header = Buffer.alloc(12);
  header.writeUInt32BE(startSequence, 0);
  header.writeUInt32BE(endSequence, 4);
  header.writeUInt32BE(count, 8);
  return header;
}
