// LedgerEntry writer and encodeLedgerEntry.
import { invalidArgument } from '../errors.js';
import type { LedgerEntry } from '../model.js';
import { writeOptionalAccountId } from './asset.js';
import { writeEntryData, writeExtensionArm } from './entry-bodies.js';
import { u32Of } from './input-checks.js';
import { encodeWith, type XdrWriter } from './xdr-writer.js';

/** LedgerEntry: lastModifiedLedgerSeq, data, then ext (v1 only when a sponsorship extension is given). */
export function writeLedgerEntry(w: XdrWriter, entry: LedgerEntry, field: string): void {
  if (typeof entry !== 'object' || entry === null) invalidArgument(field, 'expected a LedgerEntry object');
  w.u32(u32Of(entry.lastModifiedLedgerSeq, `${field}.lastModifiedLedgerSeq`));
  writeEntryData(w, entry.data, `${field}.data`);
  const v1 = writeExtensionArm(w, entry.v1, 1, `${field}.v1`);
  if (v1 === undefined) return;
  writeOptionalAccountId(w, v1.sponsoringId, `${field}.v1.sponsoringId`);
  w.u32(0); // LedgerEntryExtensionV1.ext
}

/** Canonical XDR of a LedgerEntry (all ten data arms; CONFIG_SETTING takes its arm body as bytes). */
export function encodeLedgerEntry(entry: LedgerEntry): Uint8Array {
  return encodeWith(entry, writeLedgerEntry, 'LedgerEntry');
}
