// Compiles the XDR schema of xdr-schema.ts into validating skip functions: `skip(bytes, offset, depth) → end`. They
// read nothing out; they prove that a value is well-formed (bounds, discriminants, padding, bools, XDR bounds, depth)
// and say where it ends, so the extractor can walk the few paths it needs by hand and skip everything else safely.
// The functions are generated JavaScript (see "the compiler" below), which needs code generation from strings (Node's
// default; not under --disallow-code-generation-from-strings).
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

function checkPadding(b: Uint8Array, from: number, to: number): void {
  for (let q = from; q < to; q++) if (b[q] !== 0) fail(BAD_PADDING, q, undefined, 'non-zero XDR padding');
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
//
// The schema is compiled to JavaScript source, one function per type and type expression, and that source to
// functions with one `new Function` (the source is built only from the constant LCM_SCHEMA; no input reaches it). A
// parent calls its children by name, so every call site has one target that V8 can inline, where closures built per
// type from a few shared function literals made each call site megamorphic: the walk over a ledger's transaction set,
// results and Soroban meta took about twice as long. The generated functions keep the closures' semantics exactly:
// the same checks in the same order, the same error codes, offsets, messages and path segments.

/** What generated code may use (the program's only free names besides its own functions). */
const RUNTIME = {
  readU32,
  readI32,
  fail,
  truncated,
  annotate,
  checkPadding,
  externalSkips,
  TRUNCATED,
  BAD_DISCRIMINANT,
  BAD_BOOL,
  TOO_LONG,
  TOO_DEEP,
};

/** `fail(TOO_DEEP, ...)` of a struct or union nested too deep, as generated code spells it. */
const DEPTH_CHECK = `if (depth > ${MAX_XDR_DEPTH}) fail(TOO_DEEP, p, undefined, ${JSON.stringify(`nesting deeper than ${MAX_XDR_DEPTH}`)});`;

/**
 * One compiled program: the skip functions of a set of type expressions and of everything they reference. A program
 * built with a `parent` table refers to the parent's functions instead of compiling them again (skipperFor of an
 * expression that the schema itself does not contain, such as `SCPHistoryEntry<>`).
 */
class SkipProgram {
  /** Type expression → the name of its function in the program (or of a constant bound to the parent's). */
  private readonly names = new Map<string, string>();
  private readonly sources: string[] = [];

  constructor(private readonly parent: ReadonlyMap<string, Skip> | null) {}

  /** The program-level name of `expression`'s skip function; emits it (and what it references) the first time. */
  nameOf(expression: string): string {
    const known = this.names.get(expression);
    if (known !== undefined) return known;
    const name = `s${this.names.size}`;
    // Registered before its body is emitted, so a recursive reference finds it.
    this.names.set(expression, name);
    if (this.parent?.has(expression)) this.sources.push(`const ${name} = T.get(${JSON.stringify(expression)});`);
    else this.sources.push(`// ${expression}\n${this.emit(expression, name)}`);
    return name;
  }

  /** Compiles the program; returns every expression's skip function by expression. */
  compile(): Map<string, Skip> {
    const body = [
      "'use strict';",
      `const { ${Object.keys(RUNTIME).join(', ')} } = rt;`,
      ...this.sources,
      `return new Map([${[...this.names].map(([expression, name]) => `[${JSON.stringify(expression)}, ${name}]`).join(', ')}]);`,
    ].join('\n');
    const build = new Function('rt', 'T', body) as (
      rt: typeof RUNTIME,
      T: ReadonlyMap<string, Skip> | null,
    ) => Map<string, Skip>;
    return build(RUNTIME, this.parent);
  }

  /** The function `name` for a type expression (see xdr-schema.ts). */
  private emit(expression: string, name: string): string {
    if (expression.endsWith('?')) {
      const inner = this.nameOf(expression.slice(0, -1));
      return `function ${name}(b, p, depth) {
  const present = readU32(b, p);
  if (present === 0) return p + 4;
  if (present !== 1) fail(BAD_BOOL, p, undefined, 'optional flag must be 0 or 1, got ' + present);
  return ${inner}(b, p + 4, depth);
}`;
    }
    const fixedArray = /^(.*)\[(\d+)\]$/.exec(expression);
    if (fixedArray !== null) {
      const [, elementText = '', countText = ''] = fixedArray;
      const count = Number(countText);
      if (elementText === 'opaque') {
        const padded = (count + 3) & ~3;
        const padding = padded === count ? '' : `checkPadding(b, p + ${count}, p + ${padded});`;
        return `function ${name}(b, p) {
  if (p + ${padded} > b.length) truncated(b, p, ${padded});
  ${padding}
  return p + ${padded};
}`;
      }
      const element = this.nameOf(elementText);
      return `function ${name}(b, p, depth) {
  let i = 0;
  try {
    for (; i < ${count}; i++) p = ${element}(b, p, depth);
    return p;
  } catch (error) {
    return annotate(error, '[' + i + ']');
  }
}`;
    }
    const variable = /^(.*)<(\d*)>$/.exec(expression);
    if (variable !== null) {
      const [, elementText = '', boundText = ''] = variable;
      const max = boundOf(boundText);
      if (elementText === 'opaque' || elementText === 'string') {
        return `function ${name}(b, p) {
  const length = readU32(b, p);
  if (length > ${max}) fail(TOO_LONG, p, undefined, 'length ' + length + ' exceeds the XDR bound ${max}');
  const padded = (length + 3) & ~3;
  if (p + 4 + padded > b.length) truncated(b, p + 4, padded);
  if (padded !== length) checkPadding(b, p + 4 + length, p + 4 + padded);
  return p + 4 + padded;
}`;
      }
      const element = this.nameOf(elementText);
      const minElementSize = minSizeOf(elementText);
      return `function ${name}(b, p, depth) {
  const count = readU32(b, p);
  if (count > ${max}) fail(TOO_LONG, p, undefined, count + ' elements exceed the XDR bound ${max}');
  if (count * ${minElementSize} > b.length - p - 4) {
    fail(TRUNCATED, p, undefined, count + ' elements of at least ${minElementSize} bytes cannot fit');
  }
  p += 4;
  let i = 0;
  try {
    for (; i < count; i++) p = ${element}(b, p, depth);
    return p;
  } catch (error) {
    return annotate(error, '[' + i + ']');
  }
}`;
    }
    switch (expression) {
      case 'i32':
      case 'u32':
        return fixedSkip(name, 4);
      case 'i64':
      case 'u64':
        return fixedSkip(name, 8);
      case 'bool':
        return `function ${name}(b, p) {
  const flag = readU32(b, p);
  if (flag > 1) fail(BAD_BOOL, p, undefined, 'expected 0 or 1, got ' + flag);
  return p + 4;
}`;
      case 'void':
        return `function ${name}(b, p) {
  return p;
}`;
    }
    if (Object.hasOwn(externalSkips, expression)) {
      return `const ${name} = externalSkips[${JSON.stringify(expression)}];`;
    }
    const definition = LCM_SCHEMA[expression];
    if (definition === undefined) throw new Error(`xdr-schema has no type ${expression}`);
    const [kind = '', ...parts] = definition.split(' ');
    switch (kind) {
      case 'struct':
        return this.emitStruct(name, parts);
      case 'union':
        return this.emitUnion(name, parts.slice(1));
      case 'enum':
        return `function ${name}(b, p) {
  const value = readI32(b, p);
  switch (value) {
    ${parts.map((value) => `case ${Number(value)}:`).join(' ')}
      return p + 4;
  }
  return fail(BAD_DISCRIMINANT, p, undefined, ${JSON.stringify(`${expression} has no value `)} + value);
}`;
      default:
        // An alias: a call of the aliased expression's function (a declaration, so that no order of the program's
        // statements can read an alias before it is set; V8 inlines it).
        return `function ${name}(b, p, depth) {
  return ${this.nameOf(definition)}(b, p, depth);
}`;
    }
  }

  /**
   * A struct: its fields in order, each a call of its skip, except that a run of consecutive plain fixed-size fields
   * (ints, 4-aligned fixed opaque) is one bounds check; only when the run does not fit are its fields checked one by
   * one, to report the truncation with the exact field and offset. `f` is the field an error is annotated with.
   */
  private emitStruct(name: string, fieldTexts: string[]): string {
    const names = fieldTexts.map((text) => text.slice(0, text.indexOf(':')));
    const expressions = fieldTexts.map((text) => text.slice(text.indexOf(':') + 1));
    const lines: string[] = [];
    for (let i = 0; i < expressions.length; ) {
      // `!` is safe: i < expressions.length, and end stays within it
      let size = plainFixedSize(expressions[i]!);
      if (size === 0) {
        lines.push(`f = ${i}; p = ${this.nameOf(expressions[i]!)}(b, p, depth + 1);`);
        i++;
        continue;
      }
      let end = i + 1;
      while (end < expressions.length && plainFixedSize(expressions[end]!) > 0)
        size += plainFixedSize(expressions[end++]!);
      const oneByOne: string[] = [];
      for (let field = i; field < end; field++) {
        const fieldSize = plainFixedSize(expressions[field]!);
        oneByOne.push(
          `f = ${field}; if (p + ${fieldSize} > b.length) truncated(b, p, ${fieldSize}); p += ${fieldSize};`,
        );
      }
      lines.push(`if (p + ${size} <= b.length) p += ${size};\n    else { ${oneByOne.join(' ')} }`);
      i = end;
    }
    return `const ${name}_fields = ${JSON.stringify(names)};
function ${name}(b, p, depth) {
  ${DEPTH_CHECK}
  let f = 0;
  try {
    ${lines.join('\n    ')}
    return p;
  } catch (error) {
    return annotate(error, ${name}_fields[f]);
  }
}`;
  }

  /** A union: a switch over the int32 discriminant; an error inside an arm is annotated with the arm's name. */
  private emitUnion(name: string, armTexts: string[]): string {
    const cases: string[] = [];
    let fallback = `return fail(BAD_DISCRIMINANT, p, undefined, 'unknown discriminant ' + discriminant);`;
    for (const text of armTexts) {
      const equals = text.indexOf('=');
      const labels = text.slice(0, equals).split(',');
      const body = text.slice(equals + 1);
      const colon = body.indexOf(':');
      const armCode =
        colon < 0
          ? 'return p + 4;'
          : `try {
        return ${this.nameOf(body.slice(colon + 1))}(b, p + 4, depth + 1);
      } catch (error) {
        return annotate(error, ${JSON.stringify(body.slice(0, colon))});
      }`;
      const own = labels.filter((label) => label !== 'default').map((label) => `case ${Number(label)}:`);
      if (labels.includes('default')) fallback = armCode;
      if (own.length > 0) cases.push(`${own.join(' ')} {\n      ${armCode}\n    }`);
    }
    return `function ${name}(b, p, depth) {
  ${DEPTH_CHECK}
  const discriminant = readI32(b, p);
  switch (discriminant) {
    ${cases.join('\n    ')}
  }
  ${fallback}
}`;
  }
}

/** The skip of a fixed-size value with nothing to check but the bounds. */
function fixedSkip(name: string, size: number): string {
  return `function ${name}(b, p) {
  if (p + ${size} > b.length) truncated(b, p, ${size});
  return p + ${size};
}`;
}

/** Every schema type and every type expression in the schema, compiled on first use. */
let schemaSkips: Map<string, Skip> | null = null;
/** Expressions that are not in the schema (top-level requests such as `SCPHistoryEntry<>`), each compiled once. */
const expressionSkips = new Map<string, Skip>();

function schemaTable(): Map<string, Skip> {
  if (schemaSkips === null) {
    const program = new SkipProgram(null);
    for (const name of Object.keys(LCM_SCHEMA)) program.nameOf(name);
    schemaSkips = program.compile();
  }
  return schemaSkips;
}

/** The skip function of a type expression over schema names (`DiagnosticEvent<>`, `@LedgerKey`), compiled once. */
export function skipperFor(expression: string): Skip {
  const table = schemaTable();
  let skip = table.get(expression) ?? expressionSkips.get(expression);
  if (skip === undefined) {
    const program = new SkipProgram(table);
    program.nameOf(expression);
    // `!`: the program holds the expression it was built for
    skip = program.compile().get(expression)!;
    expressionSkips.set(expression, skip);
  }
  return skip;
}

/** The skip function of a named schema type. */
export function skipperOf(name: string): Skip {
  if (LCM_SCHEMA[name] === undefined) throw new Error(`xdr-schema has no type ${name}`);
  return skipperFor(name);
}

function boundOf(text: string): number {
  return text === '' ? 0xffffffff : Number(text);
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

const minSizes = new Map<string, number>();

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
