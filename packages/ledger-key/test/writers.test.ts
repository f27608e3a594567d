// Writers and strkeys against @stellar/stellar-base: every value we encode must decode with stellar-base's XDR types
// and re-encode to the same bytes (so it is canonical XDR of the intended type), values built with stellar-base
// must encode to the bytes our writers produce (so the plain-object model means what it says), and bad writer
// inputs must be rejected with INVALID_ARGUMENT. Strkeys are checked against stellar-base's StrKey both ways.
import { StrKey, xdr } from '@stellar/stellar-base';
import { hex } from '@strata/test-kit';
import { describe, expect, it } from 'vitest';
import {
  CONFIG_SETTING_ID,
  decodeAccountStrkey,
  decodeClaimableBalanceStrkey,
  decodeContractStrkey,
  decodeLiquidityPoolStrkey,
  decodeMuxedStrkey,
  encodeAccountStrkey,
  encodeBucketEntry,
  encodeClaimableBalanceStrkey,
  encodeContractStrkey,
  encodeHotArchiveBucketEntry,
  encodeLedgerEntry,
  encodeLedgerKey,
  encodeLiquidityPoolStrkey,
  encodeMuxedStrkey,
  encodeScAddress,
  encodeScVal,
  type LedgerEntry,
  type LedgerEntryData,
  LedgerKeyError,
  type ScVal,
  validateLedgerEntry,
  validateLedgerKey,
  validateScVal,
} from '../src/index.js';

const fill = (byte: number, length = 32): Uint8Array => new Uint8Array(length).fill(byte);

interface XdrType {
  fromXDR(input: Buffer): { toXDR(): Buffer };
}

/** Decodes with stellar-base and re-encodes: equal bytes mean our output is canonical XDR of `type`. */
function expectStellarRoundTrip(type: XdrType, bytes: Uint8Array): void {
  const decoded = type.fromXDR(Buffer.from(bytes));
  expect(hex(new Uint8Array(decoded.toXDR()))).toBe(hex(bytes));
}

function expectInvalidArgument(run: () => unknown, field?: string): void {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(LedgerKeyError);
  expect((thrown as LedgerKeyError).code).toBe('INVALID_ARGUMENT');
  if (field !== undefined) expect((thrown as LedgerKeyError).field).toContain(field);
}

const account = xdr.PublicKey.publicKeyTypeEd25519(Buffer.from(fill(0x42)));

