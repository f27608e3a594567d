// StrataNode: one data directory, opened the way stellar-core starts since PR #5252, and the per-ledger pipeline
// that feeds both stores from one ledger source. The commit point (README "The commit point"): each store commits
// each ledger on its own, in the order ledger state → hot chunk (the hot chunk on its writer thread, at most
// HOT_WRITER_MAX_IN_FLIGHT ledgers behind); a restart resumes at min(state, hot) + 1 and a store already past a
// ledger skips it; node.json's position is written only after both hold a ledger durably.
//
// Concurrency: one StrataNode per data directory and process, used from one async caller at a time (ingest and
// close are not reentrant). Durability: see the README; nothing in here is visible half-written after a crash.
import { existsSync, readFileSync, renameSync, rmSync, watch } from 'node:fs';
import { dirname } from 'node:path';
import { assert, fsyncDirectorySync, writeFileAtomicSync } from '@strata/base';
import type { logger as makeLogger } from '@strata/cli-kit';
import type { OpenedChunk } from '@strata/cold-store';
import { chunkLastLedger, encodeLedgerPayloads } from '@strata/events';
import { HotStoreError } from '@strata/hot-store';
import {
  extractLedger,
  type LedgerCloseMetaRecord,
  type LedgerExtract,
  LedgerMetaError,
  readPreviousLedgerHash,
} from '@strata/ledger-meta';
import { LedgerState, LedgerStateError, STATE_FILE_NAME } from '@strata/ledger-state';
import {
  checkNetwork,
  type DataDirLayout,
  dataDirLayout,
  hotChunkIds,
  NODE_FORMAT_VERSION,
  type NodeFile,
  networkIdOf,
  readNodeFile,
  writeNodeFile,
} from './data-dir.js';
import { type DataDirLock, lockDataDir } from './data-dir-lock.js';
import { NodeError } from './errors.js';
import {
  DEFAULT_RETENTION_LEDGERS,
  dropChunksBelow,
  dropFrozenHot,
  eventChunkIds,
  isFrozen,
  newestFrozenLedger,
  openEventsChunk,
  retentionFloor,
} from './event-chunks.js';
import { freezeInBackground } from './freezer.js';
import {
  generatorGenesis,
  isGeneratorSource,
  type NodeSource,
  pacedGeneratorRecords,
  sourceName,
  withScannedEvictions,
} from './generator-source.js';
import { HOT_WRITER_MAX_IN_FLIGHT, HotWriter, type HotWriterEvent } from './hot-writer.js';
import { firstLedgerOf, genesisFromSource, type SourceRange, sourceRecords } from './sources.js';

export type Logger = ReturnType<typeof makeLogger>;

/** The ledgers between two recorded positions during ingest (each recording costs a hot-chunk checkpoint). */
export const POSITION_INTERVAL_LEDGERS = 256;

/**
 * Test seam (an environment variable, since the tests drive real processes): when "1", the node resumes at
 * max(state, hot) + 1 instead of the minimum, the bug the restart tests must catch. Never set in production.
 */
export const BROKEN_RESUME_SEAM = 'STRATA_NODE_TEST_BROKEN_RESUME';

export interface NodeOptions {
  /** The network; required for a new data directory, checked against node.json for an existing one. */
  readonly networkPassphrase?: string;
  /**
   * Compare every ledger's bucketListHash with its header's. Default: true, false for the generator (its headers
   * are not real ones).
   */
  readonly verify?: boolean;
  /**
   * Keep the event chunks of the newest `retentionLedgers` ledgers: a chunk whose every ledger is older is removed
   * (default DEFAULT_RETENTION_LEDGERS, stellar-rpc's 120,960; 0 keeps every chunk).
   */
  readonly retentionLedgers?: number;
  /** Where BucketList merges run (default: worker threads). */
  readonly merger?: 'workers' | 'inline';
  /**
   * fsync the ledger state's files on every ledger (default true: each applied ledger survives a power cut). false
   * keeps every write atomic against a crash of the process (temp file + rename; SIGKILL-safe) but not durable
   * against a power cut or a kernel crash — for a node that can rebuild its data (the demo network, a test). On this
   * project's disks an fsync is ~40 ms, so false is several times faster when catching up.
   */
  readonly fsync?: boolean;
  /** Structured logs (startup phases, ingest summary). Default: none. */
  readonly log?: Logger;
}

/** What one startup phase took. */
export interface StartupPhase {
  readonly phase: 'open-state' | 'populate' | 'restart-merges' | 'reopen-hot' | 'resume';
  readonly seconds: number;
}

export interface IngestSummary {
  /** Ledgers read from the source at or after the resume point (applied by at least one store, or by none: skipped). */
  readonly ledgers: number;
  /** Ledgers the ledger state applied, and of those how many matched their header's bucketListHash. */
  readonly applied: number;
  readonly matching: number;
  /** Events written into the hot chunk. */
  readonly events: number;
  /** The recorded position afterwards. */
  readonly position: number | undefined;
}

