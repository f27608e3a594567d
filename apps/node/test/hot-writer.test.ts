// The hot writer thread (hot-writer.ts) over real hot databases, on a real worker thread. Checks:
// 1. ledgers posted across a chunk boundary are written in order, answered one by one (events, live chunk, the
//    finished chunk and whether it is complete), a contiguous buffer is transferred (not copied) and separate
//    payloads are copied; a sync answers the newest ledger; what a reader opens afterwards is byte for byte what was
//    posted; a new writer reopens the newest chunk and reports its latest ledger;
// 2. a failing ingest (a ledger posted twice) is EVENTS_FAILED naming the ledger with the HotStoreError as cause;
//    the ledgers posted after it are not written, later posts throw, and a sync still reports what is durable.
import { join } from 'node:path';
import { chunkFirstLedger, chunkLastLedger } from '@strata/events';
import { HotStoreError, openHotReader } from '@strata/hot-store';
import { tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { dataDirLayout, hotChunkPath } from '../src/data-dir.js';
import { NodeError } from '../src/errors.js';
import { HotWriter, type HotWriterEvent } from '../src/hot-writer.js';
import { payloadsOf } from './support/hot-chunks.js';

const CHUNK = 3;

/** The payloads as views of one buffer, consecutive from its start (as encodeLedgerPayloads returns them). */
function contiguous(payloads: readonly Uint8Array[]): Uint8Array[] {
  const total = payloads.reduce((sum, p) => sum + p.byteLength, 0);
  const buffer = new Uint8Array(total);
  let at = 0;
  return payloads.map((payload) => {
    buffer.set(payload, at);
    at += payload.byteLength;
    return buffer.subarray(at - payload.byteLength, at);
  });
}

async function stored(layout: ReturnType<typeof dataDirLayout>, chunkId: number): Promise<Uint8Array[]> {
  const reader = openHotReader(hotChunkPath(layout, chunkId), { chunkId });
  try {
    const events = await reader.fetchRange({ start: 0, end: reader.eventCount() });
    return events.map((event) => new Uint8Array(event.payload));
  } finally {
    await reader.close();
  }
}

describe('HotWriter', () => {
  it('writes the ledgers posted, in order, across a chunk boundary, and reopens the newest chunk', async () => {
    const layout = dataDirLayout(join(tempDir('node-hot-writer'), 'data'));
    const last = chunkLastLedger(CHUNK);
    const ledgers = [
      ...payloadsOf(last - 1, 2),
      ...payloadsOf(chunkFirstLedger(CHUNK + 1), 1).map((l) => ({ ...l, payloads: contiguous(l.payloads) })),
    ];
    const expected = ledgers.map((l) => l.payloads.map((p) => p.slice()));
    const { writer, chunkId, hotLedger } = await HotWriter.open(layout, 1);
    expect({ chunkId, hotLedger }).toEqual({ chunkId: undefined, hotLedger: 1 });
    for (const { ledger, payloads } of ledgers) writer.post(ledger, payloads);
    expect(writer.inFlight).toBe(3);
    // Separate payloads are copied (still readable here); one contiguous buffer is transferred (detached).
    expect(ledgers[0]?.payloads[0]?.byteLength).toBeGreaterThan(0);
    expect(ledgers[2]?.payloads[0]?.byteLength).toBe(0);
    const events: HotWriterEvent[] = await writer.sync();
    expect(writer.inFlight).toBe(0);
    expect(events).toEqual([
      { op: 'ingested', ledger: last - 1, events: expected[0]?.length, chunkId: CHUNK },
      { op: 'ingested', ledger: last, events: expected[1]?.length, chunkId: CHUNK },
      {
        op: 'ingested',
        ledger: chunkFirstLedger(CHUNK + 1),
        events: expected[2]?.length,
        chunkId: CHUNK + 1,
        finished: { chunkId: CHUNK, complete: true },
      },
      { op: 'synced', durable: chunkFirstLedger(CHUNK + 1) },
    ]);
    await writer.close();
    expect(await stored(layout, CHUNK)).toEqual([...(expected[0] ?? []), ...(expected[1] ?? [])]);
    expect(await stored(layout, CHUNK + 1)).toEqual(expected[2]);

    const again = await HotWriter.open(layout, 1);
    expect({ chunkId: again.chunkId, hotLedger: again.hotLedger }).toEqual({
      chunkId: CHUNK + 1,
      hotLedger: chunkFirstLedger(CHUNK + 1),
    });
    await again.writer.close();
  });

  it('reports a failing ingest as EVENTS_FAILED naming the ledger, writes nothing after it, still syncs', async () => {
    const layout = dataDirLayout(join(tempDir('node-hot-writer-fail'), 'data'));
    const first = chunkFirstLedger(CHUNK);
    const [a, b, c] = payloadsOf(first, 3);
    if (a === undefined || b === undefined || c === undefined) throw new Error('three ledgers expected');
    const { writer } = await HotWriter.open(layout, 1);
    writer.post(a.ledger, a.payloads);
    writer.post(a.ledger, b.payloads); // the same ledger again: DUPLICATE_LEDGER in the hot store
    writer.post(b.ledger, b.payloads); // dropped: it follows the failure
    const events = await writer.sync();
    expect(events).toEqual([
      { op: 'ingested', ledger: a.ledger, events: a.payloads.length, chunkId: CHUNK },
      { op: 'synced', durable: a.ledger },
    ]);
    const failure = writer.failure;
    expect(failure).toBeInstanceOf(NodeError);
    expect(failure).toMatchObject({ code: 'EVENTS_FAILED', ledger: a.ledger, file: hotChunkPath(layout, CHUNK) });
    expect(failure?.cause).toBeInstanceOf(HotStoreError);
    expect(failure?.cause).toMatchObject({ code: 'DUPLICATE_LEDGER' });
    expect(() => writer.take()).toThrow(failure);
    expect(() => writer.post(c.ledger, c.payloads)).toThrow(failure);
    await writer.close();
    expect(await stored(layout, CHUNK)).toHaveLength(a.payloads.length);
  });
});