describe('encodeScVal', () => {
  // Each arm with the same value built by stellar-base: the bytes must be identical.
  const cases: [string, ScVal, xdr.ScVal][] = [
    ['bool', { type: 'bool', value: true }, xdr.ScVal.scvBool(true)],
    ['void', { type: 'void' }, xdr.ScVal.scvVoid()],
    ['error (contract)', { type: 'error', errorType: 0, code: 77 }, xdr.ScVal.scvError(xdr.ScError.sceContract(77))],
    [
      'error (code)',
      { type: 'error', errorType: 9, code: 3 },
      xdr.ScVal.scvError(xdr.ScError.sceAuth(xdr.ScErrorCode.scecMissingValue())),
    ],
    ['u32', { type: 'u32', value: 0xffff_ffff }, xdr.ScVal.scvU32(0xffff_ffff)],
    ['i32', { type: 'i32', value: -5 }, xdr.ScVal.scvI32(-5)],
    ['u64', { type: 'u64', value: 2n ** 64n - 1n }, xdr.ScVal.scvU64(new xdr.Uint64(2n ** 64n - 1n))],
    ['i64', { type: 'i64', value: -(2n ** 63n) }, xdr.ScVal.scvI64(new xdr.Int64(-(2n ** 63n)))],
    ['timepoint', { type: 'timepoint', value: 1_700_000_000n }, xdr.ScVal.scvTimepoint(new xdr.Uint64(1_700_000_000n))],
    ['duration', { type: 'duration', value: 60n }, xdr.ScVal.scvDuration(new xdr.Uint64(60n))],
    [
      'u128',
      { type: 'u128', value: (5n << 64n) | 7n },
      xdr.ScVal.scvU128(new xdr.UInt128Parts({ hi: new xdr.Uint64(5n), lo: new xdr.Uint64(7n) })),
    ],
    [
      'i128 negative',
      { type: 'i128', value: -2n },
      xdr.ScVal.scvI128(new xdr.Int128Parts({ hi: new xdr.Int64(-1n), lo: new xdr.Uint64(2n ** 64n - 2n) })),
    ],
    [
      'u256',
      { type: 'u256', value: (1n << 192n) | (2n << 128n) | (3n << 64n) | 4n },
      xdr.ScVal.scvU256(
        new xdr.UInt256Parts({
          hiHi: new xdr.Uint64(1n),
          hiLo: new xdr.Uint64(2n),
          loHi: new xdr.Uint64(3n),
          loLo: new xdr.Uint64(4n),
        }),
      ),
    ],
    [
      'i256 negative',
      { type: 'i256', value: -1n },
      xdr.ScVal.scvI256(
        new xdr.Int256Parts({
          hiHi: new xdr.Int64(-1n),
          hiLo: new xdr.Uint64(2n ** 64n - 1n),
          loHi: new xdr.Uint64(2n ** 64n - 1n),
          loLo: new xdr.Uint64(2n ** 64n - 1n),
        }),
      ),
    ],
    ['bytes', { type: 'bytes', value: Uint8Array.of(1, 2, 3) }, xdr.ScVal.scvBytes(Buffer.from([1, 2, 3]))],
    ['string', { type: 'string', value: 'héllo' }, xdr.ScVal.scvString('héllo')],
    ['symbol', { type: 'symbol', value: 'Balance' }, xdr.ScVal.scvSymbol('Balance')],
    ['vec absent', { type: 'vec', value: null }, xdr.ScVal.scvVec(null)],
    [
      'vec',
      {
        type: 'vec',
        value: [
          { type: 'symbol', value: 'a' },
          { type: 'u32', value: 1 },
        ],
      },
      xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('a'), xdr.ScVal.scvU32(1)]),
    ],
    ['map absent', { type: 'map', value: null }, xdr.ScVal.scvMap(null as unknown as xdr.ScMapEntry[])],
    [
      'map',
      {
        type: 'map',
        value: [
          [
            { type: 'symbol', value: 'k' },
            { type: 'bool', value: false },
          ],
        ],
      },
      xdr.ScVal.scvMap([new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('k'), val: xdr.ScVal.scvBool(false) })]),
    ],
    [
      'address (muxed)',
      { type: 'address', value: { type: 'muxedAccount', id: 9n, ed25519: fill(3) } },
      xdr.ScVal.scvAddress(
        xdr.ScAddress.scAddressTypeMuxedAccount(
          new xdr.MuxedEd25519Account({ id: new xdr.Uint64(9n), ed25519: Buffer.from(fill(3)) }),
        ),
      ),
    ],
    [
      'contract instance (wasm, storage)',
      {
        type: 'contractInstance',
        executable: { type: 'wasm', wasmHash: fill(8) },
        storage: [[{ type: 'symbol', value: 'admin' }, { type: 'void' }]],
      },
      xdr.ScVal.scvContractInstance(
        new xdr.ScContractInstance({
          executable: xdr.ContractExecutable.contractExecutableWasm(Buffer.from(fill(8))),
          storage: [new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('admin'), val: xdr.ScVal.scvVoid() })],
        }),
      ),
    ],
    [
      'contract instance (stellar asset, no storage)',
      { type: 'contractInstance', executable: { type: 'stellarAsset' }, storage: null },
      xdr.ScVal.scvContractInstance(
        new xdr.ScContractInstance({
          executable: xdr.ContractExecutable.contractExecutableStellarAsset(),
          storage: null as unknown as xdr.ScMapEntry[],
        }),
      ),
    ],
    ['ledger key contract instance', { type: 'ledgerKeyContractInstance' }, xdr.ScVal.scvLedgerKeyContractInstance()],
    [
      'ledger key nonce',
      { type: 'ledgerKeyNonce', nonce: -3n },
      xdr.ScVal.scvLedgerKeyNonce(new xdr.ScNonceKey({ nonce: new xdr.Int64(-3n) })),
    ],
  ];

  it.each(cases)('%s encodes like stellar-base', (_name, value, expected) => {
    const bytes = encodeScVal(value);
    expect(hex(bytes)).toBe(expected.toXDR('hex'));
    expectStellarRoundTrip(xdr.ScVal, bytes);
    validateScVal(bytes);
  });

  it('covers all 22 arms', () => {
    const arms = new Set(cases.map(([, , expected]) => expected.switch().value));
    expect(arms.size).toBe(22);
  });

  it('rejects bad inputs with INVALID_ARGUMENT naming the field', () => {
    expectInvalidArgument(() => encodeScVal({ type: 'u32', value: -1 }), 'ScVal');
    expectInvalidArgument(() => encodeScVal({ type: 'u32', value: 1.5 }));
    expectInvalidArgument(() => encodeScVal({ type: 'i32', value: 2 ** 31 }));
    expectInvalidArgument(() => encodeScVal({ type: 'u64', value: -1n }));
    expectInvalidArgument(() => encodeScVal({ type: 'i128', value: 2n ** 127n }));
    expectInvalidArgument(() => encodeScVal({ type: 'u256', value: 2n ** 256n }));
    expectInvalidArgument(() => encodeScVal({ type: 'symbol', value: 'x'.repeat(33) }));
    expectInvalidArgument(() => encodeScVal({ type: 'error', errorType: 10, code: 0 }), 'errorType');
    expectInvalidArgument(() => encodeScVal({ type: 'error', errorType: 1, code: 10 }), 'code');
    expectInvalidArgument(() => encodeScVal({ type: 'bogus' } as unknown as ScVal));
    expectInvalidArgument(() =>
      encodeScVal({ type: 'vec', value: [{ type: 'u32', value: 1 }, null] } as unknown as ScVal),
    );
    expectInvalidArgument(
      () => encodeScVal({ type: 'map', value: [[{ type: 'void' }]] } as unknown as ScVal),
      'ScVal[0]',
    );
  });

  it('allows a symbol of exactly 32 bytes and nesting up to MAX_SCVAL_DEPTH, rejects deeper nesting', () => {
    expect(encodeScVal({ type: 'symbol', value: 'x'.repeat(32) }).length).toBe(8 + 32);
    let value: ScVal = { type: 'void' };
    for (let i = 1; i < 128; i++) value = { type: 'vec', value: [value] };
    validateScVal(encodeScVal(value));
    expectInvalidArgument(() => encodeScVal({ type: 'vec', value: [value] }));
  });
});

