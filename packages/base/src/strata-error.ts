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
