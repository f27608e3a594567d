// Bad caller input to every public function is a LedgerMetaError, never a TypeError, RangeError or plain Error, and
// never a silent garbage result. Properties:
// 1. Each decoder, reader, writer, constructor and formatter given arguments of the wrong type, out of range, or
//    inconsistent throws LedgerMetaError INVALID_ARGUMENT whose `field` names the argument or option.
// 2. Readers and generators that return iterators throw from the call itself, before any file is opened.
// 3. LedgerChangeFold.observe validates its key and entry: malformed bytes keep ledger-key's code (as a
//    LedgerMetaError with `cause`), an entry of another key or a missing / extra entry is INVALID_ARGUMENT.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeLedgerEntry, ledgerKeyOfEntry } from '@strata/ledger-key';
import { tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import {
  batchLocation,
  DataLakeWriter,
  encodeLedgerCloseMetaBatch,
  encodeLedgerStream,
  extractLedger,
  generateNetwork,
  iterateLedgerCloseMetaRecords,
  LEDGER_ENTRY_CHANGE,
  LedgerChangeFold,
  LedgerMetaError,
  LedgerStreamWriter,
  openLedgerSource,
  readDataLake,
  readDataLakeConfig,
  readLedgerCloseMetaStream,
  readLedgerSequence,
  readPreviousLedgerHash,
  resolveGeneratorOptions,
  SYNTHETIC_NETWORK_PASSPHRASE,
  validateLedgerCloseMeta,
  writeLedgerStream,
} from '../src/index.js';

const lcm = ([...generateNetwork({ ledgers: 2, eventsPerLedger: 5, accounts: 10, contracts: 2, record: false })][1]
  ?.lcm ?? new Uint8Array()) as Uint8Array;
const stream = encodeLedgerStream([lcm]);
const layout = { ledgersPerBatch: 1, batchesPerPartition: 1 };
// Values TypeScript would refuse, as a JavaScript caller (or a parsed config) may pass them.
const anything = (value: unknown) => value as never;

/** What `call` throws (awaited, and iterated when it returns an iterator): must be a LedgerMetaError. */
async function thrown(call: () => unknown): Promise<LedgerMetaError> {
  let error: unknown;
  try {
    const result = call();
    if (result instanceof Promise) await result;
    else if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result) {
      for await (const _ of result as AsyncIterable<unknown>);
    } else if (result !== null && typeof result === 'object' && Symbol.iterator in result) {
      for (const _ of result as Iterable<unknown>);
    }
  } catch (caught) {
    error = caught;
  }
  if (error === undefined) throw new Error('expected a LedgerMetaError, the call succeeded');
  if (!(error instanceof LedgerMetaError)) throw new Error(`expected a LedgerMetaError, got ${String(error)}`);
  return error;
}

async function expectInvalid(call: () => unknown, field: string): Promise<void> {
  const error = await thrown(call);
  expect([error.code, error.field], error.message).toEqual(['INVALID_ARGUMENT', field]);
}

