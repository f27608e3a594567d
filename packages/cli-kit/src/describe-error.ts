// The one line a tool prints for a failure: what went wrong and where, in words a user can act on. A package's
// StrataError keeps its code, file and offset (a bad argument says only its detail, which names the option); a
// file-system error is said as libuv words it ("permission denied"), never as an errno code or a syscall; nothing
// is ever a stack trace or the trace's paths into the tool's own files.
import { describeValue, StrataError } from '@strata/base';

/** The code every Strata package uses for a bad argument or option (each package's const object holds it). */
const INVALID_ARGUMENT = 'INVALID_ARGUMENT';

/** A stack frame inside a message (some errors embed one): ignored with everything after it. */
const STACK_FRAME = /\n\s*at .*/s;

/**
 * One line for any thrown value. A StrataError is its message (`CODE in FILE at offset N: detail`), or for
 * INVALID_ARGUMENT its detail alone; a file-system cause is added in words, `(no such file or directory)`. An
 * errno error of its own is `path: words`. Any other Error is its message (its name when the message is empty);
 * any other value is described (`describeValue`). Line breaks are folded into spaces; never throws.
 */
export function describeError(error: unknown): string {
  let text: string;
  if (error instanceof StrataError) {
    text = error.code === INVALID_ARGUMENT ? error.detail : error.message;
    const cause = systemErrorText(error.cause);
    if (cause !== undefined) text += ` (${cause})`;
  } else if (systemErrorText(error) !== undefined) {
    const path = (error as NodeJS.ErrnoException).path;
    const system = systemErrorText(error) ?? '';
    text = typeof path === 'string' ? `${path}: ${system}` : system;
  } else if (error instanceof Error) {
    text = error.message === '' ? error.name : error.message;
  } else {
    text = typeof error === 'string' ? error : describeValue(error);
  }
  return oneLine(text);
}

/** `text` up to any embedded stack frame, its line breaks folded into single spaces. */
function oneLine(text: string): string {
  return text
    .replace(STACK_FRAME, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

/**
 * libuv's description of a system error ("no such file or directory") for an Error with a string `code` and
 * `syscall` (what node:fs throws), or undefined for any other value.
 */
export function systemErrorText(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string' || typeof syscall !== 'string') return undefined;
  // Node words them "ECODE: description, syscall 'path'" (and sometimes "-> 'dest'"): keep the description.
  const match = /^[A-Z0-9_]+: (.+?), [a-z_]+\b/.exec(error.message);
  return match?.[1] ?? code;
}
