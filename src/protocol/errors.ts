// The one error catalogue: every JSON-RPC error the gateway answers, with its spec name and HTTP status.

export const ERRORS = {
  PARSE_ERROR: { code: -32700, http: 200, message: 'Parse error: request body is not valid JSON' },
  INVALID_REQUEST: { code: -32600, http: 200, message: 'Invalid request' },
  METHOD_NOT_FOUND: { code: -32601, http: 200, message: 'Method not found' },
  INVALID_PARAMS: { code: -32602, http: 200, message: 'Invalid params' },
  INTERNAL_ERROR: { code: -32603, http: 200, message: 'Internal error' },
  TASK_NOT_FOUND: { code: -32001, http: 200, message: 'Task not found' },
  TASK_NOT_CANCELABLE: { code: -32002, http: 200, message: 'Task not cancelable' },
  UNAUTHORIZED: { code: -32003, http: 401, message: 'Unauthorized' },
  RATE_LIMITED: { code: -32004, http: 429, message: 'Rate limit exceeded; back off exponentially' },
  AGENT_NOT_FOUND: { code: -32005, http: 200, message: 'Agent not found' },
  SCOPE_INSUFFICIENT: { code: -32006, http: 403, message: 'Scope insufficient' },
  /** A server-side failure of a kind the caller may retry: the shared store (Redis) cannot be reached now. HTTP 503. */
  STORE_UNAVAILABLE: { code: -32603, http: 503, message: 'Service unavailable: the store cannot be reached; retry shortly' },
  /** Not a JSON-RPC condition of the spec: the body exceeded the size limit. Travels as -32600 with HTTP 413. */
  PAYLOAD_TOO_LARGE: { code: -32600, http: 413, message: 'Request body too large' },
} as const;

export type ErrorReason = keyof typeof ERRORS;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** A failure with the spec's reason; the transport maps it to the wire in one place (`toErrorObject`). */
export class RpcError extends Error {
  readonly reason: ErrorReason;
  readonly data: Record<string, unknown> | undefined;
  /** extra response headers, e.g. Retry-After for RATE_LIMITED */
  readonly headers: Record<string, string> | undefined;

  constructor(reason: ErrorReason, opts: { message?: string; data?: Record<string, unknown>; headers?: Record<string, string> } = {}) {
    super(opts.message ?? ERRORS[reason].message);
    this.name = 'RpcError';
    this.reason = reason;
    this.data = opts.data;
    this.headers = opts.headers;
  }

  get code(): number {
    return ERRORS[this.reason].code;
  }

  get httpStatus(): number {
    return ERRORS[this.reason].http;
  }

  toErrorObject(): JsonRpcErrorObject {
    return { code: this.code, message: this.message, data: { reason: this.reason, ...this.data } };
  }
}

export const isRpcError = (e: unknown): e is RpcError => e instanceof RpcError;
