// `npm start`: the strata node on a demo network, serving Stellar RPC on 127.0.0.1:8000.
//
// The first start (./data empty or missing) generates the network with @strata/ledger-meta's generator while the node
// ingests it: DEMO_LEDGERS ledgers at once (two event chunks of 10,000 ledgers: the first freezes to the cold tier
// in the background once ingest enters the second; ~100 k accounts, trust lines and contract balances in the
// BucketList), then one ledger a second, as a network closes them. A later start resumes from ./data at once (the
// generator is deterministic: it regenerates up to the node's position without applying anything).
// The node serves JSON-RPC from its first second; the examples below are printed once it listens and again when
// it has caught up. Ctrl-C stops it between two ledgers (the position is recorded; the next start resumes).
//
// Options after `npm start --`: anything `strata start` takes (e.g. `--listen 127.0.0.1:8001`), passed through.
// The demo's data is not power-cut-safe (--no-fsync): it is a demo; a real node leaves fsync on.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
// STRATA_DEMO_DATA_DIR and STRATA_DEMO_LEDGERS (at least 1) are for trying the script itself.
const dataDir = resolve(process.env.STRATA_DEMO_DATA_DIR ?? join(root, 'data'));
const DEMO_LEDGERS = Math.max(1, Number(process.env.STRATA_DEMO_LEDGERS ?? 10_100) || 10_100);
const args = process.argv.slice(2);
const listenAt = args.indexOf('--listen');
const listen = listenAt >= 0 ? args[listenAt + 1] : '127.0.0.1:8000';
const url = `http://${listen}`;
const fresh = !existsSync(dataDir) || readdirSync(dataDir).length === 0;
const shown = relative(process.cwd(), dataDir) || '.';

console.log(
  fresh
    ? `strata demo: ${shown} is empty — generating a demo network of ${DEMO_LEDGERS.toLocaleString('en-US')} ledgers into it while the node ingests them`
    : `strata demo: resuming the node in ${shown}`,
);
const child = spawn(
  process.execPath,
  [
    join(root, 'apps/node/bin/strata.js'),
    'start',
    '--data-dir',
    dataDir,
    '--source',
    'generator',
    '--seed',
    '1',
    '--ledgers',
    String(DEMO_LEDGERS),
    '--accounts',
    '100000',
    '--events-per-ledger',
    '20',
    '--close-every-ms',
    '1000',
    '--no-fsync',
    ...(listenAt >= 0 ? [] : ['--listen', listen]),
    ...args,
  ],
  { stdio: ['ignore', 'inherit', 'inherit'] },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 0)));

async function rpc(method, params) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) }),
  });
  return (await response.json()).result;
}

function examples(health) {
  const start = Math.max(health.oldestLedger, 2);
  return [
    '',
    `strata demo: serving Stellar RPC at ${url} (ledgers ${health.oldestLedger}..${health.latestLedger}; a new one every second)`,
    'Try:',
    `  curl -s ${url} -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"getHealth"}'`,
    `  curl -s ${url} -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"getLatestLedger"}'`,
    `  curl -s ${url} -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"getEvents","params":{"startLedger":${start},"pagination":{"limit":3}}}'`,
    `  curl -s ${url} -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"getEventsV2","params":{"minLedger":${start},"order":"desc","pagination":{"limit":3}}}'`,
    '  node --input-type=module -e "',
    "    import { rpc } from '@stellar/stellar-sdk';",
    `    const server = new rpc.Server('${url}', { allowHttp: true });`,
    '    console.log(await server.getHealth(), await server.getLatestLedger());',
    `    console.log((await server.getEvents({ startLedger: ${start}, filters: [], limit: 3 })).events);"`,
    '  (run the node example from apps/node, where @stellar/stellar-sdk is installed)',
    '',
  ].join('\n');
}

// Print the examples once the server answers, and again once the node has caught up with the generated network.
let printed = 'none';
const timer = setInterval(async () => {
  try {
    const health = await rpc('getHealth');
    if (health === undefined) return;
    if (printed === 'none') {
      console.log(examples(health));
      printed = 'serving';
    }
    if (printed === 'serving' && health.latestLedger >= DEMO_LEDGERS + 1) {
      console.log(`strata demo: caught up with the demo network at ledger ${health.latestLedger}`);
      console.log(examples(health));
      printed = 'caught-up';
      clearInterval(timer);
    }
  } catch {
    // not listening yet
  }
}, 1000);
timer.unref();
