// Re-entry into the first chunk of a page (spec §4.7 step 6.2-6.3, §1.4 resume): a v2 position is fetched and its
// coordinates verified before the window is clipped past it; a v1 start (no ledger ordinal) is found by a binary
// search over its ledger's ordinals.
import type {
  ChunkReader,
  CursorPosition,
  EventPosition,
  LedgerOffsets,
  OrdinalWindow,
  PayloadView,
} from '@strata/events';
import { OP_MASK, TX_MASK } from '@strata/events';
import { storeInconsistent } from '../reader-calls.js';
import { cursorMalformed } from './page-request.js';
import { fetchOne } from './reader-calls.js';

/** The ordinals of `ledger` in the snapshot: `[start, end)`. */
function ledgerOrdinals(offsets: LedgerOffsets, ledger: number): OrdinalWindow {
  const start = offsets.firstOrdinal(ledger);
  return { start, end: start + offsets.countOf(ledger) };
}

/** (tx, op, event) of a view against a position's, in id order (the ledgers are equal). */
function compareWithinLedger(view: PayloadView, p: EventPosition): number {
  return view.txIndex - p.tx || view.opIndex - p.op || view.eventIndex - p.event;
}

/**
 * The v2 re-entry (spec §4.7 step 6.2): the event at the position's ledger ordinal is fetched and must carry the
 * position's (ledger, tx, op, event), else the cursor is CURSOR_MALFORMED (forged, or minted by a node whose ledger
 * holds other events). Returns `window` clipped to the events after it in walk order.
 */
export async function clipPastPosition(
  reader: ChunkReader,
  offsets: LedgerOffsets,
  window: OrdinalWindow,
  position: CursorPosition,
  descending: boolean,
): Promise<OrdinalWindow> {
  const { chunkId } = reader;
  const ledger = ledgerOrdinals(offsets, position.ledger);
  const count = ledger.end - ledger.start;
  if (position.ledgerOrdinal >= count) {
    cursorMalformed(
      `position names event ${position.ledgerOrdinal} of ledger ${position.ledger}, which holds ${count}`,
      {
        chunkId,
      },
    );
  }
  const ordinal = ledger.start + position.ledgerOrdinal;
  const view = await fetchOne(reader, ordinal);
  if (view.ledger !== position.ledger || compareWithinLedger(view, position) !== 0) {
    const p = position;
    cursorMalformed(
      `position (${p.ledger}, ${p.tx}, ${p.op}, ${p.event}) does not match the event (${view.ledger}, ${view.txIndex}, ${view.opIndex}, ${view.eventIndex}) at its ledger ordinal ${p.ledgerOrdinal}`,
      { chunkId },
    );
  }
  return descending ? { start: window.start, end: ordinal } : { start: ordinal + 1, end: window.end };
}

/**
 * The v1 start (spec §1.4, QueryEventsFrom): `window` clipped to the events at or after `from` (inclusive) in its
 * ledger and after. A start at the ledger's beginning, or at a window-end sentinel (tx 1048575 and op 4095: no stored
 * event has both, as after-all-transactions events have op 0), is resolved without I/O; otherwise a binary search
 * over the ledger's ordinals fetches one event per probe (⌈log2(count + 1)⌉ fetches at most).
 */
export async function clipToV1Start(
  reader: ChunkReader,
  offsets: LedgerOffsets,
  window: OrdinalWindow,
  from: EventPosition,
): Promise<OrdinalWindow> {
  const ledger = ledgerOrdinals(offsets, from.ledger);
  let start: number;
  if (from.tx === 0 && from.op === 0 && from.event === 0) start = ledger.start;
  else if (from.tx === TX_MASK && from.op === OP_MASK) start = ledger.end;
  else {
    // First ordinal whose event is at or after `from`: ids ascend with ordinals within a ledger (spec §2.2).
    let lo = ledger.start;
    let hi = ledger.end;
    while (lo < hi) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const view = await fetchOne(reader, mid);
      if (view.ledger !== from.ledger) {
        storeInconsistent(
          `ordinal ${mid} of ledger ${from.ledger} holds an event of ledger ${view.ledger}`,
          reader.chunkId,
        );
      }
      if (compareWithinLedger(view, from) < 0) lo = mid + 1;
      else hi = mid;
    }
    start = lo;
  }
  return { start, end: window.end };
}