describe('bad arguments to the public functions', () => {
  it('(1) decoders: extractLedger, validateLedgerCloseMeta, readLedgerSequence, readPreviousLedgerHash', async () => {
    await expectInvalid(() => extractLedger(anything(undefined)), 'lcm');
    await expectInvalid(() => extractLedger(anything('a string is not bytes')), 'lcm');
    await expectInvalid(() => extractLedger(anything([0, 0, 0, 2])), 'lcm');
    await expectInvalid(() => extractLedger(lcm, anything(5)), 'location');
    await expectInvalid(() => extractLedger(lcm, { offset: -1 }), 'location.offset');
    await expectInvalid(() => extractLedger(lcm, { record: 0.5 }), 'location.record');
    await expectInvalid(() => extractLedger(lcm, { file: anything(3) }), 'location.file');
    await expectInvalid(() => extractLedger(lcm, {}, anything(5)), 'options');
    await expectInvalid(() => extractLedger(lcm, {}, { wasLive: anything(1) }), 'wasLive');
    await expectInvalid(() => validateLedgerCloseMeta(anything(null)), 'lcm');
    await expectInvalid(() => readLedgerSequence(anything({})), 'lcm');
    await expectInvalid(() => readPreviousLedgerHash(anything({})), 'lcm');
    await expectInvalid(() => readPreviousLedgerHash(lcm, { offset: -1 }), 'location.offset');
    // Cut inside the hash: TRUNCATED at the end of the bytes, the offset shifted by the location's.
    const hashAt = Buffer.from(lcm).indexOf(Buffer.from(extractLedger(lcm).header.previousLedgerHash));
    expect(hashAt).toBeGreaterThan(0);
    const cut = await thrown(() => readPreviousLedgerHash(lcm.subarray(0, hashAt + 16), { offset: 7 }));
    expect([cut.code, cut.offset]).toEqual(['TRUNCATED', hashAt + 16 + 7]);
    expect(readPreviousLedgerHash(lcm)).toEqual(extractLedger(lcm).header.previousLedgerHash);
  });

  it('(1, 2) stream readers and writers', async () => {
    await expectInvalid(() => iterateLedgerCloseMetaRecords(anything(null)), 'bytes');
    await expectInvalid(() => iterateLedgerCloseMetaRecords(stream, { maxRecordBytes: -1 }), 'maxRecordBytes');
    await expectInvalid(() => iterateLedgerCloseMetaRecords(stream, { maxRecordBytes: Number.NaN }), 'maxRecordBytes');
    await expectInvalid(() => iterateLedgerCloseMetaRecords(stream, { checkOrder: anything('no') }), 'checkOrder');
    await expectInvalid(() => iterateLedgerCloseMetaRecords(stream, { file: anything(5) }), 'file');
    expect(() => iterateLedgerCloseMetaRecords(anything(null))).toThrow(LedgerMetaError);

    const dir = tempDir('arguments');
    const path = join(dir, 'ledgers.xdr');
    await writeFile(path, stream);
    await expectInvalid(() => readLedgerCloseMetaStream(anything(undefined)), 'path');
    await expectInvalid(() => readLedgerCloseMetaStream(anything(5)), 'path');
    await expectInvalid(() => readLedgerCloseMetaStream(path, { readBufferBytes: Number.NaN }), 'readBufferBytes');
    await expectInvalid(() => readLedgerCloseMetaStream(path, { wholeFileBytes: -1 }), 'wholeFileBytes');
    expect(() => readLedgerCloseMetaStream(anything(5))).toThrow(LedgerMetaError);

    await expectInvalid(() => openLedgerSource(anything(undefined)), 'path');
    await expectInvalid(() => openLedgerSource(path, { from: Number.NaN }), 'from');
    await expectInvalid(() => openLedgerSource(path, { from: 1.5 }), 'from');
    await expectInvalid(() => openLedgerSource(path, { to: -1 }), 'to');
    await expectInvalid(() => openLedgerSource(path, { from: 5, to: 3 }), 'from');
    expect(() => openLedgerSource(join(dir, 'missing'), { from: Number.NaN })).toThrow(LedgerMetaError);

    await expectInvalid(() => encodeLedgerStream(anything(null)), 'ledgers');
    await expectInvalid(() => encodeLedgerStream([anything(5)]), 'lcm');
    await expectInvalid(() => writeLedgerStream(anything(undefined), []), 'path');
    await expectInvalid(() => writeLedgerStream(join(dir, 'a.xdr'), anything(5)), 'ledgers');
    await expectInvalid(() => writeLedgerStream(join(dir, 'b.xdr'), [anything(5)]), 'lcm');
    await expectInvalid(() => LedgerStreamWriter.create(anything(undefined)), 'path');
    const writer = await LedgerStreamWriter.create(join(dir, 'c.xdr'));
    await expectInvalid(() => writer.write(anything(null)), 'lcm');
    await writer.abort();
  });

  it('(1, 2) data-lake layout, writer and readers', async () => {
    await expectInvalid(() => batchLocation(Number.NaN, layout), 'ledger');
    await expectInvalid(() => batchLocation(-1, layout), 'ledger');
    await expectInvalid(() => batchLocation(2 ** 32, layout), 'ledger');
    await expectInvalid(() => batchLocation(2, { ledgersPerBatch: 0, batchesPerPartition: 1 }), 'ledgersPerBatch');
    await expectInvalid(
      () => batchLocation(2, { ledgersPerBatch: 1, batchesPerPartition: 1.5 }),
      'batchesPerPartition',
    );
    await expectInvalid(() => batchLocation(2, anything(null)), 'config');

    await expectInvalid(() => encodeLedgerCloseMetaBatch(-1, [lcm]), 'startSequence');
    await expectInvalid(() => encodeLedgerCloseMetaBatch(2 ** 32 - 1, [lcm, lcm]), 'lcms.length');
    await expectInvalid(() => encodeLedgerCloseMetaBatch(2, []), 'lcms');
    await expectInvalid(() => encodeLedgerCloseMetaBatch(2, [anything(5)]), 'lcms[0]');

    const root = tempDir('arguments-lake');
    const options = { networkPassphrase: SYNTHETIC_NETWORK_PASSPHRASE };
    await expectInvalid(() => DataLakeWriter.create(anything(undefined), options), 'root');
    await expectInvalid(() => DataLakeWriter.create(root, anything(undefined)), 'networkPassphrase');
    await expectInvalid(() => DataLakeWriter.create(root, { ...options, ledgersPerBatch: 1.5 }), 'ledgersPerBatch');
    await expectInvalid(
      () => DataLakeWriter.create(root, { ...options, batchesPerPartition: 0 }),
      'batchesPerPartition',
    );
    await expectInvalid(() => DataLakeWriter.create(root, { ...options, compressionLevel: 99 }), 'compressionLevel');
    const writer = await DataLakeWriter.create(root, { ...options, ...layout });
    await expectInvalid(() => writer.write(lcm, Number.NaN), 'sequence');
    await expectInvalid(() => writer.write(lcm, -3), 'sequence');
    await expectInvalid(() => writer.write(anything(null)), 'lcm');
    await writer.write(lcm);
    await writer.close();

    await expectInvalid(() => readDataLake(anything(undefined)), 'root');
    await expectInvalid(() => readDataLake(root, anything(7)), 'range');
    await expectInvalid(() => readDataLakeConfig(anything(5)), 'root');
  });

  it('(1, 3) LedgerChangeFold', async () => {
    const entry = encodeLedgerEntry({
      lastModifiedLedgerSeq: 7,
      data: { type: 'ttl', keyHash: new Uint8Array(32).fill(1), liveUntilLedgerSeq: 100 },
    });
    const other = encodeLedgerEntry({
      lastModifiedLedgerSeq: 7,
      data: { type: 'ttl', keyHash: new Uint8Array(32).fill(2), liveUntilLedgerSeq: 100 },
    });
    const key = ledgerKeyOfEntry(entry);
    const { CREATED, REMOVED } = LEDGER_ENTRY_CHANGE;
    await expectInvalid(() => new LedgerChangeFold(anything(5)), 'options');
    await expectInvalid(() => new LedgerChangeFold({ wasLive: anything(1) }), 'wasLive');
    const fold = new LedgerChangeFold();
    await expectInvalid(() => fold.observe(anything(9), key, entry), 'kind');
    await expectInvalid(() => fold.observe(CREATED, anything(null), entry), 'key');
    await expectInvalid(() => fold.observe(REMOVED, key, entry), 'entry');
    await expectInvalid(() => fold.observe(CREATED, key, null), 'entry');
    await expectInvalid(() => fold.observe(CREATED, key, other), 'entry');
    const badKey = await thrown(() => fold.observe(CREATED, key.subarray(0, 10), entry));
    expect([badKey.code, badKey.field?.startsWith('key')]).toEqual(['TRUNCATED', true]);
    const badEntry = await thrown(() => fold.observe(CREATED, key, entry.subarray(0, 20)));
    expect([badEntry.code, badEntry.field?.startsWith('entry')]).toEqual(['TRUNCATED', true]);
    await expectInvalid(() => fold.observeFields(CREATED, 12, key, 4, key.length, key, entry), 'type');
    await expectInvalid(() => fold.observeFields(CREATED, 9, key, 4, key.length + 1, key, entry), 'keyEnd');
    // None of the refused changes reached the fold.
    fold.observe(CREATED, key, entry);
    expect(fold.finish()).toEqual({ init: [entry], live: [], dead: [] });
  });

  it('(1, 2) the generator', async () => {
    await expectInvalid(() => generateNetwork(anything(undefined)), 'ledgers');
    await expectInvalid(() => generateNetwork(anything(null)), 'options');
    await expectInvalid(
      () => resolveGeneratorOptions({ ledgers: 2, eventsPerLedger: 99_999_999_999 }),
      'eventsPerLedger',
    );
    expect(() => generateNetwork({ ledgers: 2, eventsPerLedger: 99_999_999_999 })).toThrow(LedgerMetaError);
  });

  it('negative control: a leaked TypeError (or no error) fails the check', async () => {
    const leaking = (bytes: unknown) => (bytes as Uint8Array).subarray(0);
    await expect(thrown(() => leaking(undefined))).rejects.toThrow('expected a LedgerMetaError, got TypeError');
    await expect(thrown(() => leaking(new Uint8Array(4)))).rejects.toThrow('the call succeeded');
    await expect(expectInvalid(() => extractLedger(lcm, { offset: -1 }), 'lcm')).rejects.toThrow();
  });
});