/** A live node over one data directory: open it with `StrataNode.open`, feed it with `ingest`, then `close`. */
export class StrataNode {
  readonly layout: DataDirLayout;
  readonly phases: readonly StartupPhase[];
  #file: NodeFile;
  readonly #state: LedgerState;
  /** The live hot chunk's writer thread (undefined once closed). */
  #writer: HotWriter | undefined;
  /** The live hot chunk (undefined while there is none). */
  #liveChunk: number | undefined;
  /** The newest ledger the hot tier holds: written and answered by the writer (or firstLedger - 1 when none). */
  #hotLedger: number;
  /** The newest ledger posted to the writer (≥ #hotLedger): what ingest decides by. */
  #hotPosted: number;
  readonly #log: Logger | undefined;
  /** Header hashes (hex) of the last ledgers committed (both stores hold them), to record a position. */
  readonly #hashes = new Map<number, string>();
  /** The last ledger read and its header hash (hex): the next one must chain to it. */
  #chainHash: { readonly ledger: number; readonly hash: string } | undefined;
  /** LedgerCloseMeta bytes of the same ledgers, to write latest-ledger.xdr beside a position. */
  readonly #metas = new Map<number, Uint8Array>();
  /** The position's ledger as latest-ledger.xdr held it at startup (undefined when absent or not that ledger). */
  readonly #restored: CommittedLedger | undefined;
  #closed = false;
  /** The data directory's lock, released by close (undefined only while open() runs). */
  #lock: DataDirLock | undefined;
  /** Background freezes in flight by chunk id (close waits for them; retention leaves their chunks alone). */
  readonly #freezes = new Map<number, Promise<unknown>>();
  readonly #retentionLedgers: number;
  /** The newest ledger the node holds in every store, with its header's close time (RPC's latest ledger). */
  #latest: LatestLedger | undefined;

