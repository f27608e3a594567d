// Bad arguments at every public entry point: each export is called with valid arguments (accepted), then with one
// argument at a time replaced by something its signature does not allow. Every such call must throw (or, for run,
// reject with) CliKitError INVALID_ARGUMENT: never a TypeError from inside commander, pino or cli-progress. Checked:
// 1. every exported function has an entry (a new export without one fails);
// 2. the valid call of each entry is accepted, and each bad call is refused with INVALID_ARGUMENT;
// 3. negative control: the suite's check lists a call that is not refused.
import { PassThrough } from 'node:stream';
import { badArgumentFailures, describeBadArguments, type EntryPoint } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import * as namespace from '../src/index.js';
import {
  CliKitError,
  CliKitErrorCode,
  createProgress,
  describeError,
  integerOption,
  logger,
  newProgram,
  packageManifest,
  processIo,
  run,
  systemErrorText,
  usageErrorFactory,
} from '../src/index.js';

const api: Record<string, unknown> = { ...namespace };
const { INVALID_ARGUMENT } = CliKitErrorCode;

const sink = () => new PassThrough().resume();
const io = () => ({ stdout: sink(), stderr: sink(), tty: false });
const NOT_STRING = [undefined, null, 5, {}, Symbol('s'), ['a']];
const NOT_WHOLE = [undefined, null, '5', -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, 5n];
const NOT_WRITABLE = [null, 5, 'stderr', {}, { write: 'no' }];
const NOT_IO = [
  undefined,
  null,
  'io',
  {},
  { stdout: sink(), stderr: sink() },
  { stdout: sink(), stderr: 5, tty: false },
  { stdout: {}, stderr: sink(), tty: false },
  { stdout: sink(), stderr: sink(), tty: 'yes' },
];
const version = { version: '1.0.0', packageName: 'tool' };
const progressOptions = { unit: 'ledgers', total: 10, counters: ['events'], stream: sink(), tty: false };

const entries: EntryPoint<CliKitErrorCode>[] = [
  { name: 'describeError (any value)', call: describeError as (...args: unknown[]) => unknown, valid: [{}], bad: [] },
  {
    name: 'systemErrorText (any value)',
    call: systemErrorText as (...args: unknown[]) => unknown,
    valid: [5],
    bad: [],
  },
  { name: 'processIo', call: processIo, valid: [], bad: [] },
  {
    name: 'integerOption',
    call: integerOption as (...args: unknown[]) => unknown,
    valid: [0, 10],
    bad: [
      [0, [...NOT_WHOLE, 11]],
      [1, [...NOT_WHOLE, Number.MAX_SAFE_INTEGER + 1]],
    ],
  },
  {
    name: 'usageErrorFactory',
    call: usageErrorFactory as (...args: unknown[]) => unknown,
    valid: [CliKitError],
    bad: [[0, [undefined, null, 'CliKitError', {}]]],
  },
  {
    name: 'packageManifest',
    call: packageManifest as (...args: unknown[]) => unknown,
    valid: [import.meta.url],
    bad: [[0, [undefined, null, 5, {}, '', 'relative/path.js', 'https://example.com/x.js', new URL('data:,x')]]],
  },
  {
    name: 'newProgram',
    call: newProgram as (...args: unknown[]) => unknown,
    valid: ['tool', 'A tool.', io(), version],
    bad: [
      [0, [...NOT_STRING, '']],
      [1, NOT_STRING],
      [2, NOT_IO],
      [3, [undefined, null, 'v1', {}, { version: '1.0.0' }, { packageName: 'tool' }, { version: 1, packageName: 'x' }]],
    ],
  },
  {
    name: 'run',
    call: run as (...args: unknown[]) => unknown,
    valid: [newProgram('tool', '', io(), version), ['node', 'tool'], io()],
    bad: [
      [0, [undefined, null, {}, { parseAsync: () => {} }]],
      [1, [undefined, null, 'node tool', [5], ['node', null]]],
      [2, NOT_IO],
    ],
  },
  {
    name: 'createProgress',
    call: (options: unknown) => createProgress(options as never).finish(),
    valid: [progressOptions],
    bad: [
      [0, [undefined, null, 'ledgers', []]],
      [0, [{ ...progressOptions, unit: '' }, { ...progressOptions, unit: 5 }, { total: 10 }]],
      [0, [-1, 1.5, Number.NaN, '10', null].map((total) => ({ ...progressOptions, total }))],
      [
        0,
        ['events', [''], ['value'], ['done'], ['has space'], [5]].map((counters) => ({ ...progressOptions, counters })),
      ],
      [0, ['yes', 1, null].map((tty) => ({ ...progressOptions, tty }))],
      [0, NOT_WRITABLE.map((stream) => ({ ...progressOptions, stream }))],
      [
        0,
        [-1, Number.NaN, Number.POSITIVE_INFINITY, '1000'].map((logIntervalMs) => ({
          ...progressOptions,
          logIntervalMs,
        })),
      ],
    ],
  },
  { name: 'logger', call: logger as (...args: unknown[]) => unknown, valid: [sink()], bad: [[0, NOT_WRITABLE]] },
];

describeBadArguments({ errorClass: CliKitError, api, entries, defaultCodes: [INVALID_ARGUMENT] });

describe('negative control', () => {
  it('3. the check lists a bad value that is accepted', async () => {
    const lax: EntryPoint<CliKitErrorCode> = {
      name: 'integerOption',
      call: integerOption as (...args: unknown[]) => unknown,
      valid: [0, 10],
      bad: [[1, [10, 20]]],
    };
    const failures = await badArgumentFailures(CliKitError, lax, [INVALID_ARGUMENT]);
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatch(/argument 1, bad value #0: expected a CliKitError, nothing was thrown/);
  });
});
