// The real client against a real node: a StrataNode ingests a stellar-core capture stream
// (../shared/fixtures/stellar-core-lcm), the JSON-RPC server serves it through nodeRpcBackend, and
// @stellar/stellar-sdk 15.1.0's rpc.Server (allowHttp) asks. Every answer is compared with an oracle decoded from
// the same stream with @stellar/stellar-base. Checks:
// 1. getHealth, getNetwork and getLatestLedger (the SDK decodes headerXdr and metadataXdr) name the stream's
//    network, range, last ledger and its hash;
// 2. getLedgerEntries over every account, contract data and contract code entry the stream leaves live returns the
//    stream's last version of each (data XDR, lastModifiedLedgerSeq), Soroban ones with a TTL; getContractData too;
// 3. getEvents over the whole stream, a contract filter, and paged 5 at a time through cursors, equals the oracle's
//    events ledger by ledger, ids ascending; getEventsV2 paged to the end both ways equals the same list;
// 4. once the chunk is frozen, the same requests are served from the cold tier with the same answers.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Address, rpc, xdr } from '@stellar/stellar-sdk';
import { extractLedger } from '@strata/ledger-meta';
import { describeWithFixtures, fixturePath, tempDir } from '@strata/test-kit';
import { expect, it } from 'vitest';
import { freezeInBackground } from '../../src/freezer.js';
import { StrataNode } from '../../src/node.js';
import { createRpcServer, nodeRpcBackend, RecentLedgers } from '../../src/rpc/index.js';
import { streamRecords } from '../support/oracle.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC replies, checked field by field against the oracle
type Json = any; // the LedgerCloseMeta / TransactionMeta arms share the accessors used here

const PASSPHRASE = '(V) (;,,;) (V)';
const STREAM = ['stellar-core-lcm', 'InvokeHostFunctionTests', '21c43b92b819267f.xdr'];

interface StreamOracle {
  ledgers: { ledger: number; hash: string; closeTime: number; events: string[] }[];
  /** base64 LedgerKey → last live entry (undefined once removed). */
  entries: Map<string, xdr.LedgerEntry | undefined>;
}

function keyOfEntry(entry: xdr.LedgerEntry): xdr.LedgerKey | undefined {
  const data = entry.data();
  switch (data.switch().name) {
    case 'account':
      return xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: data.account().accountId() }));
    case 'contractData': {
      const d = data.contractData();
      return xdr.LedgerKey.contractData(
        new xdr.LedgerKeyContractData({ contract: d.contract(), key: d.key(), durability: d.durability() }),
      );
    }
    case 'contractCode':
      return xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash: data.contractCode().hash() }));
    default:
      return undefined;
  }
}

