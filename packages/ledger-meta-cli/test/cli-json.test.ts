// strata-meta --json: events and changes decoded through @stellar/stellar-base into plain JSON, one object per line.
// Checked against stellar-base read independently: SCVals by their type (symbols and strings as text, addresses as
// strkeys, 128-bit amounts as decimal strings, vecs as arrays) on a generated network, whose every event is known;
// ledger entries and keys field by field on the real stellar-core captures. XDR stellar-base cannot decode keeps its
// bytes: `{ xdr, decodeError }` in the field's place.
import { join } from 'node:path';
import { Address, StrKey, scValToBigInt, xdr } from '@stellar/stellar-base';
import { generateNetwork } from '@strata/ledger-meta';
import { describeWithFixtures, fixturePath, hex, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import { STREAM_FILE_NAME } from '../src/strata-gen.js';
import { ledgerEntryJson, scValJson } from '../src/xdr-json.js';
import { expectedEventLines, runCli } from './cli-harness.js';

const network = { ledgers: 8, seed: '3', eventsPerLedger: 30, contracts: 4, accounts: 40, startLedger: 2 };

/** The JSON an SCVal of the generator's event shapes should become, read off stellar-base's decoded object. */
function expectedScVal(bytes: Uint8Array): unknown {
  const value = xdr.ScVal.fromXDR(Buffer.from(bytes));
  switch (value.switch().name) {
    case 'scvSymbol':
      return value.sym().toString();
    case 'scvString':
      return value.str().toString();
    case 'scvAddress':
      return Address.fromScAddress(value.address()).toString();
    case 'scvI128':
      return scValToBigInt(value).toString();
    case 'scvU32':
      return value.u32();
    case 'scvVoid':
      return null;
    case 'scvBool':
      return value.b();
    case 'scvVec':
      return (value.vec() ?? []).map((item) => expectedScVal(item.toXDR()));
    default:
      throw new Error(`the generator writes no ${value.switch().name} (extend the oracle)`);
  }
}

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('strata-meta events --json', () => {
  it("prints every generated event with its topics and value in stellar-base's native form", async () => {
    const out = tempDir('cli-json');
    const generated = await runCli('strata-gen', [
      ...['--ledgers', String(network.ledgers), '--seed', network.seed, '--events-per-ledger', '30'],
      ...['--contracts', '4', '--accounts', '40', '--out', out],
    ]);
    expect(generated.code, generated.stderr).toBe(0);
    const result = await runCli('strata-meta', ['events', join(out, STREAM_FILE_NAME), '--json']);
    expect(result.code, result.stderr).toBe(0);
    const expected = expectedEventLines(generateNetwork({ ...network, record: true }), expectedScVal);
    expect(expected.length).toBeGreaterThan(100);
    const printed = lines(result.stdout);
    expect(printed).toEqual(expected);
    // The shapes a reader relies on: a transfer's topics are [symbol, G/C strkey, G/C strkey, asset], its amount text.
    const transfer = printed.find((line) => (line.topics as unknown[])[0] === 'transfer');
    expect(transfer?.topics).toEqual([
      'transfer',
      expect.stringMatching(/^[GC][A-Z2-7]{55}$/),
      expect.stringMatching(/^[GC][A-Z2-7]{55}$/),
      expect.stringMatching(/^(native|[A-Za-z0-9]{1,12}:G[A-Z2-7]{55})$/),
    ]);
    expect(transfer?.value).toMatch(/^\d+$/);
  });
});

describeWithFixtures('strata-meta changes --json on the stellar-core captures', [['stellar-core-lcm']], () => {
  it('decodes every entry and key, field for field as stellar-base reads them', async () => {
    const groups = ['InvokeHostFunctionTests', 'OfferTests', 'MergeTests'];
    let entries = 0;
    const kinds = new Set<string>();
    for (const group of groups) {
      const folder = fixturePath('stellar-core-lcm', group);
      const json = await runCli('strata-meta', ['changes', folder, '--json']);
      const raw = await runCli('strata-meta', ['changes', folder]);
      expect(json.code, json.stderr).toBe(0);
      const rawLines = lines(raw.stdout);
      const jsonLines = lines(json.stdout);
      expect(jsonLines.map((line) => line.ledger)).toEqual(rawLines.map((line) => line.ledger));
      for (const [index, line] of jsonLines.entries()) {
        const rawLine = rawLines[index] as { init: string[]; live: string[]; dead: string[] };
        for (const list of ['init', 'live'] as const) {
          const decoded = line[list] as Record<string, unknown>[];
          expect(decoded).toHaveLength(rawLine[list].length);
          for (const [i, entry] of decoded.entries()) {
            checkEntry(entry, xdr.LedgerEntry.fromXDR(rawLine[list][i] as string, 'base64'));
            kinds.add(Object.keys(entry.data as object)[0] ?? '');
            entries++;
          }
        }
        const dead = line.dead as Record<string, unknown>[];
        for (const [i, key] of dead.entries()) {
          const decodedKey = xdr.LedgerKey.fromXDR(rawLine.dead[i] as string, 'base64');
          expect(Object.keys(key)).toEqual([armOf(decodedKey)]);
        }
      }
    }
    expect(entries).toBeGreaterThan(1000);
    expect([...kinds]).toEqual(
      expect.arrayContaining(['account', 'trustLine', 'offer', 'contractData', 'contractCode']),
    );
  });
});

/** The arm name of a decoded union (js-xdr has it; stellar-base's types do not declare it). */
const armOf = (union: unknown): string => (union as { arm(): string }).arm();

/** One LedgerEntry's JSON against stellar-base's object: the common fields and the ones each kind is read by. */
function checkEntry(json: Record<string, unknown>, entry: xdr.LedgerEntry): void {
  expect(json.lastModifiedLedgerSeq).toBe(entry.lastModifiedLedgerSeq());
  const data = entry.data();
  const arm = armOf(data);
  expect(Object.keys(json.data as object)).toEqual([arm]);
  const body = (json.data as Record<string, Record<string, unknown>>)[arm] ?? {};
  switch (data.switch().name) {
    case 'account': {
      const account = data.account();
      expect(body).toMatchObject({
        accountId: StrKey.encodeEd25519PublicKey(account.accountId().ed25519()),
        balance: account.balance().toString(),
        seqNum: account.seqNum().toString(),
        homeDomain: account.homeDomain().toString(),
        thresholds: hex(account.thresholds()),
      });
      break;
    }
    case 'trustline': {
      const line = data.trustLine();
      expect(body.accountId).toBe(StrKey.encodeEd25519PublicKey(line.accountId().ed25519()));
      expect(body.balance).toBe(line.balance().toString());
      if (line.asset().switch().name === 'assetTypeCreditAlphanum4') {
        const code = line.asset().alphaNum4().assetCode().toString('latin1').replace(/\0+$/, '');
        expect((body.asset as { alphaNum4: { assetCode: string } }).alphaNum4.assetCode).toBe(code);
      }
      break;
    }
    case 'contractData': {
      const contractData = data.contractData();
      expect(body.contract).toBe(Address.fromScAddress(contractData.contract()).toString());
      expect(body.durability).toBe(contractData.durability().name);
      break;
    }
    case 'contractCode':
      expect(body.hash).toBe(hex(data.contractCode().hash()));
      expect(body.code).toBe(hex(data.contractCode().code()));
      break;
    default:
      break;
  }
}

describe('--json fallback', () => {
  it('keeps XDR stellar-base cannot decode as base64, with the reason', () => {
    // An SCVal with type 0x7f (no such SCValType) and a LedgerEntry cut short.
    const badScVal = new Uint8Array([0, 0, 0, 0x7f]);
    expect(scValJson(badScVal)).toEqual({ xdr: 'AAAAfw==', decodeError: expect.any(String) });
    const cut = new Uint8Array([0, 0, 0, 1, 0, 0]);
    const fallback = ledgerEntryJson(cut) as { xdr: string; decodeError: string };
    expect(fallback.xdr).toBe(Buffer.from(cut).toString('base64'));
    expect(fallback.decodeError).not.toBe('');
    // A negative control: a valid SCVal decodes.
    expect(scValJson(xdr.ScVal.scvSymbol('transfer').toXDR())).toBe('transfer');
  });
});
