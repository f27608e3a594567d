import { ledgerKeyOfEntry } from '@strata/ledger-key';
import { describeWithFixtures, lcmFixtureStreams } from '@strata/test-kit';
import { expect, it } from 'vitest';
import {
  extractLedger,
  readLedgerCloseMetaStream,
  readPreviousLedgerHash,
  validateLedgerCloseMeta,
} from '../src/index.js';
import { type OracleEvent, oracleLedger } from './oracle.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

describeWithFixtures('stellar-core-lcm fixtures', [['stellar-core-lcm']], () => {
  it('parses every file and matches the stellar-base oracle on every ledger it can decode', async () => {
    const counts = {
      files: 0,
      ledgers: 0,
      compared: 0,
      parsedOnly: 0,
      events: 0,
      comparedEvents: 0,
      init: 0,
      live: 0,
      dead: 0,
      byVersion: [0, 0, 0],
      gapsInSequence: 0,
      chained: 0,
      restoredFromArchive: 0,
      unsafeInitByDefault: 0,
      inconsistent: 0,
    };
    const oracleFailures = new Map<string, number>();
    for (const file of lcmFixtureStreams()) {
      counts.files++;
      let previous: number | undefined;
      let previousLedgerHash: string | undefined;
      // Key (latin1 of its XDR) → present after the ledgers read so far. Genesis entries are unknown (undefined).
      const state = new Map<string, boolean>();
      const keyId = (key: Uint8Array): string => Buffer.from(key).toString('latin1');
      for await (const record of readLedgerCloseMetaStream(file)) {
        counts.ledgers++;
        const follows = previous !== undefined && record.ledgerSeq === previous + 1;
        if (previous === undefined) expect(record.ledgerSeq, `${file} starts at ledger 2`).toBe(2);
        else if (record.ledgerSeq !== previous + 1) counts.gapsInSequence++;
        previous = record.ledgerSeq;
        validateLedgerCloseMeta(record.bytes, record);
        let changesSeen = 0;
        const extract = extractLedger(record.bytes, record, { onChange: () => changesSeen++ });
        counts.byVersion[extract.header.lcmVersion] = (counts.byVersion[extract.header.lcmVersion] ?? 0) + 1;
        counts.events += extract.events.length;
        counts.init += extract.changes.init.length;
        counts.live += extract.changes.live.length;
        counts.dead += extract.changes.dead.length;
        expect(extract.header.ledgerSeq).toBe(record.ledgerSeq);
        // The header chain, read without an extract: the previous record's hash when the stream is consecutive.
        const previousHash = hex(readPreviousLedgerHash(record.bytes, record));
        expect(previousHash).toBe(hex(extract.header.previousLedgerHash));
        if (previousLedgerHash !== undefined && follows) {
          expect(previousHash).toBe(previousLedgerHash);
          counts.chained++;
        }
        previousLedgerHash = hex(extract.header.ledgerHash);

        const stateful = extractLedger(record.bytes, record, { wasLive: (key) => state.get(keyId(key)) === true });
        counts.restoredFromArchive += stateful.changes.init.length - extract.changes.init.length;
        // The default (no live-state knowledge) must never say init for a key the stream's state holds live.
        for (const entry of extract.changes.init) {
          if (state.get(keyId(ledgerKeyOfEntry(entry))) === true) counts.unsafeInitByDefault++;
        }
        for (const entry of stateful.changes.init) {
          const key = keyId(ledgerKeyOfEntry(entry));
          if (state.get(key) === true) counts.inconsistent++;
          state.set(key, true);
        }
        for (const entry of stateful.changes.live) {
          const key = keyId(ledgerKeyOfEntry(entry));
          if (state.get(key) === false) counts.inconsistent++;
          state.set(key, true);
        }
        for (const key of stateful.changes.dead) {
          if (state.get(keyId(key)) === false) counts.inconsistent++;
          state.set(keyId(key), false);
        }

        let expected: ReturnType<typeof oracleLedger>;
        try {
          expected = oracleLedger(record.bytes);
        } catch (error) {
          const reason = (error as Error).message.slice(0, 60);
          oracleFailures.set(reason, (oracleFailures.get(reason) ?? 0) + 1);
          counts.parsedOnly++;
          continue;
        }
        counts.compared++;
        counts.comparedEvents += extract.events.length;
        const where = `${file} record ${record.record} (ledger ${record.ledgerSeq})`;
        expect(extract.header.closeTime, where).toBe(expected.closeTime);
        expect(extract.header.protocolVersion, where).toBe(expected.protocolVersion);
        expect(hex(extract.header.ledgerHash), where).toBe(expected.ledgerHash);
        const actualEvents: OracleEvent[] = extract.events.map((event) => ({
          id: event.id,
          type: event.type === 'system' ? 'system' : event.type === 'contract' ? 'contract' : 'diagnostic',
          contractId: event.contractId === null ? null : hex(event.contractId),
          topics: event.topics.map(b64),
          value: b64(event.value),
          txHash: hex(event.txHash),
          successful: event.inSuccessfulContractCall,
        }));
        expect(actualEvents, where).toEqual(expected.events);
        expect(extract.changes.init.map(b64), where).toEqual(expected.init);
        expect(extract.changes.live.map(b64), where).toEqual(expected.live);
        expect(extract.changes.dead.map(b64), where).toEqual(expected.dead);
        expect(changesSeen, where).toBe(expected.changeCount);
      }
    }
    // The counts are part of the report this suite exists for (decoded-and-compared vs parsed-only).
    process.stdout.write(
      `ledger-meta fixtures: ${JSON.stringify(counts)}; not decodable by stellar-base: ${JSON.stringify([...oracleFailures])}\n`,
    );
    expect(counts.files).toBe(985);
    expect(counts.ledgers).toBe(18_024);
    expect(counts.byVersion).toEqual([4, 48, 17_972]);
    // The README of the fixtures: 224 ledgers use XDR newer than stellar-base 15.
    expect(counts.parsedOnly).toBe(224);
    expect(counts.compared).toBe(18_024 - 224);
    expect(counts.events).toBeGreaterThan(700);
    expect(counts.inconsistent).toBe(0);
    // Every ledger but each stream's first (and those after a gap) names its predecessor's hash.
    expect(counts.chained).toBe(18_024 - 985 - counts.gapsInSequence);
    // Without `wasLive` every restore is live (safe); with the stream's state, restores from the archive are init.
    // A positive count shows the stateful path changes the batch, so the consistency check above can fail.
    expect(counts.restoredFromArchive).toBeGreaterThan(0);
    expect(counts.unsafeInitByDefault).toBe(0);
  });
});
