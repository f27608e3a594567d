// `strata start` (follow mode) as a real process over a stream file that grows while it runs. Checks:
// 1. it ingests what the file holds, logs that it caught up, and ingests the ledgers appended later (a record
//    half-written at the end of the file is read on a later round, not reported as corrupt);
// 2. SIGTERM stops it cleanly (exit code 0) with the position recorded at the last ledger and every event stored.
// Every wait is on the child's own log lines, never a timer of the test's.
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeLedgerStream } from '@strata/ledger-meta';
import { describeWithFixtures, fixturePath, tempDir } from '@strata/test-kit';
import { expect, it } from 'vitest';
import { hotEventsOf, nodeFileOf } from './support/data-dir-reads.js';
import { oracleLedgers, streamRecords } from './support/oracle.js';
import { logLines, runStrata } from './support/strata-process.js';

const PARTS = ['stellar-core-lcm', 'InvokeHostFunctionTests', '21c43b92b819267f.xdr'];
const PARTIAL = 'the source ends in a partial record; waiting for the rest';

describeWithFixtures('strata start (follow mode)', [PARTS], () => {
  it('follows a growing stream and stops cleanly on SIGTERM', async () => {
    const dir = tempDir('node-follow');
    const dataDir = join(dir, 'data');
    const path = join(dir, 'growing.xdr');
    const records = streamRecords(fixturePath(...PARTS));
    const oracle = oracleLedgers(fixturePath(...PARTS));
    const last = oracle.at(-1);
    writeFileSync(path, encodeLedgerStream(records.slice(0, 10)));
    const rest = encodeLedgerStream(records.slice(10));
    let stage = 0;
    const caughtUp = (stderr: string) =>
      logLines(stderr)
        .filter((line) => line.msg === 'caught up with the source; waiting for new ledgers')
        .map((line) => Number(line.nextLedger));
    const result = await runStrata(
      ['start', '--data-dir', dataDir, '--source', path, '--network-passphrase', '(V) (;,,;) (V)', '--poll-ms', '50'],
      {
        onStderr: (stderr, child) => {
          const rounds = caughtUp(stderr);
          if (stage === 0 && rounds.includes(12)) {
            stage = 1;
            // Half a record first: the node must wait for the rest, not fail.
            appendFileSync(path, rest.subarray(0, 1000));
          } else if (stage === 1 && logLines(stderr).some((line) => line.msg === PARTIAL)) {
            stage = 2;
            appendFileSync(path, rest.subarray(1000));
          } else if (stage === 2 && rounds.includes((last?.ledger ?? 0) + 1)) {
            stage = 3;
            child.kill('SIGTERM');
          }
        },
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(stage).toBe(3);
    expect(nodeFileOf(dataDir).position).toEqual({ ledger: last?.ledger, hash: last?.hash });
    const hot = await hotEventsOf(dataDir);
    expect(hot.latest).toBe(last?.ledger);
    expect(hot.events.length).toBe(oracle.reduce((sum, ledger) => sum + ledger.events.length, 0));
  });
});
