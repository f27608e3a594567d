// The test contracts (test/contracts/*.wat), compiled with wabt when a test or benchmark starts (about 50 ms), so the
// text is the only source: there are no checked-in binaries to drift from it.
import { readFileSync } from 'node:fs';
import wabtInit from 'wabt';

/** Contracts that try to hand a reference out of their execution, one way each (test/contracts/escape-*.wat). */
export const ESCAPE_CONTRACTS = [
  'escape-return-funcref',
  'escape-return-externref',
  'escape-return-many',
  'escape-import-param',
  'escape-imported-table',
  'escape-imported-global',
  'escape-imported-tag',
] as const;
export type EscapeContract = (typeof ESCAPE_CONTRACTS)[number];

export type ContractName =
  | 'workload'
  | 'own-memory'
  | 'data-segment'
  | 'no-memory'
  | 'references-inside'
  | EscapeContract;

const cache = new Map<ContractName, Uint8Array>();
let wabt: Awaited<ReturnType<typeof wabtInit>> | undefined;

/** The WAT text of a test contract. */
export function contractSource(name: ContractName): string {
  return readFileSync(new URL(`./contracts/${name}.wat`, import.meta.url), 'utf8');
}

/** The binary of a test contract (validated by wabt). */
export async function compileContract(name: ContractName): Promise<Uint8Array> {
  const cached = cache.get(name);
  if (cached !== undefined) return cached;
  wabt ??= await wabtInit();
  // Reference types and multi-value are on by default; exceptions (escape-imported-tag) are not.
  const module = wabt.parseWat(`${name}.wat`, contractSource(name), { exceptions: true });
  try {
    module.validate();
    const bytes = new Uint8Array(module.toBinary({}).buffer);
    cache.set(name, bytes);
    return bytes;
  } finally {
    module.destroy();
  }
}

/** The exports of the workload contract. */
export interface WorkloadExports {
  touch(pages: number, stride: number, value: bigint): void;
  fill(address: number, length: number, value: number): void;
  storeByte(address: number, value: number): void;
  storeLast(value: number): void;
  grow(delta: number): number;
  size(): number;
  hostWrite(address: number, length: number, value: number): void;
  trapAfter(pages: number, value: bigint): void;
  hostFailAfter(pages: number, value: bigint): void;
  firstNonZero(from: number, to: number): number;
}