function streamOracle(path: string): StreamOracle {
  const oracle: StreamOracle = { ledgers: [], entries: new Map() };
  const apply = (changes: xdr.LedgerEntryChange[]) => {
    for (const change of changes) {
      const kind = change.switch().name;
      if (kind === 'ledgerEntryRemoved') {
        const key = change.removed().toXDR('base64');
        if (oracle.entries.has(key)) oracle.entries.set(key, undefined);
        continue;
      }
      const entry =
        kind === 'ledgerEntryCreated'
          ? change.created()
          : kind === 'ledgerEntryUpdated'
            ? change.updated()
            : kind === 'ledgerEntryRestored'
              ? change.restored()
              : undefined;
      if (entry === undefined) continue;
      const key = keyOfEntry(entry);
      if (key !== undefined) oracle.entries.set(key.toXDR('base64'), entry);
    }
  };
  for (const record of streamRecords(path)) {
    const meta = xdr.LedgerCloseMeta.fromXDR(record);
    const arm = meta.switch();
    const body: Json = arm === 0 ? meta.v0() : arm === 1 ? meta.v1() : meta.v2();
    const entry = body.ledgerHeader() as xdr.LedgerHeaderHistoryEntry;
    const events: string[] = [];
    for (const processing of body.txProcessing() as xdr.TransactionResultMeta[]) {
      apply(processing.feeProcessing());
      const txMeta = processing.txApplyProcessing();
      const v: Json =
        txMeta.switch() === 1
          ? txMeta.v1()
          : txMeta.switch() === 2
            ? txMeta.v2()
            : txMeta.switch() === 3
              ? txMeta.v3()
              : txMeta.switch() === 4
                ? txMeta.v4()
                : undefined;
      if (v !== undefined) {
        if (typeof v.txChangesBefore === 'function') apply(v.txChangesBefore());
        for (const op of v.operations()) {
          apply(op.changes());
          if (txMeta.switch() === 4) for (const event of op.events()) events.push(event.toXDR('hex'));
        }
        if (typeof v.txChangesAfter === 'function') apply(v.txChangesAfter());
        if (txMeta.switch() === 3) for (const event of v.sorobanMeta()?.events() ?? []) events.push(event.toXDR('hex'));
        if (txMeta.switch() === 4) for (const event of v.events()) events.push(event.event().toXDR('hex'));
      }
      const v1Result = processing as unknown as { postTxApplyFeeProcessing?: () => xdr.LedgerEntryChange[] };
      if (typeof v1Result.postTxApplyFeeProcessing === 'function') apply(v1Result.postTxApplyFeeProcessing() ?? []);
    }
    for (const upgrade of body.upgradesProcessing() as xdr.UpgradeEntryMeta[]) apply(upgrade.changes());
    if (arm === 1) {
      for (const key of body.evictedKeys?.() ?? body.evictedTemporaryLedgerKeys?.() ?? [])
        oracle.entries.set(key.toXDR('base64'), undefined);
    } else if (arm === 2) {
      for (const key of body.evictedKeys()) oracle.entries.set(key.toXDR('base64'), undefined);
    }
    oracle.ledgers.push({
      ledger: entry.header().ledgerSeq(),
      hash: entry.hash().toString('hex'),
      closeTime: Number(entry.header().scpValue().closeTime().toString()),
      events,
    });
  }
  return oracle;
}

/** An SDK-parsed event back as ContractEvent XDR (hex). */
function eventXdr(event: rpc.Api.EventResponse): string {
  return new xdr.ContractEvent({
    ext: new xdr.ExtensionPoint(0),
    contractId:
      event.contractId === undefined
        ? null
        : (Address.fromString(event.contractId.contractId()).toScAddress().contractId() as unknown as xdr.Hash),
    type: event.type === 'system' ? xdr.ContractEventType.system() : xdr.ContractEventType.contract(),
    body: new xdr.ContractEventBody(0, new xdr.ContractEventV0({ topics: event.topic, data: event.value })),
  }).toXDR('hex');
}

/** (ledger, event XDR) pairs sorted within each ledger: the node stores events in id order, the oracle in emission order. */
function byLedger(pairs: [number, string][]): [number, string][] {
  return [...pairs].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
}