describe('encodeScAddress', () => {
  it('encodes all five arms like stellar-base', () => {
    const pairs: [Uint8Array, xdr.ScAddress][] = [
      [
        encodeScAddress({ type: 'account', accountId: fill(1) }),
        xdr.ScAddress.scAddressTypeAccount(xdr.PublicKey.publicKeyTypeEd25519(Buffer.from(fill(1)))),
      ],
      [
        encodeScAddress({ type: 'contract', contractId: fill(2) }),
        xdr.ScAddress.scAddressTypeContract(Buffer.from(fill(2)) as unknown as xdr.Hash),
      ],
      [
        encodeScAddress({ type: 'muxedAccount', id: 2n ** 64n - 1n, ed25519: fill(3) }),
        xdr.ScAddress.scAddressTypeMuxedAccount(
          new xdr.MuxedEd25519Account({ id: new xdr.Uint64(2n ** 64n - 1n), ed25519: Buffer.from(fill(3)) }),
        ),
      ],
      [
        encodeScAddress({ type: 'claimableBalance', balanceId: fill(4) }),
        xdr.ScAddress.scAddressTypeClaimableBalance(
          xdr.ClaimableBalanceId.claimableBalanceIdTypeV0(Buffer.from(fill(4))),
        ),
      ],
      [
        encodeScAddress({ type: 'liquidityPool', liquidityPoolId: fill(5) }),
        xdr.ScAddress.scAddressTypeLiquidityPool(Buffer.from(fill(5)) as unknown as xdr.Hash),
      ],
    ];
    for (const [ours, theirs] of pairs) expect(hex(ours)).toBe(theirs.toXDR('hex'));
  });

  it('rejects keys of the wrong length', () => {
    expectInvalidArgument(() => encodeScAddress({ type: 'contract', contractId: fill(1, 31) }), 'contractId');
    expectInvalidArgument(() => encodeScAddress({ type: 'muxedAccount', id: -1n, ed25519: fill(1) }), 'id');
  });
});

