// The one shape every Strata package error has. Each package keeps its own class (its codes stay its own); each
// class extends StrataError, so callers can catch any Strata error, read `code`, and find where it happened.

/** Where a problem was found, and what caused it. Every member is optional. */
export interface ErrorContext {
  /** The file being read or written. */
  readonly file?: string;
  /** Byte offset in `file`, or in the buffer the caller passed when there is no file. */
  readonly offset?: number;
  /** The field at fault: an XDR path, an option name, a request path. */
  readonly field?: string;
  /** The error this one wraps (an errno error, a decoder's error). */
  readonly cause?: unknown;
}

/**
 * Base class of every package's error. `code` comes from the package's const object of codes (stable strings, part
 * of the public contract); `detail` is the human sentence; the context fields say where. All fields are read-only
 * and the message is built once, in the constructor, as `CODE in FILE at offset N field F: detail`.
 */
export abstract class StrataError<Code extends string = string> extends Error {
  readonly code: Code;
  readonly detail: string;
  readonly file: string | undefined;
  readonly offset: number | undefined;
  readonly field: string | undefined;

  /**
   * `message` overrides the built message, for errors whose text is fixed elsewhere (a JSON-RPC error returned
   * verbatim); `where` adds package-specific location parts (`record 7`) after the standard ones.
   */
  constructor(
    code: Code,
    detail: string,
    context: ErrorContext = {},
    options: { readonly message?: string; readonly where?: readonly string[] } = {},
  ) {
    super(
      options.message ?? formatErrorMessage(code, detail, context, options.where),
      context.cause === undefined ? undefined : { cause: context.cause },
    );
    this.code = code;
    this.detail = detail;
    this.file = context.file;
    this.offset = context.offset;
    this.field = context.field;
  }
}

/** `CODE in FILE at offset N field F <where...>: detail`, leaving out what is not known. */
export function formatErrorMessage(
  code: string,
  detail: string,
  context: ErrorContext,
  where: readonly string[] = [],
): string {
  const parts: string[] = [code];
  if (context.file !== undefined) parts.push(`in ${context.file}`);
  if (context.offset !== undefined) parts.push(`at offset ${context.offset}`);
  if (context.field !== undefined) parts.push(`field ${context.field}`);
  parts.push(...where);
  return `${parts.join(' ')}: ${detail}`;
}

/** True for an errno error from node:fs (`code` like 'ENOENT'); lets packages map file-system failures to IO. */
export function isErrnoError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string';
}

/**
 * A short description of any value for an error message. Never throws: `String()` of a null-prototype object and
 * a template literal holding a Symbol both throw TypeError, so caller values are never formatted directly. Long
 * strings are described by their length, so a 16 MiB argument does not become a 16 MiB message.
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value.length > 64 ? `a string of ${value.length} characters` : JSON.stringify(value);
    case 'bigint':
      return `${value}n`;
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
    case 'object':
      if (value === null) return 'null';
      if (Array.isArray(value)) return `an array of ${value.length}`;
      return Object.prototype.toString
        .call(value)
        .slice(8, -1)
        .replace(/^Object$/, 'an object');
    default:
      return String(value); // number, boolean, undefined
  }
}