describeWithFixtures('rpc.Server of @stellar/stellar-sdk against a node over a capture stream', [STREAM], () => {
  it('answers getHealth, getNetwork, getLatestLedger, getLedgerEntries, getContractData and getEvents like the oracle', async () => {
    const source = fixturePath(...STREAM);
    const oracle = streamOracle(source);
    const last = oracle.ledgers.at(-1)!;
    const dataDir = join(tempDir('rpc-node'), 'data');
    const node = await StrataNode.open(dataDir, { source, networkPassphrase: PASSPHRASE });
    const ledgers = new RecentLedgers();
    const backend = nodeRpcBackend(node, ledgers);
    const server = createRpcServer({ backend, config: { listen: '127.0.0.1:0' } });
    try {
      await node.ingest(source);
      // What the ingest hook does in the node (README "JSON-RPC"): each committed ledger's meta into the log.
      for (const record of streamRecords(source)) ledgers.record(record, extractLedger(record).header);
      const { url } = await server.listen();
      const client = new rpc.Server(url, { allowHttp: true });

      // 1. health, network, latest ledger
      const health = await client.getHealth();
      expect(health).toMatchObject({
        status: 'healthy',
        latestLedger: last.ledger,
        oldestLedger: 2,
        ledgerRetentionWindow: 120_960,
      });
      const network = await client.getNetwork();
      expect(network.passphrase).toBe(PASSPHRASE);
      expect(network.protocolVersion).toBe(node.state.protocolVersion);
      const latest = await client.getLatestLedger();
      expect(latest).toMatchObject({
        id: last.hash,
        sequence: last.ledger,
        protocolVersion: node.state.protocolVersion,
      });

      // 2. ledger entries: every live account / contract entry the stream leaves, in batches of 200
      const live = [...oracle.entries].filter((kv): kv is [string, xdr.LedgerEntry] => kv[1] !== undefined);
      const contractData = live.filter(([, e]) => e.data().switch().name === 'contractData');
      expect(contractData.length).toBeGreaterThan(0);
      expect(live.some(([, e]) => e.data().switch().name === 'account')).toBe(true);
      for (let i = 0; i < live.length; i += 200) {
        const batch = live.slice(i, i + 200);
        const answer = await client.getLedgerEntries(...batch.map(([key]) => xdr.LedgerKey.fromXDR(key, 'base64')));
        expect(answer.latestLedger).toBe(last.ledger);
        const got = new Map(answer.entries.map((e) => [e.key.toXDR('base64'), e]));
        for (const [key, entry] of batch) {
          const found = got.get(key);
          expect(found, key).toBeDefined();
          expect(found!.val.toXDR('base64')).toBe(entry.data().toXDR('base64'));
          expect(found!.lastModifiedLedgerSeq).toBe(entry.lastModifiedLedgerSeq());
          const soroban = ['contractData', 'contractCode'].includes(entry.data().switch().name);
          expect(found!.liveUntilLedgerSeq !== undefined).toBe(soroban);
        }
      }
      const [, dataEntry] =
        contractData.find(([, e]) => e.data().contractData().key().switch().name !== 'scvLedgerKeyContractInstance') ??
        contractData[0]!;
      const d = dataEntry.data().contractData();
      const viaSdk = await client.getContractData(
        Address.fromScAddress(d.contract()),
        d.key(),
        d.durability().name === 'persistent' ? rpc.Durability.Persistent : rpc.Durability.Temporary,
      );
      expect(viaSdk.val.toXDR('base64')).toBe(dataEntry.data().toXDR('base64'));

      // xdrFormat json: the same entry, latest ledger and events as JSON (raw requests; the SDK asks for base64).
      const raw = async (method: string, params: unknown) => {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        });
        return ((await response.json()) as { result: Json }).result;
      };
      const [dataKey] = contractData[0]!;
      const asJson = await raw('getLedgerEntries', { keys: [dataKey], xdrFormat: 'json' });
      expect(asJson.entries[0]).toMatchObject({
        keyJson: { contract_data: expect.any(Object) },
        dataJson: { contract_data: expect.any(Object) },
        lastModifiedLedgerSeq: contractData[0]![1].lastModifiedLedgerSeq(),
      });
      expect(asJson.entries[0].xdr).toBeUndefined();
      const latestJson = await raw('getLatestLedger', { xdrFormat: 'json' });
      expect(latestJson.headerJson.ledger_seq).toBe(last.ledger);
      expect(latestJson.metadataJson).toBeTypeOf('object');

      // 3. events
      const expected = byLedger(oracle.ledgers.flatMap((l) => l.events.map((e): [number, string] => [l.ledger, e])));
      expect(expected.length).toBeGreaterThan(10);
      const all = await client.getEvents({ startLedger: 2, filters: [], limit: 10_000 });
      expect(byLedger(all.events.map((e) => [e.ledger, eventXdr(e)]))).toEqual(expected);
      const ids = all.events.map((e) => e.id);
      expect([...ids].sort()).toEqual(ids);
      expect(new Set(ids).size).toBe(ids.length);
      for (const e of all.events) {
        const closeTime = oracle.ledgers.find((l) => l.ledger === e.ledger)!.closeTime;
        expect(e.ledgerClosedAt).toBe(`${new Date(closeTime * 1000).toISOString().slice(0, 19)}Z`);
      }
      expect(all.latestLedger).toBe(last.ledger);

      const contractId = all.events.find((e) => e.contractId !== undefined)!.contractId!.contractId();
      const byContract = await client.getEvents({
        startLedger: 2,
        filters: [{ contractIds: [contractId] }],
        limit: 1000,
      });
      expect(byContract.events.map((e) => e.id)).toEqual(
        all.events.filter((e) => e.contractId?.contractId() === contractId).map((e) => e.id),
      );

      const paged: string[] = [];
      let page = await client.getEvents({ startLedger: 2, filters: [], limit: 5 });
      for (let guard = 0; guard < 1000; guard++) {
        paged.push(...page.events.map((e) => e.id));
        if (page.events.length < 5) break;
        page = await client.getEvents({ cursor: page.cursor, filters: [], limit: 5 });
      }
      expect(paged).toEqual(ids);

      // getEventsV2 (no SDK method): raw JSON-RPC through the same server, both directions.
      for (const order of ['asc', 'desc'] as const) {
        const got: string[] = [];
        let params: Record<string, unknown> = { minLedger: 2, maxLedger: last.ledger, order, limit: 7 };
        for (let guard = 0; guard < 1000; guard++) {
          const response = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ jsonrpc: '2.0', id: guard, method: 'getEventsV2', params }),
          });
          const { result } = (await response.json()) as {
            result: { events: { id: string }[]; cursor?: string; scanStatus: string };
          };
          got.push(...result.events.map((e) => e.id));
          if (result.scanStatus === 'COMPLETE') break;
          params = { cursor: result.cursor, limit: 7 };
        }
        expect(got).toEqual(order === 'asc' ? ids : [...ids].reverse());
      }

      // The same chunk frozen to cold: the backend switches to the cold reader, the answers stay the same.
      await freezeInBackground(node.layout, 0);
      const cold = await client.getEvents({ startLedger: 2, filters: [], limit: 10_000 });
      expect(cold.events.map((e) => [e.id, eventXdr(e)])).toEqual(all.events.map((e) => [e.id, eventXdr(e)]));
      const coldByContract = await client.getEvents({
        startLedger: 2,
        filters: [{ contractIds: [contractId] }],
        limit: 1000,
      });
      expect(coldByContract.events.map((e) => e.id)).toEqual(byContract.events.map((e) => e.id));
      const metrics = await (await fetch(new URL('/metrics', url))).text();
      expect(metrics).toMatch(/strata_rpc_request_duration_seconds_count\{method="getEvents",tier="cold"\} 2/);
      expect(metrics).toMatch(/strata_event_chunks\{tier="cold"\} 1/);
    } finally {
      await server.close();
      await backend.close();
      await node.close();
    }
  });

  it('answers getLatestLedger right after a restart, from the latest-ledger.xdr the node kept beside its position', async () => {
    const source = fixturePath(...STREAM);
    const last = streamOracle(source).ledgers.at(-1)!;
    const records = [...streamRecords(source)];
    const dataDir = join(tempDir('rpc-restart'), 'data');
    const first = await StrataNode.open(dataDir, { source, networkPassphrase: PASSPHRASE });
    await first.ingest(source);
    await first.close();
    // What `strata start` does at startup: the restored ledger seeds the recent ledgers.
    const node = await StrataNode.open(dataDir, { source });
    const restored = node.restoredLedger;
    expect(restored?.header.ledgerSeq).toBe(last.ledger);
    expect(Buffer.from(restored!.bytes).equals(Buffer.from(records.at(-1)!))).toBe(true);
    expect(node.latestLedger?.closeTime).toBe(last.closeTime);
    const ledgers = new RecentLedgers();
    ledgers.record(restored!.bytes, restored!.header);
    const backend = nodeRpcBackend(node, ledgers);
    const server = createRpcServer({ backend, config: { listen: '127.0.0.1:0' } });
    try {
      const { url } = await server.listen();
      const latest = await new rpc.Server(url, { allowHttp: true }).getLatestLedger();
      expect(latest).toMatchObject({ id: last.hash, sequence: last.ledger });
    } finally {
      await server.close();
      await backend.close();
      await node.close();
    }
    // A file of another ledger (a kill between two positions leaves one) or garbage is not used, and not an error.
    writeFileSync(join(dataDir, 'latest-ledger.xdr'), records.at(-2)!);
    const stale = await StrataNode.open(dataDir, { source });
    expect(stale.restoredLedger).toBeUndefined();
    await stale.close();
    writeFileSync(join(dataDir, 'latest-ledger.xdr'), new Uint8Array(100).fill(7));
    const garbage = await StrataNode.open(dataDir, { source });
    expect(garbage.restoredLedger).toBeUndefined();
    expect(garbage.latestLedger?.ledger).toBe(last.ledger);
    await garbage.close();
  });
});