describe('encodeLedgerKey', () => {
  it('encodes every LedgerEntryType as canonical XDR that stellar-base round-trips', () => {
    const keys = [
      encodeLedgerKey({ type: 'account', accountId: fill(1) }),
      encodeLedgerKey({
        type: 'trustline',
        accountId: fill(1),
        asset: { type: 'alphanum4', code: 'USDC', issuer: fill(2) },
      }),
      encodeLedgerKey({
        type: 'trustline',
        accountId: fill(1),
        asset: { type: 'alphanum12', code: 'LONGCODE', issuer: fill(2) },
      }),
      encodeLedgerKey({
        type: 'trustline',
        accountId: fill(1),
        asset: { type: 'poolShare', liquidityPoolId: fill(3) },
      }),
      encodeLedgerKey({ type: 'offer', sellerId: fill(1), offerId: -5n }),
      encodeLedgerKey({ type: 'data', accountId: fill(1), dataName: 'config' }),
      encodeLedgerKey({ type: 'claimableBalance', balanceId: fill(4) }),
      encodeLedgerKey({ type: 'liquidityPool', liquidityPoolId: fill(5) }),
      encodeLedgerKey({
        type: 'contractData',
        contract: { type: 'contract', contractId: fill(6) },
        key: {
          type: 'vec',
          value: [
            { type: 'symbol', value: 'Balance' },
            { type: 'address', value: { type: 'account', accountId: fill(7) } },
          ],
        },
        durability: 'persistent',
      }),
      encodeLedgerKey({ type: 'contractCode', hash: fill(8) }),
      encodeLedgerKey({ type: 'configSetting', configSettingId: CONFIG_SETTING_ID.FREEZE_BYPASS_TXS_DELTA }),
      encodeLedgerKey({ type: 'ttl', keyHash: fill(9) }),
    ];
    for (const key of keys) {
      validateLedgerKey(key);
      expectStellarRoundTrip(xdr.LedgerKey, key);
    }
  });

  it('means what stellar-base means (field order, padding, signed offer id)', () => {
    expect(hex(encodeLedgerKey({ type: 'data', accountId: fill(0x42), dataName: 'ab' }))).toBe(
      xdr.LedgerKey.data(new xdr.LedgerKeyData({ accountId: account, dataName: 'ab' })).toXDR('hex'),
    );
    expect(hex(encodeLedgerKey({ type: 'offer', sellerId: fill(0x42), offerId: -1n }))).toBe(
      xdr.LedgerKey.offer(new xdr.LedgerKeyOffer({ sellerId: account, offerId: new xdr.Int64(-1n) })).toXDR('hex'),
    );
    const usd = new xdr.AlphaNum4({ assetCode: Buffer.from('USD\0'), issuer: account });
    expect(
      hex(
        encodeLedgerKey({
          type: 'trustline',
          accountId: fill(0x42),
          asset: { type: 'alphanum4', code: 'USD', issuer: fill(0x42) },
        }),
      ),
    ).toBe(
      xdr.LedgerKey.trustline(
        new xdr.LedgerKeyTrustLine({ accountId: account, asset: xdr.TrustLineAsset.assetTypeCreditAlphanum4(usd) }),
      ).toXDR('hex'),
    );
    expect(
      hex(
        encodeLedgerKey({
          type: 'contractData',
          contract: { type: 'contract', contractId: fill(1) },
          key: { type: 'ledgerKeyContractInstance' },
          durability: 'temporary',
        }),
      ),
    ).toBe(
      xdr.LedgerKey.contractData(
        new xdr.LedgerKeyContractData({
          contract: xdr.ScAddress.scAddressTypeContract(Buffer.from(fill(1)) as unknown as xdr.Hash),
          key: xdr.ScVal.scvLedgerKeyContractInstance(),
          durability: xdr.ContractDataDurability.temporary(),
        }),
      ).toXDR('hex'),
    );
  });

  it('accepts raw asset-code bytes verbatim', () => {
    const key = encodeLedgerKey({
      type: 'trustline',
      accountId: fill(1),
      asset: { type: 'alphanum4', code: Uint8Array.of(0xff, 0, 1, 0), issuer: fill(2) },
    });
    expect(hex(key.subarray(44, 48))).toBe('ff000100');
  });

  it('rejects bad inputs', () => {
    expectInvalidArgument(() => encodeLedgerKey({ type: 'account', accountId: fill(1, 33) }), 'accountId');
    expectInvalidArgument(
      () => encodeLedgerKey({ type: 'data', accountId: fill(1), dataName: 'x'.repeat(65) }),
      'dataName',
    );
    expectInvalidArgument(
      () =>
        encodeLedgerKey({
          type: 'trustline',
          accountId: fill(1),
          asset: { type: 'alphanum4', code: 'TOOLONG', issuer: fill(2) },
        }),
      'code',
    );
    expectInvalidArgument(
      () =>
        encodeLedgerKey({
          type: 'trustline',
          accountId: fill(1),
          asset: { type: 'alphanum12', code: 'ABC', issuer: fill(2) },
        }),
      'code',
    );
    expectInvalidArgument(
      () =>
        encodeLedgerKey({
          type: 'trustline',
          accountId: fill(1),
          asset: { type: 'alphanum4', code: 'A-B', issuer: fill(2) },
        }),
      'code',
    );
    expectInvalidArgument(() => encodeLedgerKey({ type: 'offer', sellerId: fill(1), offerId: 2n ** 63n }), 'offerId');
    expectInvalidArgument(() => encodeLedgerKey({ type: 'configSetting', configSettingId: 21 }), 'configSettingId');
    expectInvalidArgument(
      () =>
        encodeLedgerKey({
          type: 'contractData',
          contract: { type: 'contract', contractId: fill(1) },
          key: { type: 'void' },
          durability: 'forever' as 'temporary',
        }),
      'durability',
    );
    expectInvalidArgument(() => encodeLedgerKey({ type: 'nope' } as never));
  });
});

