// `ledger-state.json`: what the BucketList's own has.json does not say about the state (see FORMAT.md) — the
// network, and the protocol of the last ledger, which decides how the next ledger is applied (stellar-core keeps it
// in its LedgerHeader; a HAS does not carry it). Written before the BucketList commits a ledger and naming both that
// ledger and the one before, so whichever of the two has.json names after a crash, the protocol is known.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isErrnoError, writeFileAtomicSync } from '@strata/base';
import { LedgerStateError } from './errors.js';

export const STATE_FILE_NAME = 'ledger-state.json';
/** The version of `ledger-state.json` and of the directory layout around it (FORMAT.md). */
export const LEDGER_STATE_FORMAT_VERSION = 1;

/** A ledger the state was at: its sequence and its protocol (after its upgrades). */
export interface LedgerPosition {
  readonly ledger: number;
  readonly protocolVersion: number;
}

export interface StateFile {
  readonly format: number;
  readonly networkPassphrase: string;
  /** The ledger being committed or committed last. */
  readonly current: LedgerPosition;
  /** The ledger before `current` (absent at the first ledger of the state). */
  readonly previous: LedgerPosition | undefined;
  /** Set when a ledger's computed bucketListHash differed from its header's: the state is not the network's. */
  readonly diverged: { readonly ledger: number; readonly expected: string; readonly computed: string } | undefined;
}

export function writeStateFile(dir: string, state: StateFile, fsync: boolean): void {
  const path = join(dir, STATE_FILE_NAME);
  try {
    writeFileAtomicSync(path, Buffer.from(`${JSON.stringify(state, null, 2)}\n`), { fsync });
  } catch (error) {
    throw new LedgerStateError('IO', `cannot write ${STATE_FILE_NAME}`, { file: path, cause: error });
  }
}

/** The state file of `dir`, or undefined when there is none. A file this version cannot read is BAD_STATE. */
export function readStateFile(dir: string): StateFile | undefined {
  const path = join(dir, STATE_FILE_NAME);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (isErrnoError(error) && error.code === 'ENOENT') return undefined;
    throw new LedgerStateError('IO', `cannot read ${STATE_FILE_NAME}`, { file: path, cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LedgerStateError('BAD_STATE', 'not JSON', { file: path, cause: error });
  }
  return checkStateFile(value, path);
}

function checkStateFile(value: unknown, file: string): StateFile {
  const bad = (field: string, detail: string): never => {
    throw new LedgerStateError('BAD_STATE', detail, { file, field });
  };
  if (typeof value !== 'object' || value === null) return bad('', 'not an object');
  const record = value as Record<string, unknown>;
  if (record.format !== LEDGER_STATE_FORMAT_VERSION) {
    return bad('format', `format ${String(record.format)}; this version reads format ${LEDGER_STATE_FORMAT_VERSION}`);
  }
  if (typeof record.networkPassphrase !== 'string' || record.networkPassphrase.length === 0) {
    return bad('networkPassphrase', 'not a non-empty string');
  }
  const position = (field: string, v: unknown): LedgerPosition => {
    const p = v as Partial<LedgerPosition> | null;
    const uint = (n: unknown): boolean => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 0xffff_ffff;
    if (typeof p !== 'object' || p === null || !uint(p.ledger) || !uint(p.protocolVersion)) {
      return bad(field, 'not a { ledger, protocolVersion } of uint32s');
    }
    return { ledger: p.ledger as number, protocolVersion: p.protocolVersion as number };
  };
  const current = position('current', record.current);
  const previous = record.previous === undefined ? undefined : position('previous', record.previous);
  if (previous !== undefined && previous.ledger + 1 !== current.ledger)
    bad('previous', 'not the ledger before current');
  let diverged: StateFile['diverged'];
  if (record.diverged !== undefined) {
    const d = record.diverged as Record<string, unknown> | null;
    if (typeof d !== 'object' || d === null || typeof d.expected !== 'string' || typeof d.computed !== 'string') {
      return bad('diverged', 'not a { ledger, expected, computed }');
    }
    diverged = { ledger: Number(d.ledger), expected: d.expected, computed: d.computed };
  }
  return {
    format: LEDGER_STATE_FORMAT_VERSION,
    networkPassphrase: record.networkPassphrase,
    current,
    previous,
    diverged,
  };
}

/** The position of ledger `ledger` (the one has.json names) according to the state file. */
export function positionAt(state: StateFile, ledger: number, file: string): LedgerPosition {
  if (state.current.ledger === ledger) return state.current;
  if (state.previous?.ledger === ledger) return state.previous;
  throw new LedgerStateError(
    'BAD_STATE',
    `the BucketList is at ledger ${ledger}, the state file at ${state.current.ledger}`,
    { file },
  );
}
