// Compiles the XDR schema of xdr-schema.ts into validating skip functions: `skip(bytes, offset, depth) → end`. They
// read nothing out; they prove that a value is well-formed (bounds, discriminants, padding, bools, XDR bounds, depth)
// and say where it ends, so the extractor can walk the few paths it needs by hand and skip everything else safely.
import * as ledgerKey from '@strata/ledger-key';
import { fail, fromLedgerKeyError, LedgerMetaError, LedgerMetaErrorCode } from './errors.js';
import { LCM_SCHEMA } from './xdr-schema.js';

// Module-local copies: an imported binding is read again at every use (see ledger-close-meta.ts).
const { readLedgerEntry, readLedgerKey, readScAddress, scValEnd } = ledgerKey;

/** Validates the value at `p` and returns the offset just past it. `depth` counts enclosing structs and unions. */
export type Skip = (b: Uint8Array, p: number, depth: number) => number;

/**
 * Cap on struct/union nesting. A real LedgerCloseMeta nests about 25 levels before recursion (ClaimPredicate,
 * SorobanAuthorizedInvocation, SCPQuorumSet) adds more; SCVal depth is capped separately by @strata/ledger-key. The
 * cap keeps hostile input from exhausting the stack: it fails as TOO_DEEP instead of a RangeError.
 */
export const MAX_XDR_DEPTH = 200;

const { TRUNCATED, BAD_DISCRIMINANT, BAD_BOOL, TOO_LONG, TOO_DEEP, BAD_PADDING } = LedgerMetaErrorCode;

// ---- cold paths ----

function truncated(b: Uint8Array, p: number, need: number): never {
  return fail(TRUNCATED, p, undefined, `need ${need} bytes, ${Math.max(0, b.length - p)} left`);
}

/** Adds a path segment to a LedgerMetaError unwinding through a struct field, an array element or a union arm. */
export function annotate(error: unknown, segment: string): never {
  if (error instanceof LedgerMetaError) throw error.locate({ fieldPrefix: segment });
  throw error;
}

// ---- primitives ----

export function readU32(b: Uint8Array, p: number): number {
  if (p + 4 > b.length) truncated(b, p, 4);
  // `!` is safe: bounds checked on the line above
  return ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;
}

export function readI32(b: Uint8Array, p: number): number {
  return readU32(b, p) | 0;
}

function fixed(size: number): Skip {
  return (b, p) => {
    if (p + size > b.length) truncated(b, p, size);
    return p + size;
  };
}

function checkPadding(b: Uint8Array, from: number, to: number): void {
  for (let q = from; q < to; q++) if (b[q] !== 0) fail(BAD_PADDING, q, undefined, 'non-zero XDR padding');
}

const skipBool: Skip = (b, p) => {
  const flag = readU32(b, p);
  if (flag > 1) fail(BAD_BOOL, p, undefined, `expected 0 or 1, got ${flag}`);
  return p + 4;
};

function fixedOpaque(size: number): Skip {
  const padded = (size + 3) & ~3;
  return (b, p) => {
    if (p + padded > b.length) truncated(b, p, padded);
    if (padded !== size) checkPadding(b, p + size, p + padded);
    return p + padded;
  };
}

function variableOpaque(max: number): Skip {
  return (b, p) => {
    const length = readU32(b, p);
    if (length > max) fail(TOO_LONG, p, undefined, `length ${length} exceeds the XDR bound ${max}`);
    const padded = (length + 3) & ~3;
    if (p + 4 + padded > b.length) truncated(b, p + 4, padded);
    if (padded !== length) checkPadding(b, p + 4 + length, p + 4 + padded);
    return p + 4 + padded;
  };
}

// ---- values read by @strata/ledger-key (full validation there; errors converted to LedgerMetaError) ----