/** The ConfigSettingEntry arm bodies (after the id), built by hand from Stellar-contract-config-setting.x. */
function configSettingBodies(): Map<number, Uint8Array> {
  const words = (...values: number[]): Uint8Array => {
    const out = new Uint8Array(values.length * 4);
    const view = new DataView(out.buffer);
    for (let i = 0; i < values.length; i++) view.setUint32(i * 4, values[i]!);
    return out;
  };
  const concat = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(parts.flatMap((part) => [...part]));
  const costParams = concat(words(2), words(0, 0, 10, 0, 20), words(0, 0, 30, 0, 40)); // ext, constTerm, linearTerm
  const opaque = (...bytes: number[]): Uint8Array =>
    concat(words(bytes.length), Uint8Array.from(bytes), new Uint8Array((4 - (bytes.length % 4)) % 4));
  return new Map<number, Uint8Array>([
    [0, words(65536)],
    [1, words(0, 1, 0, 2, 0, 3, 4)],
    [2, words(...Array.from({ length: 21 }, (_, i) => i))],
    [3, words(0, 5)],
    [4, words(1, 0, 2)],
    [5, words(1, 2, 0, 3)],
    [6, costParams],
    [7, costParams],
    [8, words(250)],
    [9, words(65536)],
    [10, words(...Array.from({ length: 12 }, (_, i) => i))],
    [11, words(100)],
    [12, concat(words(3), words(0, 1, 0, 2, 0, 3))],
    [13, words(6, 1, 0, 99)], // bucketListLevel, isCurrBucket = true, bucketFileOffset
    [14, words(8)],
    [15, words(100, 0, 7)],
    [16, words(5000, 1000, 1000, 1000, 1000)],
    [17, concat(words(2), opaque(1, 2, 3), opaque())],
    [18, concat(words(1), opaque(9), words(0))],
    [19, concat(words(1), fill(7))],
    [20, concat(words(1), fill(7), words(1), fill(8))],
  ]);
}

