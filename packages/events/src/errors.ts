// The one error class of @strata/events. Bad input (corrupt payloads, malformed ids, invalid getEvents requests,
// forged cursors) throws EventsError with a stable `code`; broken invariants inside this package are `assert`s.

/**
 * Stable error codes. The strings are part of the public contract: new codes may be added, existing ones keep
 * their meaning.
 */
export const EventsErrorCode = {
  /** A stored payload, LedgerOffsets blob or cursor body names a format version this build does not read. */
  UNKNOWN_VERSION: 'UNKNOWN_VERSION',
  /** Bytes end before a field they announce. */
  TRUNCATED: 'TRUNCATED',
  /** A length field disagrees with the bytes that follow (trailing bytes, or a count that does not add up). */
  LENGTH_MISMATCH: 'LENGTH_MISMATCH',
  /** The embedded ContractEvent XDR is malformed (bad discriminant, bad ScVal, body version other than V0). */
  BAD_XDR: 'BAD_XDR',
  /** An event id / TOID string or number outside the format (`%019d-%010d`, field ranges). */
  BAD_EVENT_ID: 'BAD_EVENT_ID',
  /** A v2 cursor token that does not decode to a well-formed envelope (query/event_cursor.go ErrCursorMalformed). */
  MALFORMED_CURSOR: 'MALFORMED_CURSOR',
  /** A caller's argument is out of range or of the wrong type (ledger outside a chunk, window past the event count,
   * unsorted ids, a number where a Uint8Array belongs). */
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  /** A caller-supplied string or list is longer than its documented bound (a v1 cursor over V1_MAX_CURSOR_LENGTH
   * characters, a topic segment over MAX_TOPIC_BASE64_LENGTH); refused before any of it is parsed or decoded. */
  TOO_LONG: 'TOO_LONG',
  /** A getEvents / getEventsV2 request the server must refuse; `rpc` holds the JSON-RPC error to return. */
  RPC_ERROR: 'RPC_ERROR',
} as const;
export type EventsErrorCode = (typeof EventsErrorCode)[keyof typeof EventsErrorCode];

/** JSON-RPC error codes the request validators produce (jrpc2's values, as stellar-rpc returns them). */
export const JSON_RPC_CODE = {
  INVALID_REQUEST: -32600,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
} as const;

/** The JSON-RPC `error` object a server returns for a refused request: `message` is the exact upstream text. */
export interface JsonRpcErrorBody {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** Offset reported when an error is not about a byte position. */
export const NO_OFFSET = -1;

export class EventsError extends Error {
  override readonly name = 'EventsError';
  readonly code: EventsErrorCode;
  /** What is wrong, without the code, field and offset the message adds (for RPC_ERROR: the message itself). */
  readonly detail: string;
  /** Byte offset in the input where the problem was found, or NO_OFFSET. */
  readonly offset: number;
  /** The field (payload field, request path) at fault, when one is known. */
  readonly field: string | undefined;
  /** For RPC_ERROR: the JSON-RPC error object to return verbatim. */
  readonly rpc: JsonRpcErrorBody | undefined;

  constructor(
    code: EventsErrorCode,
    detail: string,
    options: { offset?: number; field?: string; rpc?: JsonRpcErrorBody; cause?: unknown } = {},
  ) {
    // RPC errors carry the server's exact message (clients match on it), so nothing is prepended.
    const offset = options.offset ?? NO_OFFSET;
    const where = offset === NO_OFFSET ? '' : ` at offset ${offset}`;
    const field = options.field === undefined ? '' : ` in ${options.field}`;
    const message = code === EventsErrorCode.RPC_ERROR ? detail : `${code}${field}${where}: ${detail}`;
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.detail = detail;
    this.offset = offset;
    this.field = options.field;
    this.rpc = options.rpc;
  }
}

/** Throws an RPC_ERROR carrying `body` (the message of the Error is body.message); `cause` is the refusal behind it. */
export function rpcError(body: JsonRpcErrorBody, cause?: unknown): never {
  throw new EventsError(
    EventsErrorCode.RPC_ERROR,
    body.message,
    cause === undefined ? { rpc: body } : { rpc: body, cause },
  );
}

/** Bugs, not bad input: an invariant this package maintains broke. */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`@strata/events invariant: ${message}`);
}
