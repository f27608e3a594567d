// Round trip (issue 4 must-show): generate → write a record-marked stream and a SEP-54 lake → read back with the
// package's readers (readLedgerCloseMetaStream, iterateLedgerCloseMetaRecords, readDataLake) → extractLedger gives
// the events and init/live/dead batches the generator recorded, ledger by ledger.
import { join } from 'node:path';
import { tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { DataLakeWriter, readDataLake } from '../src/datalake.js';
import { type GeneratedLedger, generateNetwork, SYNTHETIC_NETWORK_PASSPHRASE } from '../src/generator.js';
import { extractLedger } from '../src/ledger-close-meta.js';
import { iterateLedgerCloseMetaRecords, readLedgerCloseMetaStream } from '../src/stream.js';
import { encodeLedgerStream, writeLedgerStream } from '../src/stream-writer.js';

const hex = (bytes: Uint8Array | null) => (bytes === null ? null : Buffer.from(bytes).toString('hex'));
const ledgers = [
  ...generateNetwork({ seed: 'roundtrip', ledgers: 40, eventsPerLedger: 80, accounts: 150, contracts: 6 }),
];

function expectExtractMatches(lcm: Uint8Array, ledger: GeneratedLedger): void {
  const extract = extractLedger(lcm);
  expect(extract.header.ledgerSeq).toBe(ledger.sequence);
  expect(Number(extract.header.closeTime)).toBe(ledger.closeTime);
  expect(hex(extract.header.ledgerHash)).toBe(hex(ledger.hash));
  const view = (events: ReadonlyArray<Omit<GeneratedLedger['events'][number], 'type'> & { type: string }>) =>
    events.map((e) => ({
      id: e.id,
      ledger: e.ledger,
      tx: e.tx,
      op: e.op,
      eventIndex: e.eventIndex,
      stage: e.stage,
      type: e.type,
      contractId: hex(e.contractId),
      topics: e.topics.map(hex),
      value: hex(e.value),
      txHash: hex(e.txHash),
      inSuccessfulContractCall: e.inSuccessfulContractCall,
    }));
  expect(view(extract.events)).toEqual(view(ledger.events));
  const batch = ledger.batch;
  if (batch === null) throw new Error('generator ran without recording');
  expect(extract.changes.init.map(hex)).toEqual(batch.init.map(hex));
  expect(extract.changes.live.map(hex)).toEqual(batch.live.map(hex));
  expect(extract.changes.dead.map(hex)).toEqual(batch.dead.map(hex));
}

describe('generate → write → read → extract', () => {
  it('in memory through iterateLedgerCloseMetaRecords', () => {
    const records = [...iterateLedgerCloseMetaRecords(encodeLedgerStream(ledgers.map((l) => l.lcm)))];
    expect(records.map((r) => r.ledgerSeq)).toEqual(ledgers.map((l) => l.sequence));
    for (const [i, record] of records.entries()) expectExtractMatches(record.bytes, ledgers[i] as GeneratedLedger);
  });

  it('through a stream file', async () => {
    const path = join(tempDir('roundtrip'), 'ledgers.xdr');
    await writeLedgerStream(
      path,
      ledgers.map((l) => l.lcm),
    );
    let i = 0;
    for await (const record of readLedgerCloseMetaStream(path))
      expectExtractMatches(record.bytes, ledgers[i++] as GeneratedLedger);
    expect(i).toBe(ledgers.length);
  });

  it('through a SEP-54 data lake', async () => {
    const dir = tempDir('roundtrip');
    const writer = await DataLakeWriter.create(dir, {
      ledgersPerBatch: 8,
      batchesPerPartition: 4,
      networkPassphrase: SYNTHETIC_NETWORK_PASSPHRASE,
    });
    for (const ledger of ledgers) await writer.write(ledger.lcm, ledger.sequence);
    await writer.close();
    let i = 0;
    for await (const lcm of readDataLake(dir)) expectExtractMatches(lcm, ledgers[i++] as GeneratedLedger);
    expect(i).toBe(ledgers.length);
  });
});
