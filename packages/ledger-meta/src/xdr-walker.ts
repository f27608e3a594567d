// The schema walker: validating skip functions over the XDR schema of xdr-schema.ts, `skip(bytes, offset, depth) →
// end`. They read nothing out; they prove that a value is well-formed (bounds, discriminants, padding, bools, XDR
// bounds, depth) and say where it ends, so the extractor can walk the few paths it needs by hand and skip everything
// else safely. The functions are TypeScript generated from the schema at build time (xdr-walker.generated.ts, by
// scripts/generate-xdr-walker.ts, checked in): nothing is compiled at run time, so the package runs under
// `node --disallow-code-generation-from-strings`.
import { annotate } from './errors.js';
import { XDR_SKIPS, type XdrExpression } from './xdr-walker.generated.js';
import type { Skip } from './xdr-walker-runtime.js';

export type { XdrExpression } from './xdr-walker.generated.js';
export { MAX_XDR_DEPTH, readI32, readU32, type Skip } from './xdr-walker-runtime.js';

/**
 * The skip function of a schema type or of a type expression the schema uses (`DiagnosticEvent<>`, `@LedgerKey`,
 * `SorobanTransactionMetaV2?`). The set is fixed when the walker is generated: an expression the schema does not use
 * is a type error here, and a new one is added to the schema, not compiled on request.
 */
export function skipperFor(expression: XdrExpression): Skip {
  return XDR_SKIPS[expression];
}

/**
 * Validates one value of schema type `name` at `offset` of `bytes` and returns where it ends. Errors carry the
 * offset in `bytes` and the XDR path from `name` down.
 */
export function skipXdr(name: XdrExpression, bytes: Uint8Array, offset: number, depth = 0): number {
  try {
    return skipperFor(name)(bytes, offset, depth);
  } catch (error) {
    return annotate(error, name);
  }
}
