// fast-check settings shared by every property test. A failure prints its seed and path (fast-check's own
// report); set STRATA_FC_SEED (and STRATA_FC_PATH) to replay it, STRATA_FC_RUNS to change the run count.
import type { Parameters } from 'fast-check';

function envInteger(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new Error(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  return value;
}

/**
 * Parameters for `fc.assert`: `numRuns` (default 100, or the caller's, scaled by STRATA_FC_RUNS when set),
 * an explicit seed from STRATA_FC_SEED, and the replay path from STRATA_FC_PATH.
 */
export function propertyParams<T>(overrides: Parameters<T> = {}): Parameters<T> {
  const params: Parameters<T> = { numRuns: 100, ...overrides };
  const runs = envInteger('STRATA_FC_RUNS');
  if (runs !== undefined) params.numRuns = runs;
  const seed = envInteger('STRATA_FC_SEED');
  if (seed !== undefined) params.seed = seed;
  const path = process.env.STRATA_FC_PATH;
  if (path !== undefined && path !== '') params.path = path;
  return params;
}