const externalSkips: Record<string, Skip> = {
  '@LedgerEntry': (b, p) => {
    try {
      return p + readLedgerEntry(b, p).byteLength;
    } catch (error) {
      return fromLedgerKeyError(error, 'LedgerEntry');
    }
  },
  '@LedgerKey': (b, p) => {
    try {
      return p + readLedgerKey(b, p).byteLength;
    } catch (error) {
      return fromLedgerKeyError(error, 'LedgerKey');
    }
  },
  '@SCVal': (b, p) => {
    try {
      return scValEnd(b, p);
    } catch (error) {
      return fromLedgerKeyError(error, 'SCVal');
    }
  },
  '@SCAddress': (b, p) => {
    try {
      return p + readScAddress(b, p).xdr.length;
    } catch (error) {
      return fromLedgerKeyError(error, 'SCAddress');
    }
  },
};

// ---- the compiler ----

interface Slot {
  skip: Skip;
  /** False while the type's own definition is being compiled (a recursive reference sees the slot then). */
  compiled: boolean;
}

const slots = new Map<string, Slot>();
const minSizes = new Map<string, number>();

const expressionSkips = new Map<string, Skip>();

/** The skip function of a type expression over schema names (`DiagnosticEvent<>`, `@LedgerKey`), compiled once. */
export function skipperFor(expression: string): Skip {
  let skip = expressionSkips.get(expression);
  if (skip === undefined) {
    skip = compileExpression(expression);
    expressionSkips.set(expression, skip);
  }
  return skip;
}

/** The skip function of a named schema type, compiled on first use together with every type it references. */
export function skipperOf(name: string): Skip {
  return slotOf(name).skip;
}

function slotOf(name: string): Slot {
  let slot = slots.get(name);
  if (slot !== undefined) return slot;
  const definition = LCM_SCHEMA[name];
  if (definition === undefined) throw new Error(`xdr-schema has no type ${name}`);
  slot = {
    skip: () => {
      throw new Error(`xdr-walker: ${name} called while it is being compiled`);
    },
    compiled: false,
  };
  slots.set(name, slot);
  // Compiling references compiles the referenced types first, so a parent calls their final skip functions
  // directly; only a reference back into a type still being compiled (recursion) goes through its slot.
  slot.skip = compileDefinition(name, definition);
  slot.compiled = true;
  return slot;
}

function boundOf(text: string): number {
  return text === '' ? 0xffffffff : Number(text);
}

/** A type expression (see xdr-schema.ts) → its skip function. */
function compileExpression(expression: string): Skip {
  if (expression.endsWith('?')) {
    const inner = compileExpression(expression.slice(0, -1));
    return (b, p, depth) => {
      const present = readU32(b, p);
      if (present === 0) return p + 4;
      if (present !== 1) fail(BAD_BOOL, p, undefined, `optional flag must be 0 or 1, got ${present}`);
      return inner(b, p + 4, depth);
    };
  }
  const fixedArray = /^(.*)\[(\d+)\]$/.exec(expression);
  if (fixedArray !== null) {
    const [, elementText = '', countText = ''] = fixedArray;
    if (elementText === 'opaque') return fixedOpaque(Number(countText));
    return fixedArrayOf(compileExpression(elementText), Number(countText));
  }
  const variable = /^(.*)<(\d*)>$/.exec(expression);
  if (variable !== null) {
    const [, elementText = '', boundText = ''] = variable;
    if (elementText === 'opaque' || elementText === 'string') return variableOpaque(boundOf(boundText));
    return variableArrayOf(compileExpression(elementText), boundOf(boundText), minSizeOf(elementText));
  }
  switch (expression) {
    case 'i32':
    case 'u32':
      return fixed(4);
    case 'i64':
    case 'u64':
      return fixed(8);
    case 'bool':
      return skipBool;
    case 'void':
      return (_b, p) => p;
  }
  const external = externalSkips[expression];
  if (external !== undefined) return external;
  const slot = slotOf(expression);
  if (slot.compiled) return slot.skip;
  return (b, p, depth) => slot.skip(b, p, depth);
}