  private constructor(
    layout: DataDirLayout,
    file: NodeFile,
    state: LedgerState,
    writer: HotWriter,
    liveChunk: number | undefined,
    hotLedger: number,
    phases: StartupPhase[],
    log: Logger | undefined,
    retentionLedgers: number,
  ) {
    this.#retentionLedgers = retentionLedgers;
    this.layout = layout;
    this.#file = file;
    this.#state = state;
    this.#writer = writer;
    this.#liveChunk = liveChunk;
    this.#hotLedger = hotLedger;
    this.#hotPosted = hotLedger;
    this.phases = phases;
    this.#log = log;
    if (file.position !== null) this.#hashes.set(file.position.ledger, file.position.hash);
    const ledger = Math.min(state.ledger, hotLedger);
    if (file.position !== null && file.position.ledger === ledger) {
      this.#restored = readLatestLedgerFile(layout, file.position, log);
      this.#latest = {
        ledger,
        hash: file.position.hash,
        closeTime: this.#restored === undefined ? undefined : Number(this.#restored.header.closeTime),
        protocolVersion: state.protocolVersion,
      };
    }
  }

  /**
   * Opens `dataDir`, creating it from `source` when it holds no node yet (the source must then start at ledger 2:
   * the network's genesis is rebuilt from it and the passphrase). Startup phases, each logged with its duration:
   * open the ledger state without merges → populate the Soroban state (inside the open, timed by its own report) →
   * restartMerges → reopen the hot chunk → resume point min(state, hot) + 1.
   */
  static async open(
    dataDir: string,
    options: NodeOptions & { readonly source?: NodeSource } = {},
  ): Promise<StrataNode> {
    if (typeof dataDir !== 'string' || dataDir === '') {
      throw new NodeError('INVALID_ARGUMENT', 'dataDir must be a non-empty path', { field: 'dataDir' });
    }
    const retentionLedgers = options.retentionLedgers ?? DEFAULT_RETENTION_LEDGERS;
    if (!Number.isInteger(retentionLedgers) || retentionLedgers < 0) {
      throw new NodeError('INVALID_ARGUMENT', `retentionLedgers must be an integer ≥ 0, not ${retentionLedgers}`, {
        field: 'retentionLedgers',
      });
    }
    const layout = dataDirLayout(dataDir);
    // One node per data directory (data-dir-lock.ts): taken before anything is read or written (a new directory:
    // as soon as its node.json made it).
    let lock = existsSync(layout.root) ? lockDataDir(layout.root) : undefined;
    try {
      const node = await StrataNode.#openLocked(layout, options, retentionLedgers, () => {
        lock ??= lockDataDir(layout.root);
      });
      node.#lock = lock;
      return node;
    } catch (error) {
      lock?.release();
      throw error;
    }
  }

  static async #openLocked(
    layout: DataDirLayout,
    options: NodeOptions & { readonly source?: NodeSource },
    retentionLedgers: number,
    takeLock: () => void,
  ): Promise<StrataNode> {
    const verify = options.verify ?? !isGeneratorSource(options.source);
    let file = readNodeFile(layout);
    if (file === undefined) file = await initDataDir(layout, options);
    else checkNetwork(layout, file, options.networkPassphrase);
    takeLock();
    if (!existsSync(`${layout.stateDir}/${STATE_FILE_NAME}`)) await createGenesisState(layout, file, options);
    const log = options.log;
    const phases: StartupPhase[] = [];
    const phase = (name: StartupPhase['phase'], seconds: number, fields: Record<string, unknown> = {}) => {
      phases.push({ phase: name, seconds });
      log?.info({ phase: name, seconds, ...fields }, `startup phase ${name} took ${seconds.toFixed(3)} s`);
    };
    let populationSeconds = 0;
    let started = performance.now();
    let state: LedgerState;
    try {
      state = await LedgerState.open(layout.stateDir, {
        networkPassphrase: file.networkPassphrase,
        restartMerges: false,
        verify,
        ...(options.fsync === undefined ? {} : { fsync: options.fsync }),
        ...(options.merger === undefined ? {} : { merger: options.merger }),
        onEvent: (event) => {
          if (event.type !== 'population') return;
          populationSeconds = event.report.seconds;
          log?.info({ report: event.report }, event.message);
        },
      });
    } catch (error) {
      throw stateError(error, 'open the ledger state', undefined);
    }
    const openSeconds = (performance.now() - started) / 1000;
    phase('open-state', Math.max(0, openSeconds - populationSeconds), { ledger: state.ledger });
    phase('populate', populationSeconds, {
      data: state.sorobanState.dataCount,
      code: state.sorobanState.codeCount,
    });
    let writer: HotWriter | undefined;
    try {
      started = performance.now();
      state.restartMerges();
      phase('restart-merges', (performance.now() - started) / 1000);
      started = performance.now();
      // Frozen chunks whose hot database a crash left behind lose it now (cold wins); then the live chunk.
      for (const chunkId of hotChunkIds(layout)) {
        if (!isFrozen(layout, chunkId)) continue;
        try {
          await dropFrozenHot(layout, chunkId);
        } catch (error) {
          if (!(error instanceof NodeError) && !(error instanceof HotStoreError)) throw error;
          log?.warn({ chunkId, err: error }, `frozen chunk ${chunkId} keeps its hot database: ${error.message}`);
        }
      }
      const baseLedger = Math.max(file.firstLedger - 1, newestFrozenLedger(layout) ?? 0);
      const opened = await HotWriter.open(layout, baseLedger);
      writer = opened.writer;
      const { chunkId, hotLedger } = opened;
      phase('reopen-hot', (performance.now() - started) / 1000, { hotLedger, chunk: chunkId });
      const node = new StrataNode(layout, file, state, writer, chunkId, hotLedger, phases, log, retentionLedgers);
      node.#resumeFreezes();
      phase('resume', 0, { nextLedger: node.nextLedger, stateLedger: state.ledger, hotLedger });
      return node;
    } catch (error) {
      // The writer thread too: left running, it would keep the process alive.
      await writer?.close().catch(() => undefined);
      await state.close().catch(() => undefined);
      throw error;
    }
  }

  /** node.json as last written. */
  get file(): NodeFile {
    return this.#file;
  }

  get state(): LedgerState {
    return this.#state;
  }

  /** The newest ledger in the hot tier (firstLedger - 1 when none). */
  get hotLedger(): number {
    return this.#hotLedger;
  }

  /** The network passphrase node.json records. */
  get networkPassphrase(): string {
    return this.#file.networkPassphrase;
  }

  /**
   * The newest ledger every store holds (ledger state and events tier), with its header hash, close time (undefined
   * right after startup, before a ledger was read) and protocol; undefined before the first ledger.
   */
  get latestLedger(): LatestLedger | undefined {
    return this.#latest;
  }

  /**
   * The newest ledger every store held at startup, its LedgerCloseMeta and header as latest-ledger.xdr kept them
   * (undefined when the file is missing or names another ledger, e.g. after a kill between two positions): what an RPC
   * server's recent ledgers start from.
   */
  get restoredLedger(): CommittedLedger | undefined {
    return this.#restored;
  }

  /** The ledger-state (BucketList + Soroban state) reader, as `state`: read it between two ingested ledgers. */
  get ledgerState(): LedgerState {
    return this.#state;
  }

  /** Every event chunk either tier holds, ascending (retention removed the older ones). */
  eventChunkIds(): number[] {
    return eventChunkIds(this.layout);
  }

  /** The oldest ledger whose events the node still holds (retention's floor), or undefined when it holds none. */
  get oldestEventLedger(): number | undefined {
    const first = this.eventChunkIds()[0];
    if (first === undefined) return undefined;
    return Math.max(this.#file.firstLedger, first === 0 ? 2 : chunkLastLedger(first - 1) + 1);
  }

  /**
   * A reader of event chunk `chunkId` from the tier that serves it now: cold once frozen (the manifest is the
   * switch, "cold wins"), else a read-only reader of its hot database (the live one too: its writer is another
   * thread). The caller closes it. EVENTS_FAILED when no tier holds the chunk.
   */
  async openEventsChunk(chunkId: number): Promise<OpenedChunk> {
    return openEventsChunk(this.layout, chunkId);
  }

  /** The next ledger to ingest: min(state, hot) + 1 (the store that ran ahead skips up to its own position). */
  get nextLedger(): number {
    // The negative control of the integration tests: a node resuming past the lagging store must be caught.
    if (process.env[BROKEN_RESUME_SEAM] === '1') return Math.max(this.#state.ledger, this.#hotLedger) + 1;
    return Math.min(this.#state.ledger, this.#hotLedger) + 1;
  }

  /**
   * Ingests the ledgers of `source` from the resume point (or `range.from`, which may not be past it) through
   * `range.to` (default: the source's end). Per ledger L, in order: checks that L follows the previous record
   * (LEDGER_GAP / DUPLICATE_LEDGER / OUT_OF_ORDER_LEDGER otherwise, naming the ledger) and that its header chains
   * to the previous one; ledger-state apply (unless the state already holds L); events into L's hot chunk (unless
   * the hot tier holds L), posted to the writer thread, which runs behind by at most HOT_WRITER_MAX_IN_FLIGHT
   * ledgers; L is committed (onLedger, latestLedger) once both stores hold it. Every POSITION_INTERVAL_LEDGERS the
   * hot chunk is synced (on its thread) and the position recorded; at the end the writer is drained, synced and the
   * position recorded. On any error, what both stores committed is recorded before the error propagates.
   * `range.signal` stops it between two ledgers.
   */
  async ingest(
    source: NodeSource,
    range: SourceRange & { readonly signal?: AbortSignal } = {},
    onLedger?: (ledger: number, summary: IngestSummary, committed: CommittedLedger) => void,
  ): Promise<IngestSummary> {
    this.#usable();
    const resume = this.nextLedger;
    // Read from just after the recorded position: the ledgers between it and the resume point are held by the
    // stores already, but reading them continues the header chain from the hash node.json recorded.
    const readFrom = Math.min(resume, (this.#file.position?.ledger ?? this.#file.firstLedger - 1) + 1);
    if (range.from !== undefined && range.from > resume) {
      throw new NodeError('LEDGER_GAP', `--from ${range.from} is past the next ledger ${resume}`, {
        ledger: resume,
        field: 'from',
      });
    }
    const counts = { ledgers: 0, applied: 0, matching: 0, events: 0 };
    const summary = (): IngestSummary => ({ ...counts, position: this.#file.position?.ledger });
    let expected = range.from === undefined ? readFrom : Math.min(readFrom, range.from);
    let previous: number | undefined;
    const sourceRange = { from: expected, ...(range.to === undefined ? {} : { to: range.to }) };
    const generator = isGeneratorSource(source);
    const iterator = (
      generator
        ? pacedGeneratorRecords(source, this.#file.networkPassphrase, sourceRange, range.signal)
        : sourceRecords(source, sourceRange)
    )[Symbol.asyncIterator]();
    let peeked: LedgerCloseMetaRecord | undefined;
    const next = async (): Promise<LedgerCloseMetaRecord | undefined> => {
      if (peeked !== undefined) {
        const record = peeked;
        peeked = undefined;
        return record;
      }
      const result = await iterator.next();
      return result.done === true ? undefined : result.value;
    };
    let sinceRecorded = 0;
    // Ledgers read and applied by the state but not yet answered by the hot writer, ascending: each is committed
    // (both stores hold it) once the hot tier's newest ledger reaches it.
    const pending: PendingLedger[] = [];
    const commitReady = () => {
      while (pending.length > 0 && (pending[0] as PendingLedger).ledger <= this.#hotLedger) {
        const { ledger, hash, committed } = pending.shift() as PendingLedger;
        this.#rememberHash(ledger, hash, committed.bytes);
        this.#latest = {
          ledger,
          hash,
          closeTime: Number(committed.header.closeTime),
          protocolVersion: this.#state.protocolVersion,
        };
        onLedger?.(ledger, summary(), committed);
      }
    };
    const settle = (events: readonly HotWriterEvent[]) => {
      for (const event of events) {
        if (event.op === 'synced') {
          if (event.durable !== undefined) this.#writePosition(event.durable);
          continue;
        }
        this.#hotLedger = event.ledger;
        this.#liveChunk = event.chunkId;
        counts.events += event.events;
        if (event.finished?.complete === true) this.#freezeInBackground(event.finished.chunkId);
        commitReady();
      }
      commitReady();
    };
    // After the last ledger, or an error: close the source, drain the writer, sync and record the position.
    const finish = async (failure: unknown) => {
      try {
        await iterator.return?.(undefined);
        await this.#syncAndRecordPosition(settle);
      } catch (error) {
        // The error in flight (the first one) is the one to report; this one is logged.
        if (failure === undefined) throw error;
        this.#log?.warn({ err: error }, 'cannot record the position after an error');
      }
    };
    try {
      for (let record = await next(); record !== undefined; record = await next()) {
        if (range.signal?.aborted === true) break; // between ledgers only: a ledger is never left half-done
        const ledger = record.ledgerSeq;
        if (previous !== undefined && ledger <= previous) {
          throw new NodeError(
            ledger === previous ? 'DUPLICATE_LEDGER' : 'OUT_OF_ORDER_LEDGER',
            ledger === previous
              ? `the source repeats ledger ${ledger}`
              : `the source goes back from ledger ${previous} to ledger ${ledger}`,
            { ledger, ...fileOf(record) },
          );
        }
        if (ledger > expected) {
          // A later ledger where `expected` belongs: out of order when `expected` comes right after it, else a gap.
          peeked = await next();
          if (peeked?.ledgerSeq === expected) {
            throw new NodeError('OUT_OF_ORDER_LEDGER', `the source has ledger ${ledger} before ledger ${expected}`, {
              ledger,
              ...fileOf(record),
            });
          }
          throw new NodeError(
            'LEDGER_GAP',
            `the source skips ledger ${expected}: ${previous === undefined ? 'it starts at' : `after ledger ${previous} comes`} ledger ${ledger}`,
            { ledger: expected, ...fileOf(record) },
          );
        }
        // A ledger the state applies is extracted once, by the state (its header and events are a plain extract's);
        // the chain is checked first from the header alone. A generated ledger is extracted here first, as its
        // evictions are rewritten to what stellar-core's scan finds (generator-source.ts); so is a ledger the state
        // holds already (only the hot tier lags).
        const applies = ledger > this.#state.ledger;
        let extract = applies && !generator ? undefined : extractOf(record);
        this.#checkChain(ledger, extract?.header.previousLedgerHash ?? previousHashOf(record), record);
        if (applies) {
          let applied: Awaited<ReturnType<LedgerState['apply']>>;
          try {
            const bytes =
              extract === undefined ? record.bytes : withScannedEvictions(this.#state, record.bytes, extract);
            applied = await this.#state.apply(bytes, record);
          } catch (error) {
            // Bytes that do not extract at all are the source's fault, as they were when the node extracted first.
            if (extract === undefined && error instanceof LedgerStateError && error.cause instanceof LedgerMetaError) {
              extractOf(record);
            }
            throw stateError(error, `apply ledger ${ledger}`, ledger);
          }
          extract ??= applied.extract;
          counts.applied++;
          if (applied.matches) counts.matching++;
        }
        assert(extract !== undefined, 'a ledger not applied was extracted here');
        const hash = Buffer.from(extract.header.ledgerHash).toString('hex');
        this.#chainHash = { ledger, hash };
        pending.push({ ledger, hash, committed: { bytes: record.bytes, header: extract.header } });
        const writer = this.#liveWriter();
        if (ledger > this.#hotPosted) {
          await writer.waitForRoom(HOT_WRITER_MAX_IN_FLIGHT);
          settle(writer.take());
          this.#postEvents(writer, ledger, extract);
        }
        counts.ledgers++;
        previous = ledger;
        expected = ledger + 1;
        if (++sinceRecorded >= POSITION_INTERVAL_LEDGERS) {
          writer.requestSync(); // its reply records the position (settle)
          sinceRecorded = 0;
        }
        // A turn of the event loop between ledgers: a server in this thread answers while the node catches up, and
        // the writer's replies arrive.
        await yieldToEventLoop();
        settle(writer.take());
      }
    } catch (error) {
      await finish(error);
      throw error;
    }
    await finish(undefined);
    this.#log?.info({ ...summary(), nextLedger: this.nextLedger, source: sourceName(source) }, 'ingest finished');
    return summary();
  }

  /**
   * Follow mode: ingests what `source` holds, then waits for it to grow (fs.watch on the path, and a poll every
   * `pollMs` in case the watch misses a change) and ingests again, until `signal` aborts; resolves after the
   * ingest in progress finished (never in the middle of a ledger). A record cut short at the end of a growing file
   * (TRUNCATED) is not an error here: it is the writer's next ledger, read on the next round. Any other error ends
   * the loop with that error, as in `ingest`.
   */
  async follow(
    source: NodeSource,
    options: {
      readonly signal: AbortSignal;
      readonly pollMs?: number;
      /** Called after each committed ledger, as `ingest`'s onLedger (the JSON-RPC server keeps recent metas). */
      readonly onLedger?: (ledger: number, summary: IngestSummary, committed: CommittedLedger) => void;
    },
    onRound?: (summary: IngestSummary) => void,
  ): Promise<void> {
    this.#usable();
    const pollMs = options.pollMs ?? 1000;
    while (!options.signal.aborted) {
      try {
        // not inside `onRound?.(…)`: that skips its argument
        const summary = await this.ingest(source, { signal: options.signal }, options.onLedger);
        onRound?.(summary);
      } catch (error) {
        if (!isTruncatedTail(error)) throw error;
        this.#log?.info(
          { detail: (error as Error).message },
          'the source ends in a partial record; waiting for the rest',
        );
      }
      this.#log?.info({ nextLedger: this.nextLedger }, 'caught up with the source; waiting for new ledgers');
      await changeOrTimeout(isGeneratorSource(source) ? undefined : source, pollMs, options.signal);
    }
  }

  /** Records the position, closes the hot chunk and the ledger state (waiting for merges). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const writer = this.#writer;
    try {
      await this.#syncAndRecordPosition((events) => {
        for (const event of events)
          if (event.op === 'synced' && event.durable !== undefined) this.#writePosition(event.durable);
      }).catch((error: unknown) => this.#log?.warn({ err: error }, 'cannot sync the hot chunk at close'));
    } finally {
      this.#writer = undefined;
      try {
        await writer?.close();
      } catch (error) {
        this.#log?.warn({ err: error }, 'cannot close the hot chunk cleanly');
      }
      try {
        await Promise.all(this.#freezes.values());
        await this.#state.close();
      } finally {
        this.#lock?.release();
      }
    }
  }

  #checkChain(ledger: number, previousLedgerHash: Uint8Array, record: LedgerCloseMetaRecord): void {
    const chain = this.#chainHash;
    const previousHash = chain?.ledger === ledger - 1 ? chain.hash : this.#hashes.get(ledger - 1);
    if (previousHash === undefined) return;
    const named = Buffer.from(previousLedgerHash).toString('hex');
    if (named !== previousHash) {
      throw new NodeError(
        'HEADER_CHAIN_MISMATCH',
        `ledger ${ledger} names previous ledger hash ${named}, but ledger ${ledger - 1} has hash ${previousHash}`,
        { ledger, ...fileOf(record) },
      );
    }
  }

  #rememberHash(ledger: number, hash: string, meta: Uint8Array): void {
    this.#hashes.set(ledger, hash);
    this.#metas.set(ledger, meta);
    // Keep the last two: a position is min(state, hot), at most one ledger behind the newest.
    for (const key of this.#hashes.keys()) if (key < ledger - 1) this.#hashes.delete(key);
    for (const key of this.#metas.keys()) if (key < ledger - 1) this.#metas.delete(key);
  }

  /** The writer, or EVENTS_FAILED once the node closed it. */
  #liveWriter(): HotWriter {
    const writer = this.#writer;
    if (writer === undefined) throw new NodeError('EVENTS_FAILED', 'the hot writer is closed');
    return writer;
  }

  /** Posts ledger L's events to the writer thread (it opens L's chunk at a boundary and reports the finished one). */
  #postEvents(writer: HotWriter, ledger: number, extract: LedgerExtract): void {
    writer.post(ledger, eventPayloads(ledger, extract));
    this.#hotPosted = ledger;
  }

  /**
   * Waits for the writer to answer every ledger posted, syncs the hot chunk (on its thread) and records the
   * position from the sync's durable ledger; `settle` commits the ledgers answered meanwhile. Throws the writer's
   * failure (EVENTS_FAILED naming the ledger), after recording what both stores hold.
   */
  async #syncAndRecordPosition(settle: (events: readonly HotWriterEvent[]) => void): Promise<void> {
    const writer = this.#writer;
    if (writer === undefined) return;
    settle(await writer.sync());
    if (writer.failure !== undefined) throw writer.failure;
  }

  /**
   * Records min(state, hot `durable`) in node.json, `durable` being what a sync of the hot chunk just made durable:
   * never ahead of what every store holds durably (the state fsyncs each ledger it applies). Skipped when that
   * ledger's hash is not known.
   */
  #writePosition(durable: number): void {
    const ledger = Math.min(this.#state.ledger, this.#hotLedger, durable);
    const hash = this.#hashes.get(ledger);
    if (hash === undefined || ledger === this.#file.position?.ledger) return;
    this.#file = { ...this.#file, position: { ledger, hash } };
    writeNodeFile(this.layout, this.#file);
    const meta = this.#metas.get(ledger);
    if (meta === undefined) return;
    try {
      writeFileAtomicSync(this.layout.latestLedgerFile, meta, { fsync: false });
    } catch (error) {
      // A cache: without it a restart answers getLatestLedger from the next ledger on.
      this.#log?.warn({ err: error, file: this.layout.latestLedgerFile }, 'cannot write latest-ledger.xdr');
    }
  }

  /**
   * Starts the background freeze of a finished chunk (its ingest complete, its hot database closed here), then the
   * swap: once the cold manifest is durable, the cold chunk is reopened and checked against the hot one and the hot
   * database dropped (event-chunks.ts), then retention runs. The outcome is logged and never fails ingest: until the
   * swap the chunk stays hot, and a failed freeze leaves it so (startup tries again). A chunk already below the
   * retention floor is dropped instead of frozen.
   */
  #freezeInBackground(chunkId: number): void {
    if (this.#freezes.has(chunkId)) return;
    if (chunkId < this.#retentionFloor()) {
      this.#applyRetention();
      return;
    }
    let freezing: Promise<unknown>;
    const started = performance.now();
    this.#log?.info({ chunkId }, `freezing chunk ${chunkId} to cold in the background`);
    try {
      freezing = freezeInBackground(this.layout, chunkId)
        .then(async (outcome) => {
          await dropFrozenHot(this.layout, chunkId);
          const seconds = (performance.now() - started) / 1000;
          // nextLedger: how far ingest went on meanwhile.
          this.#log?.info(
            { chunkId, ...outcome, seconds, nextLedger: this.nextLedger },
            `froze chunk ${chunkId} to cold; its hot database is dropped`,
          );
        })
        .catch((error: unknown) =>
          this.#log?.warn({ chunkId, err: error }, `cannot freeze chunk ${chunkId}; it stays hot`),
        );
    } catch (error) {
      this.#log?.warn({ chunkId, err: error }, `cannot start freezing chunk ${chunkId}; it stays hot`);
      return;
    }
    const tracked = freezing.finally(() => {
      this.#freezes.delete(chunkId);
      if (!this.#closed) this.#applyRetention();
    });
    this.#freezes.set(chunkId, tracked);
  }

  /**
   * At startup: freezes again each complete hot chunk without a cold manifest that is not the live one (a crash or a
   * failure interrupted its freeze), then applies retention.
   */
  #resumeFreezes(): void {
    for (const chunkId of hotChunkIds(this.layout)) {
      if (chunkId === this.#liveChunk || isFrozen(this.layout, chunkId)) continue;
      if (chunkLastLedger(chunkId) > this.#hotLedger) continue; // not complete (cannot be: it is not the newest)
      this.#freezeInBackground(chunkId);
    }
    this.#applyRetention();
  }

  #retentionFloor(): number {
    return retentionFloor(this.#hotLedger, this.#retentionLedgers);
  }

  /** Removes the chunks below the retention floor, except the live one and those being frozen. Logged, never thrown. */
  #applyRetention(): void {
    const floor = this.#retentionFloor();
    if (floor === 0) return;
    try {
      const inFlight = [...this.#freezes.keys()];
      const below = Math.min(floor, ...inFlight);
      const dropped = dropChunksBelow(this.layout, below, this.#liveChunk);
      if (dropped.length > 0) {
        this.#log?.info({ dropped, floor, retentionLedgers: this.#retentionLedgers }, 'retention dropped chunks');
      }
    } catch (error) {
      this.#log?.warn({ err: error }, 'retention could not drop every old chunk; it tries again later');
    }
  }

  #usable(): void {
    if (this.#closed) throw new NodeError('INVALID_ARGUMENT', 'the node is closed', { field: 'node' });
  }
}

/**
 * A ledger both stores hold, as `ingest`'s onLedger sees it right after: its LedgerCloseMeta as the source gave it
 * (a generated one before its evictions were rewritten) and its header (e.g. for an RPC server's recent ledgers).
 */
export interface CommittedLedger {
  readonly bytes: Uint8Array;
  readonly header: LedgerExtract['header'];
}

/** A ledger read and applied by the state, waiting for the hot tier to hold it too. */
interface PendingLedger {
  readonly ledger: number;
  readonly hash: string;
  readonly committed: CommittedLedger;
}

/** The newest ledger the node holds in every store (RPC's latest ledger). */
export interface LatestLedger {
  readonly ledger: number;
  /** The header hash, hex. */
  readonly hash: string;
  /** The header's closeTime (seconds), undefined until a ledger was read in this process. */
  readonly closeTime: number | undefined;
  readonly protocolVersion: number;
}

/** Ledger `ledger`'s contract events as the events tiers store them (@strata/events payloads, in event-id order). */
export function eventPayloads(ledger: number, extract: LedgerExtract): Uint8Array[] {
  // One buffer for the ledger's payloads (each a view of it), not one an event.
  return encodeLedgerPayloads(ledger, Number(extract.header.closeTime), extract.events);
}

/** The first node.json of a new data directory (the source must start at ledger 2, the network's genesis). */
async function initDataDir(layout: DataDirLayout, options: NodeOptions & { readonly source?: NodeSource }) {
  const passphrase = options.networkPassphrase;
  if (passphrase === undefined || passphrase === '') {
    throw new NodeError('INVALID_ARGUMENT', 'a new data directory needs --network-passphrase', {
      field: 'networkPassphrase',
      file: layout.root,
    });
  }
  if (options.source === undefined) {
    throw new NodeError('BAD_DATA_DIR', `no node.json: not a data directory (ingest into it first)`, {
      file: layout.root,
    });
  }
  const first = isGeneratorSource(options.source) ? 2 : await firstLedgerOf(options.source);
  if (first !== 2) {
    throw new NodeError(
      'SOURCE_MISMATCH',
      `a new data directory starts from the network's genesis: the source must start at ledger 2, not ${first ?? '(empty)'}`,
      { file: sourceName(options.source), ...(first === undefined ? {} : { ledger: first }) },
    );
  }
  const file: NodeFile = {
    formatVersion: NODE_FORMAT_VERSION,
    networkPassphrase: passphrase,
    networkId: networkIdOf(passphrase),
    firstLedger: 2,
    position: null,
  };
  writeNodeFile(layout, file);
  return file;
}

/**
 * Builds ledger 1 from the source's genesis in a side directory and renames it into place, so that a crash leaves
 * either no state (rebuilt on the next start) or a whole one.
 */
async function createGenesisState(
  layout: DataDirLayout,
  file: NodeFile,
  options: NodeOptions & { readonly source?: NodeSource },
): Promise<void> {
  if (file.position !== null || options.source === undefined) {
    throw new NodeError('BAD_DATA_DIR', 'node.json exists but the ledger state is missing', { file: layout.stateDir });
  }
  const building = `${layout.stateDir}.creating`;
  rmSync(building, { recursive: true, force: true });
  rmSync(layout.stateDir, { recursive: true, force: true });
  try {
    const source = options.source;
    const genesis = isGeneratorSource(source)
      ? generatorGenesis(file.networkPassphrase)
      : await genesisFromSource(source, file.networkPassphrase);
    const state = await LedgerState.create(building, genesis, {
      merger: 'inline',
      verify: options.verify ?? !isGeneratorSource(source),
    });
    await state.close();
  } catch (error) {
    throw stateError(error, 'create the genesis ledger', 1);
  }
  renameSync(building, layout.stateDir);
  fsyncDirectorySync(dirname(layout.stateDir));
}

/** latest-ledger.xdr when it holds the ledger `position` names (sequence and header hash), else undefined. */
function readLatestLedgerFile(
  layout: DataDirLayout,
  position: { readonly ledger: number; readonly hash: string },
  log: Logger | undefined,
): CommittedLedger | undefined {
  if (!existsSync(layout.latestLedgerFile)) return undefined;
  try {
    const bytes = new Uint8Array(readFileSync(layout.latestLedgerFile));
    const { header } = extractLedger(bytes);
    if (header.ledgerSeq !== position.ledger || Buffer.from(header.ledgerHash).toString('hex') !== position.hash) {
      return undefined;
    }
    return { bytes, header };
  } catch (error) {
    // Unreadable or not a LedgerCloseMeta (a torn copy from a crashed writer cannot be: the write is atomic).
    if (!(error instanceof LedgerMetaError) && !(error instanceof Error && 'errno' in error)) throw error;
    log?.warn({ err: error, file: layout.latestLedgerFile }, 'latest-ledger.xdr is unreadable; ignored');
    return undefined;
  }
}

function extractOf(record: LedgerCloseMetaRecord): LedgerExtract {
  return readOrSourceFailed(record, () => extractLedger(record.bytes, record));
}

/** The header's previousLedgerHash, the rest of the record unread. */
function previousHashOf(record: LedgerCloseMetaRecord): Uint8Array {
  return readOrSourceFailed(record, () => readPreviousLedgerHash(record.bytes, record));
}

/** `read()` of the record, its LedgerMetaError as SOURCE_FAILED naming the ledger. */
function readOrSourceFailed<T>(record: LedgerCloseMetaRecord, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof LedgerMetaError)) throw error;
    throw new NodeError('SOURCE_FAILED', `ledger ${record.ledgerSeq} cannot be read: ${error.message}`, {
      ledger: record.ledgerSeq,
      ...fileOf(record),
      cause: error,
    });
  }
}

function stateError(error: unknown, doing: string, ledger: number | undefined): unknown {
  if (error instanceof NodeError || !(error instanceof LedgerStateError)) return error;
  return new NodeError('STATE_FAILED', `cannot ${doing}: ${error.message}`, {
    ...(ledger === undefined ? {} : { ledger }),
    ...(error.file === undefined ? {} : { file: error.file }),
    cause: error,
  });
}

function fileOf(record: LedgerCloseMetaRecord): { file?: string } {
  return record.file === undefined ? {} : { file: record.file };
}

/** A source error that is a record cut short: the end of a file still being written. */
function isTruncatedTail(error: unknown): boolean {
  if (!(error instanceof NodeError) || error.code !== 'SOURCE_FAILED') return false;
  let cause: unknown = error.cause;
  while (cause instanceof NodeError) cause = cause.cause;
  return cause instanceof LedgerMetaError && cause.code === 'TRUNCATED';
}

/** Resolves when `path` changes, after `ms`, or when `signal` aborts, whichever comes first. */
function changeOrTimeout(path: string | undefined, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    let watcher: ReturnType<typeof watch> | undefined;
    const done = () => {
      clearTimeout(timer);
      watcher?.close();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    if (path === undefined) return; // the generator does not grow: the poll alone
    try {
      watcher = watch(path, { persistent: false }, done);
      watcher.on('error', () => undefined); // the poll still wakes the loop
    } catch {
      // No watch on this path or platform: the poll alone wakes the loop.
    }
  });
}

/** Resolves on the next turn of the event loop (after pending I/O callbacks), not as a microtask. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
