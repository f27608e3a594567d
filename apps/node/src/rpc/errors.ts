// The JSON-RPC layer's error class. Every refusal the server sends is a JSON-RPC error body (code, message, data?)
// built here or taken verbatim from @strata/events' validators; RpcError carries one, and INVALID_CONFIG reports a
// bad configuration key at startup. Messages never hold stack traces or file paths: the server logs the cause.
import { StrataError } from '@strata/base';

/** JSON-RPC 2.0 error codes the server answers with (jrpc2's values, as stellar-rpc returns them). */
export const RPC_CODE = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** stellar-rpc's ErrRequestExceededProcessingLimitThreshold: the per-request execution timeout. */
  TIMEOUT: -32001,
  /** jrpc2's code.SystemError, what stellar-rpc's backlog limiter's plain error becomes: the queue is full. */
  BUSY: -32098,
} as const;

/** A JSON-RPC error object as sent on the wire. */
export interface RpcErrorBody {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** Stable error codes. */
export const RpcErrorCode = {
  /** A request the server refuses; `rpc` is the JSON-RPC error to send. */
  RPC_ERROR: 'RPC_ERROR',
  /** A configuration key (flag, file) with a bad value (`field` names it). */
  INVALID_CONFIG: 'INVALID_CONFIG',
} as const;
export type RpcErrorCode = (typeof RpcErrorCode)[keyof typeof RpcErrorCode];

export class RpcError extends StrataError<RpcErrorCode> {
  override readonly name = 'RpcError';
  /** The JSON-RPC error body (RPC_ERROR only). */
  readonly rpc: RpcErrorBody | undefined;

  constructor(
    code: RpcErrorCode,
    detail: string,
    context: {
      readonly field?: string;
      readonly file?: string;
      readonly cause?: unknown;
      readonly rpc?: RpcErrorBody;
    } = {},
  ) {
    const { rpc, ...where } = context;
    super(code, detail, where, rpc === undefined ? {} : { message: rpc.message });
    this.rpc = rpc;
  }
}

/** Throws the JSON-RPC error `body`. */
export function rpcFail(code: number, message: string, data?: unknown): never {
  const body: RpcErrorBody = data === undefined ? { code, message } : { code, message, data };
  throw new RpcError('RPC_ERROR', message, { rpc: body });
}

/** Throws INVALID_CONFIG for `field`. */
export function badConfig(field: string, detail: string, file?: string): never {
  throw new RpcError('INVALID_CONFIG', detail, file === undefined ? { field } : { field, file });
}