function fixedArrayOf(element: Skip, count: number): Skip {
  return (b, p, depth) => {
    let i = 0;
    try {
      for (; i < count; i++) p = element(b, p, depth);
      return p;
    } catch (error) {
      return annotate(error, `[${i}]`);
    }
  };
}

function variableArrayOf(element: Skip, max: number, minElementSize: number): Skip {
  return (b, p, depth) => {
    const count = readU32(b, p);
    if (count > max) fail(TOO_LONG, p, undefined, `${count} elements exceed the XDR bound ${max}`);
    // Checked before looping: a hostile count cannot make the walker spin over bytes that are not there.
    if (count * minElementSize > b.length - p - 4) {
      fail(TRUNCATED, p, undefined, `${count} elements of at least ${minElementSize} bytes cannot fit`);
    }
    p += 4;
    let i = 0;
    try {
      for (; i < count; i++) p = element(b, p, depth);
      return p;
    } catch (error) {
      return annotate(error, `[${i}]`);
    }
  };
}

function compileDefinition(name: string, definition: string): Skip {
  const [kind = '', ...parts] = definition.split(' ');
  switch (kind) {
    case 'struct':
      return compileStruct(parts);
    case 'union':
      return compileUnion(parts.slice(1));
    case 'enum': {
      const valid = new Set(parts.map(Number));
      return (b, p) => {
        const value = readI32(b, p);
        if (!valid.has(value)) fail(BAD_DISCRIMINANT, p, undefined, `${name} has no value ${value}`);
        return p + 4;
      };
    }
    default:
      return compileExpression(definition);
  }
}

/** Byte size of a field type with no value to check (ints, 4-aligned fixed opaque), or 0 for any other type. */
function plainFixedSize(expression: string): number {
  switch (expression) {
    case 'i32':
    case 'u32':
      return 4;
    case 'i64':
    case 'u64':
      return 8;
  }
  const opaque = /^opaque\[(\d+)\]$/.exec(expression);
  const size = opaque === null ? 0 : Number(opaque[1]);
  return size % 4 === 0 ? size : 0;
}

function compileStruct(fieldTexts: string[]): Skip {
  const names = fieldTexts.map((text) => text.slice(0, text.indexOf(':')));
  const expressions = fieldTexts.map((text) => text.slice(text.indexOf(':') + 1));
  const skips = expressions.map(compileExpression);
  // Steps: a run of consecutive plain fixed-size fields is one bounds check (its fields' own skips run only to report
  // a truncation inside it, with the exact field and offset); any other field is a call to its skip.
  const stepFirst: number[] = [];
  const stepCount: number[] = [];
  const stepSize: number[] = [];
  for (let i = 0; i < expressions.length; ) {
    // `!` is safe: i < expressions.length
    let size = plainFixedSize(expressions[i]!);
    let end = i + 1;
    if (size > 0) {
      while (end < expressions.length && plainFixedSize(expressions[end]!) > 0)
        size += plainFixedSize(expressions[end++]!);
    }
    stepFirst.push(i);
    stepCount.push(end - i);
    stepSize.push(size);
    i = end;
  }
  const steps = stepFirst.length;
  return (b, p, depth) => {
    if (depth > MAX_XDR_DEPTH) fail(TOO_DEEP, p, undefined, `nesting deeper than ${MAX_XDR_DEPTH}`);
    let i = 0;
    try {
      for (let step = 0; step < steps; step++) {
        // `!` is safe: step < steps = the length of every step array, and i indexes skips within the step
        i = stepFirst[step]!;
        const size = stepSize[step]!;
        if (size === 0) p = skips[i]!(b, p, depth + 1);
        else if (p + size <= b.length) p += size;
        else for (const end = i + stepCount[step]!; i < end; i++) p = skips[i]!(b, p, depth + 1);
      }
      return p;
    } catch (error) {
      return annotate(error, names[i] ?? '?');
    }
  };
}

