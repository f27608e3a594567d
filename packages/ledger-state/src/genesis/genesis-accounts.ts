// The accounts of genesis (LedgerManagerImpl::startNewLedger): the root account, whose key is the ed25519 key with
// the network id as its seed and which holds every coin, and (tests only, GENESIS_TEST_ACCOUNT_COUNT) accounts
// `TestAccount-<i>` that share the coins with it.
import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import { assert } from '@strata/base';
import { encodeLedgerEntry } from '@strata/ledger-key';
import { invalidArgument } from '../arguments.js';

/** LedgerManager::GENESIS_LEDGER_TOTAL_COINS: 10^18 stroops (100 billion lumens). */
export const GENESIS_LEDGER_TOTAL_COINS = 1_000_000_000_000_000_000n;

/** LedgerManager::GENESIS_LEDGER_SEQ, also every genesis entry's lastModifiedLedgerSeq. */
export const GENESIS_LEDGER_SEQ = 1;

/** PKCS#8 DER of an Ed25519 private key, up to the 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);
/** Length of an Ed25519 SubjectPublicKeyInfo DER before the 32 key bytes. */
const ED25519_SPKI_PREFIX_LENGTH = 12;

/** The network id: SHA-256 of the passphrase (UTF-8). INVALID_ARGUMENT unless the passphrase is a string. */
export function networkId(networkPassphrase: string): Uint8Array {
  if (typeof networkPassphrase !== 'string') throw invalidArgument('networkPassphrase', 'a string', networkPassphrase);
  return new Uint8Array(createHash('sha256').update(networkPassphrase, 'utf8').digest());
}

/** SecretKey::fromSeed(seed).getPublicKey(): the Ed25519 public key of a 32-byte seed. */
export function ed25519PublicKey(seed: Uint8Array): Uint8Array {
  assert(seed.length === 32, `an ed25519 seed is 32 bytes, got ${seed.length}`);
  const der = new Uint8Array(ED25519_PKCS8_PREFIX.length + 32);
  der.set(ED25519_PKCS8_PREFIX);
  der.set(seed, ED25519_PKCS8_PREFIX.length);
  const privateKey = createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return new Uint8Array(spki.subarray(ED25519_SPKI_PREFIX_LENGTH));
}

/**
 * The root account's id: the Ed25519 public key whose seed is the network id (stellar-base's `Keypair.master`).
 * INVALID_ARGUMENT unless the passphrase is a string.
 */
export function rootAccountId(networkPassphrase: string): Uint8Array {
  return ed25519PublicKey(networkId(networkPassphrase));
}

/**
 * txtest::getAccount(name): the key whose seed is `name` padded with '.' to 32 bytes (names here are ASCII and
 * shorter than 32 characters).
 */
function testAccountId(name: string): Uint8Array {
  assert(name.length < 32, `test account name too long: ${name}`);
  return ed25519PublicKey(new TextEncoder().encode(name.padEnd(32, '.')));
}

/**
 * An account as genesis creates it: lastModifiedLedgerSeq 1, the balance, seqNum 0, thresholds [1, 0, 0, 0] and
 * every other field zero or empty (no inflation destination, flags 0, empty home domain, no signers, ext v0).
 */
function genesisAccount(accountId: Uint8Array, balance: bigint): Uint8Array {
  return encodeLedgerEntry({
    lastModifiedLedgerSeq: GENESIS_LEDGER_SEQ,
    data: { type: 'account', accountId, balance, seqNum: 0n, thresholds: Uint8Array.of(1, 0, 0, 0) },
  });
}

/**
 * The root account and `testAccountCount` test accounts (in creation order: tests, then root). With test accounts
 * the coins are split evenly and the root also takes the remainder, so none is lost.
 */
export function genesisAccounts(networkPassphrase: string, testAccountCount: number): Uint8Array[] {
  const totalAccounts = BigInt(testAccountCount + 1);
  const baseAccountBalance = GENESIS_LEDGER_TOTAL_COINS / totalAccounts;
  const remainder = GENESIS_LEDGER_TOTAL_COINS % totalAccounts;
  const accounts: Uint8Array[] = [];
  for (let i = 0; i < testAccountCount; i++) {
    accounts.push(genesisAccount(testAccountId(`TestAccount-${i}`), baseAccountBalance));
  }
  accounts.push(genesisAccount(rootAccountId(networkPassphrase), baseAccountBalance + remainder));
  return accounts;
}