describe('encodeLedgerEntry', () => {
  const entry = (data: LedgerEntryData, v1?: LedgerEntry['v1']): LedgerEntry =>
    v1 === undefined ? { lastModifiedLedgerSeq: 123, data } : { lastModifiedLedgerSeq: 123, data, v1 };
  const usdc = { type: 'alphanum4', code: 'USDC', issuer: fill(2) } as const;

  const entries: [string, LedgerEntry][] = [
    ['minimal account', entry({ type: 'account', accountId: fill(1) })],
    [
      'account with signers and ext v1/v2/v3',
      entry({
        type: 'account',
        accountId: fill(1),
        balance: 10_000_000n,
        seqNum: 2n ** 40n,
        numSubEntries: 3,
        inflationDest: fill(9),
        flags: 0xf,
        homeDomain: 'example.org',
        thresholds: Uint8Array.of(1, 2, 3, 4),
        signers: [
          { key: { type: 'ed25519', key: fill(3) }, weight: 1 },
          { key: { type: 'preAuthTx', hash: fill(4) }, weight: 2 },
          { key: { type: 'hashX', hash: fill(5) }, weight: 3 },
          { key: { type: 'ed25519SignedPayload', ed25519: fill(6), payload: Uint8Array.of(1, 2, 3, 4, 5) }, weight: 4 },
        ],
        v1: {
          liabilities: { buying: 1n, selling: 2n },
          v2: {
            numSponsored: 1,
            numSponsoring: 2,
            signerSponsoringIds: [fill(7), null, null, fill(8)],
            v3: { seqLedger: 77, seqTime: 88n },
          },
        },
      }),
    ],
    [
      'trustline',
      entry({ type: 'trustline', accountId: fill(1), asset: usdc, balance: 5n, limit: 2n ** 63n - 1n, flags: 1 }),
    ],
    [
      'trustline with ext v1/v2',
      entry({
        type: 'trustline',
        accountId: fill(1),
        asset: { type: 'poolShare', liquidityPoolId: fill(3) },
        v1: { liabilities: { buying: 0n, selling: 0n }, v2: { liquidityPoolUseCount: -1 } },
      }),
    ],
    [
      'offer',
      entry({
        type: 'offer',
        sellerId: fill(1),
        offerId: 99n,
        selling: usdc,
        buying: { type: 'native' },
        amount: 10n,
        price: { n: 3, d: 7 },
        flags: 1,
      }),
    ],
    ['data', entry({ type: 'data', accountId: fill(1), dataName: 'name', dataValue: Uint8Array.of(1, 2, 3) })],
    [
      'claimable balance with nested predicates',
      entry({
        type: 'claimableBalance',
        balanceId: fill(4),
        claimants: [
          { destination: fill(1), predicate: { type: 'unconditional' } },
          {
            destination: fill(2),
            predicate: {
              type: 'and',
              predicates: [
                { type: 'not', predicate: { type: 'beforeAbsoluteTime', time: 1_700_000_000n } },
                {
                  type: 'or',
                  predicates: [
                    { type: 'beforeRelativeTime', seconds: 60n },
                    { type: 'not', predicate: null },
                  ],
                },
              ],
            },
          },
        ],
        asset: usdc,
        amount: 5n,
        v1: { flags: 1 },
      }),
    ],
    [
      'liquidity pool',
      entry({
        type: 'liquidityPool',
        liquidityPoolId: fill(5),
        assetA: { type: 'native' },
        assetB: usdc,
        reserveA: 1n,
        reserveB: 2n,
      }),
    ],
    [
      'contract data',
      entry({
        type: 'contractData',
        contract: { type: 'contract', contractId: fill(6) },
        key: { type: 'symbol', value: 'COUNTER' },
        durability: 'temporary',
        val: {
          type: 'map',
          value: [
            [
              { type: 'u32', value: 1 },
              { type: 'string', value: 'one' },
            ],
          ],
        },
      }),
    ],
    [
      'contract code (ext v0)',
      entry({ type: 'contractCode', hash: fill(8), code: Uint8Array.of(0, 0x61, 0x73, 0x6d, 1) }),
    ],
    [
      'contract code (ext v1 cost inputs)',
      entry({
        type: 'contractCode',
        hash: fill(8),
        code: Uint8Array.of(0, 0x61, 0x73, 0x6d),
        costInputs: {
          nInstructions: 1,
          nFunctions: 2,
          nGlobals: 3,
          nTableEntries: 4,
          nTypes: 5,
          nDataSegments: 6,
          nElemSegments: 7,
          nImports: 8,
          nExports: 9,
          nDataSegmentBytes: 10,
        },
      }),
    ],
    ['ttl', entry({ type: 'ttl', keyHash: fill(9), liveUntilLedgerSeq: 1000 })],
    ['sponsored (ext v1)', entry({ type: 'ttl', keyHash: fill(9), liveUntilLedgerSeq: 1 }, { sponsoringId: fill(10) })],
    ['ext v1 without sponsor', entry({ type: 'ttl', keyHash: fill(9), liveUntilLedgerSeq: 1 }, { sponsoringId: null })],
  ];

  it.each(entries)('%s: canonical XDR that stellar-base round-trips', (_name, value) => {
    const bytes = encodeLedgerEntry(value);
    validateLedgerEntry(bytes);
    expectStellarRoundTrip(xdr.LedgerEntry, bytes);
  });

  it('decodes to the values we wrote (spot checks through stellar-base)', () => {
    const account = xdr.LedgerEntry.fromXDR(Buffer.from(encodeLedgerEntry(entries[1]![1])))
      .data()
      .account();
    expect(account.balance().toBigInt()).toBe(10_000_000n);
    expect(account.homeDomain().toString()).toBe('example.org');
    expect(account.signers()).toHaveLength(4);
    expect(account.ext().v1().ext().v2().ext().v3().seqLedger()).toBe(77);
    const offer = xdr.LedgerEntry.fromXDR(Buffer.from(encodeLedgerEntry(entries[4]![1])))
      .data()
      .offer();
    expect(offer.price().d()).toBe(7);
    expect(offer.selling().alphaNum4().assetCode().toString('latin1')).toBe('USDC');
  });

  it.each([...configSettingBodies()])('config setting %i: our arm layout is stellar-base’s', (id, body) => {
    const bytes = encodeLedgerEntry({
      lastModifiedLedgerSeq: 1,
      data: { type: 'configSetting', configSettingId: id, body },
    });
    expectStellarRoundTrip(xdr.LedgerEntry, bytes);
    expect(xdr.LedgerEntry.fromXDR(Buffer.from(bytes)).data().configSetting().switch().value).toBe(id);
  });

  it('rejects a config-setting body that does not match its arm', () => {
    expectInvalidArgument(
      () =>
        encodeLedgerEntry({
          lastModifiedLedgerSeq: 1,
          data: { type: 'configSetting', configSettingId: 0, body: new Uint8Array(8) },
        }),
      'body',
    );
    expectInvalidArgument(
      () =>
        encodeLedgerEntry({
          lastModifiedLedgerSeq: 1,
          data: {
            type: 'configSetting',
            configSettingId: 13,
            body: Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0),
          },
        }),
      'body',
    );
  });

  it('rejects bad inputs', () => {
    expectInvalidArgument(
      () =>
        encodeLedgerEntry({
          lastModifiedLedgerSeq: -1,
          data: { type: 'ttl', keyHash: fill(1), liveUntilLedgerSeq: 1 },
        }),
      'lastModifiedLedgerSeq',
    );
    expectInvalidArgument(
      () => encodeLedgerEntry(entry({ type: 'account', accountId: fill(1), homeDomain: 'x'.repeat(33) })),
      'homeDomain',
    );
    expectInvalidArgument(
      () =>
        encodeLedgerEntry(
          entry({
            type: 'account',
            accountId: fill(1),
            signers: Array.from({ length: 21 }, () => ({ key: { type: 'ed25519', key: fill(1) }, weight: 1 }) as const),
          }),
        ),
      'signers',
    );
    expectInvalidArgument(
      () => encodeLedgerEntry(entry({ type: 'data', accountId: fill(1), dataName: 'n', dataValue: fill(0, 65) })),
      'dataValue',
    );
    expectInvalidArgument(
      () =>
        encodeLedgerEntry(
          entry({
            type: 'claimableBalance',
            balanceId: fill(1),
            claimants: [
              {
                destination: fill(1),
                predicate: {
                  type: 'and',
                  predicates: [{ type: 'unconditional' }, { type: 'unconditional' }, { type: 'unconditional' }],
                },
              },
            ],
          }),
        ),
      'predicates',
    );
    expectInvalidArgument(
      () =>
        encodeLedgerEntry(
          entry({
            type: 'offer',
            sellerId: fill(1),
            offerId: 1n,
            selling: { type: 'poolShare', liquidityPoolId: fill(1) } as never,
          }),
        ),
      'selling',
    );
  });
});