/** Union discriminants below this are looked up in an array. */
const DENSE_ARMS = 64;

function compileUnion(armTexts: string[]): Skip {
  const arms = new Map<number, { name: string; skip: Skip }>();
  let fallback: { name: string; skip: Skip } | undefined;
  for (const text of armTexts) {
    const equals = text.indexOf('=');
    const cases = text.slice(0, equals).split(',');
    const body = text.slice(equals + 1);
    const colon = body.indexOf(':');
    const arm =
      colon < 0
        ? { name: 'void', skip: compileExpression('void') }
        : { name: body.slice(0, colon), skip: compileExpression(body.slice(colon + 1)) };
    for (const label of cases) {
      if (label === 'default') fallback = arm;
      else arms.set(Number(label), arm);
    }
  }
  // Small non-negative discriminants (almost all) are found by index; negative or large ones in the map.
  const dense: ({ name: string; skip: Skip } | undefined)[] = [];
  for (const [label, arm] of arms) {
    if (label < 0 || label >= DENSE_ARMS) continue;
    while (dense.length <= label) dense.push(undefined);
    dense[label] = arm;
  }
  const denseLength = dense.length;
  return (b, p, depth) => {
    if (depth > MAX_XDR_DEPTH) fail(TOO_DEEP, p, undefined, `nesting deeper than ${MAX_XDR_DEPTH}`);
    const discriminant = readI32(b, p);
    const arm =
      (discriminant >= 0 && discriminant < denseLength ? dense[discriminant] : arms.get(discriminant)) ?? fallback;
    if (arm === undefined) fail(BAD_DISCRIMINANT, p, undefined, `unknown discriminant ${discriminant}`);
    try {
      return arm.skip(b, p + 4, depth + 1);
    } catch (error) {
      return annotate(error, arm.name);
    }
  };
}

/** A lower bound on the encoded size of a type expression, for the count check before an array loop. */
function minSizeOf(expression: string): number {
  if (expression.endsWith('?')) return 4;
  const fixedArray = /^(.*)\[(\d+)\]$/.exec(expression);
  if (fixedArray !== null) {
    const [, elementText = '', countText = ''] = fixedArray;
    const count = Number(countText);
    return elementText === 'opaque' ? (count + 3) & ~3 : count * minSizeOf(elementText);
  }
  if (/<\d*>$/.test(expression)) return 4;
  switch (expression) {
    case 'void':
      return 0;
    case 'i32':
    case 'u32':
    case 'bool':
      return 4;
    case 'i64':
    case 'u64':
      return 8;
  }
  if (expression.startsWith('@')) return 4;
  const known = minSizes.get(expression);
  if (known !== undefined) return known;
  minSizes.set(expression, 0); // a recursive reference while computing: 0 is a safe lower bound
  const definition = LCM_SCHEMA[expression] ?? 'void';
  const [kind = '', ...parts] = definition.split(' ');
  let size: number;
  if (kind === 'struct') size = parts.reduce((sum, text) => sum + minSizeOf(text.slice(text.indexOf(':') + 1)), 0);
  else if (kind === 'union') {
    size =
      4 +
      Math.min(
        ...parts.slice(1).map((text) => {
          const body = text.slice(text.indexOf('=') + 1);
          const colon = body.indexOf(':');
          return colon < 0 ? 0 : minSizeOf(body.slice(colon + 1));
        }),
      );
  } else if (kind === 'enum') size = 4;
  else size = minSizeOf(definition);
  minSizes.set(expression, size);
  return size;
}

/**
 * Validates one value of schema type `name` at `offset` of `bytes` and returns where it ends. Errors carry the
 * offset in `bytes` and the XDR path from `name` down.
 */
export function skipXdr(name: string, bytes: Uint8Array, offset: number, depth = 0): number {
  try {
    return skipperOf(name)(bytes, offset, depth);
  } catch (error) {
    return annotate(error, name);
  }
}
