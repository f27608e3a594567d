// The one error class of @strata/events. Bad input (corrupt payloads, malformed ids, invalid getEvents requests,
// forged cursors) throws EventsError with a stable `code`; broken invariants inside this package are `assert`s
// (@strata/base).
import { type ErrorContext, StrataError } from '@strata/base';

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

/**
 * Bad input to this package. The shape (read-only `code`, `detail`, `offset` — the byte offset in the input where the
 * problem was found, or undefined when the error is not about bytes —, `field`, `cause`, and the message
 * `CODE at offset N field F: detail`) is @strata/base's StrataError; `rpc` is this package's own.
 */
export class EventsError extends StrataError<EventsErrorCode> {
  override readonly name = 'EventsError';
  /** For RPC_ERROR: the JSON-RPC error object to return verbatim. */
  readonly rpc: JsonRpcErrorBody | undefined;

  /** For RPC_ERROR, `detail` is the JSON-RPC message and is the whole message too (clients match on it). */
  constructor(code: EventsErrorCode, detail: string, context: ErrorContext & { readonly rpc?: JsonRpcErrorBody } = {}) {
    const { rpc, ...where } = context;
    super(code, detail, where, code === EventsErrorCode.RPC_ERROR ? { message: detail } : {});
    this.rpc = rpc;
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