describe('bucket entries', () => {
  const key = encodeLedgerKey({ type: 'contractCode', hash: fill(8) });
  const entry = encodeLedgerEntry({
    lastModifiedLedgerSeq: 5,
    data: { type: 'contractCode', hash: fill(8), code: Uint8Array.of(1) },
  });

  it('encodes every live BucketEntry kind and both BucketMetadata versions', () => {
    const values = [
      encodeBucketEntry({ type: 'meta', ledgerVersion: 23 }),
      encodeBucketEntry({ type: 'meta', ledgerVersion: 23, bucketListType: 'live' }),
      encodeBucketEntry({ type: 'live', entry }),
      encodeBucketEntry({
        type: 'init',
        entry: { lastModifiedLedgerSeq: 5, data: { type: 'ttl', keyHash: fill(1), liveUntilLedgerSeq: 9 } },
      }),
      encodeBucketEntry({ type: 'dead', key }),
      encodeBucketEntry({ type: 'dead', key: { type: 'account', accountId: fill(1) } }),
    ];
    for (const value of values) expectStellarRoundTrip(xdr.BucketEntry, value);
    expect(hex(values[0]!.subarray(0, 4))).toBe('ffffffff');
  });

  it('encodes every HotArchiveBucketEntry kind', () => {
    const values = [
      encodeHotArchiveBucketEntry({ type: 'meta', ledgerVersion: 23, bucketListType: 'hotArchive' }),
      encodeHotArchiveBucketEntry({ type: 'archived', entry }),
      encodeHotArchiveBucketEntry({ type: 'live', key }),
    ];
    for (const value of values) expectStellarRoundTrip(xdr.HotArchiveBucketEntry, value);
  });

  it('re-validates caller-supplied XDR and reports it as INVALID_ARGUMENT with the cause', () => {
    let thrown: unknown;
    try {
      encodeBucketEntry({ type: 'dead', key: key.subarray(0, 10) });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LedgerKeyError);
    expect((thrown as LedgerKeyError).code).toBe('INVALID_ARGUMENT');
    expect(((thrown as LedgerKeyError).cause as LedgerKeyError).code).toBe('TRUNCATED');
    expectInvalidArgument(() =>
      encodeBucketEntry({ type: 'meta', ledgerVersion: 1, bucketListType: 'cold' as 'live' }),
    );
  });
});

