// node.json and the data directory, in-process. Checks:
// 1. node.json round-trips and holds the passphrase's network id;
// 2. another format version is FORMAT_VERSION, a damaged file BAD_DATA_DIR naming the field, JSON garbage too;
// 3. another network's passphrase is WRONG_NETWORK;
// 4. opening a directory without node.json and without a source is BAD_DATA_DIR; a new one without a passphrase
//    INVALID_ARGUMENT; a source that does not start at ledger 2 SOURCE_MISMATCH (nothing is created for either).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeLedgerStream, generateNetwork } from '@strata/ledger-meta';
import { errorOf, rejectionOf, tempDir } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import {
  checkNetwork,
  dataDirLayout,
  NODE_FORMAT_VERSION,
  networkIdOf,
  readNodeFile,
  writeNodeFile,
} from '../src/data-dir.js';
import { NodeError } from '../src/errors.js';
import { StrataNode } from '../src/node.js';

const PASSPHRASE = 'Standalone Network ; February 2017';

function freshFile() {
  return {
    formatVersion: NODE_FORMAT_VERSION,
    networkPassphrase: PASSPHRASE,
    networkId: networkIdOf(PASSPHRASE),
    firstLedger: 2,
    position: { ledger: 7, hash: 'ab'.repeat(32) },
  };
}

describe('node.json', () => {
  it('round-trips', () => {
    const layout = dataDirLayout(join(tempDir('node-file'), 'data'));
    expect(readNodeFile(layout)).toBeUndefined();
    writeNodeFile(layout, freshFile());
    expect(readNodeFile(layout)).toEqual(freshFile());
    expect(freshFile().networkId).toBe('baefd734b8d3e48472cff83912375fedbc7573701912fe308af730180f97d74a');
  });

  it('refuses another format version, a damaged field and non-JSON', () => {
    const layout = dataDirLayout(join(tempDir('node-file'), 'data'));
    mkdirSync(layout.root, { recursive: true });
    writeFileSync(layout.nodeFile, JSON.stringify({ ...freshFile(), formatVersion: 2 }));
    expect(errorOf(NodeError, () => readNodeFile(layout))).toMatchObject({
      code: 'FORMAT_VERSION',
      field: 'formatVersion',
    });
    writeFileSync(layout.nodeFile, JSON.stringify({ ...freshFile(), networkId: '00'.repeat(32) }));
    expect(errorOf(NodeError, () => readNodeFile(layout))).toMatchObject({ code: 'BAD_DATA_DIR', field: 'networkId' });
    writeFileSync(layout.nodeFile, JSON.stringify({ ...freshFile(), position: { ledger: -1, hash: 'x' } }));
    expect(errorOf(NodeError, () => readNodeFile(layout))).toMatchObject({ code: 'BAD_DATA_DIR', field: 'position' });
    writeFileSync(layout.nodeFile, '{ not json');
    expect(errorOf(NodeError, () => readNodeFile(layout))).toMatchObject({ code: 'BAD_DATA_DIR' });
  });

  it('refuses another network', () => {
    const layout = dataDirLayout(join(tempDir('node-file'), 'data'));
    expect(() => checkNetwork(layout, freshFile(), PASSPHRASE)).not.toThrow();
    expect(() => checkNetwork(layout, freshFile(), undefined)).not.toThrow();
    expect(errorOf(NodeError, () => checkNetwork(layout, freshFile(), 'Other'))).toMatchObject({
      code: 'WRONG_NETWORK',
      field: 'networkPassphrase',
    });
  });
});

describe('StrataNode.open on a new data directory', () => {
  it('needs a source, a passphrase, and a source from ledger 2; creates nothing otherwise', async () => {
    const dir = tempDir('node-open');
    const dataDir = join(dir, 'data');
    const noSource = await rejectionOf(NodeError, () => StrataNode.open(dataDir, { networkPassphrase: PASSPHRASE }));
    expect(noSource).toMatchObject({ code: 'BAD_DATA_DIR' });
    const later = join(dir, 'later.xdr');
    const ledgers = [...generateNetwork({ seed: 1, ledgers: 3, startLedger: 10, eventsPerLedger: 1, record: false })];
    writeFileSync(later, encodeLedgerStream(ledgers.map((ledger) => ledger.lcm)));
    const noPassphrase = await rejectionOf(NodeError, () => StrataNode.open(dataDir, { source: later }));
    expect(noPassphrase).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'networkPassphrase' });
    const notGenesis = await rejectionOf(NodeError, () =>
      StrataNode.open(dataDir, { source: later, networkPassphrase: PASSPHRASE }),
    );
    expect(notGenesis).toMatchObject({ code: 'SOURCE_MISMATCH', ledger: 10 });
    expect(existsSync(dataDir)).toBe(false);
  });
});