describe('strkeys against stellar-base StrKey', () => {
  const keys = [fill(0), fill(0xff), Uint8Array.from({ length: 32 }, (_, i) => i * 7)];

  it('G / C / L / B encode and decode like StrKey', () => {
    for (const key of keys) {
      const buffer = Buffer.from(key);
      expect(encodeAccountStrkey(key)).toBe(StrKey.encodeEd25519PublicKey(buffer));
      expect(encodeContractStrkey(key)).toBe(StrKey.encodeContract(buffer));
      expect(encodeLiquidityPoolStrkey(key)).toBe(StrKey.encodeLiquidityPool(buffer));
      expect(encodeClaimableBalanceStrkey(key)).toBe(
        StrKey.encodeClaimableBalance(Buffer.concat([Buffer.from([0]), buffer])),
      );
      expect(decodeAccountStrkey(StrKey.encodeEd25519PublicKey(buffer))).toEqual(key);
      expect(decodeContractStrkey(StrKey.encodeContract(buffer))).toEqual(key);
      expect(decodeLiquidityPoolStrkey(StrKey.encodeLiquidityPool(buffer))).toEqual(key);
      expect(decodeClaimableBalanceStrkey(encodeClaimableBalanceStrkey(key))).toEqual(key);
    }
  });

  it('M encodes key then id, as StrKey does', () => {
    for (const id of [0n, 1n, 2n ** 64n - 1n, 0x0102030405060708n]) {
      const idBytes = Buffer.alloc(8);
      idBytes.writeBigUInt64BE(id);
      const expected = StrKey.encodeMed25519PublicKey(Buffer.concat([Buffer.from(keys[2]!), idBytes]));
      expect(encodeMuxedStrkey(keys[2]!, id)).toBe(expected);
      expect(decodeMuxedStrkey(expected)).toEqual({ ed25519: keys[2], id });
    }
  });

  it('rejects what StrKey rejects: wrong version, checksum, length, alphabet, non-canonical tail', () => {
    const good = StrKey.encodeEd25519PublicKey(Buffer.from(keys[2]!));
    const flipped = `${good.slice(0, 10)}${good[10] === 'A' ? 'B' : 'A'}${good.slice(11)}`;
    const bad = [
      StrKey.encodeContract(Buffer.from(keys[2]!)), // valid strkey, wrong version
      flipped, // checksum mismatch
      good.slice(0, -1),
      `${good}A`,
      good.toLowerCase(),
      `${good.slice(0, -1)}1`,
    ];
    for (const text of bad) {
      expect(StrKey.isValidEd25519PublicKey(text)).toBe(false);
      expectInvalidArgument(() => decodeAccountStrkey(text), 'accountStrkey');
    }
    // A G key (35 bytes = 280 bits) has no spare bits; an M key (43 bytes in 69 characters) has one, in the last
    // character's lowest bit. Setting it keeps every byte (and the checksum) and only breaks canonical form.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
    const muxed = encodeMuxedStrkey(keys[2]!, 5n);
    const tweaked = muxed.slice(0, -1) + alphabet[alphabet.indexOf(muxed.at(-1)!) ^ 1];
    expect(StrKey.isValidMed25519PublicKey(tweaked)).toBe(false);
    expectInvalidArgument(() => decodeMuxedStrkey(tweaked), 'muxedStrkey');
    expectInvalidArgument(() => encodeAccountStrkey(fill(1, 31)), 'accountStrkey');
  });
});
