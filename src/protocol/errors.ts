// The one error catalogue: every JSON-RPC error the gateway answers, with its spec name and HTTP status; and the rule
// that names the operator's errors (admin API, CLI --json) from the stable `ERR_*` code their error classes carry.
import { stateNameV1 } from './states-v1.js';

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
  /** Not a JSON-RPC condition of the spec: the body did not arrive whole in time. Travels as -32600 with HTTP 408. */
  REQUEST_TIMEOUT: { code: -32600, http: 408, message: 'Request timeout: the request body did not arrive in time' },
  /** Not a JSON-RPC condition of the spec: the Host header is not a valid host[:port]. Travels as -32600 with HTTP 400. */
  BAD_HOST: { code: -32600, http: 400, message: 'Bad request: the Host header is not a valid host[:port]' },
  /**
   * Not a JSON-RPC condition of the spec: a header read as one value (Authorization, A2A-Version, Content-Length,
   * ...) came on more than one line. Travels as -32600 with HTTP 400, and the connection is closed.
   */
  REPEATED_HEADER: { code: -32600, http: 400, message: 'Bad request: a header read as one value was given more than once' },
  /**
   * Not a JSON-RPC condition of the spec: the body came with a Content-Encoding (gzip, br, ...), which the gateway
   * does not decode. Travels as -32600 with HTTP 415.
   */
  UNSUPPORTED_ENCODING: { code: -32600, http: 415, message: 'Unsupported media type: the request body must not be content-encoded' },
  /** A2A 1.0's: the A2A-Version header names a version the gateway does not speak (any dialect gets 1.0's code). */
  VERSION_NOT_SUPPORTED: { code: -32009, http: 200, message: 'Version not supported' },
  /**
   * A2A 1.0's UnsupportedOperationError (-32004 for 1.0 callers): a message to a terminal task, a SubscribeToTask of
   * one. The revisions read it as invalid params: the spec's -32004 is the rate limit.
   */
  UNSUPPORTED_OPERATION: { code: -32602, http: 200, message: 'Unsupported operation' },
} as const;

export type ErrorReason = keyof typeof ERRORS;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** A2A 1.0's error object: its data is a list of google.rpc.ErrorInfo, and a BadRequest for invalid params. */
export interface JsonRpcErrorObjectV1 {
  code: number;
  message: string;
  data: [ErrorInfoV1, ...BadRequestV1[]];
}

/** The `google.rpc.BadRequest` 1.0 attaches to a validation error: each failing field of the request. */
export interface BadRequestV1 {
  '@type': 'type.googleapis.com/google.rpc.BadRequest';
  fieldViolations: { field: string; description: string }[];
}

/**
 * A path the gateway reports (`params.message.parts.0.text`) as a FieldViolation's field: the path in the request's
 * params (1.0's example is `message.parts`), a list index as `[n]` (google.rpc's form). Undefined for what is no
 * field of the params (a header such as Last-Event-ID, or the params as a whole).
 */
function violationField(path: unknown): string | undefined {
  if (typeof path !== 'string' || !path.startsWith('params.')) return undefined;
  return path
    .slice('params.'.length)
    .split('.')
    .reduce((out, seg) => (/^\d+$/.test(seg) && out !== '' ? `${out}[${seg}]` : out === '' ? seg : `${out}.${seg}`), '');
}

/** The BadRequest of an INVALID_PARAMS: every issue the schema found (`data.issues`), else the one `data.path` names. */
function badRequestOf(message: string, data: Record<string, unknown> | undefined): BadRequestV1 | undefined {
  const issues = Array.isArray(data?.issues) ? (data.issues as { path?: unknown; message?: unknown }[]) : [{ path: data?.path, message }];
  const fieldViolations = issues.flatMap((i) => {
    const field = violationField(i.path);
    return field === undefined ? [] : [{ field, description: typeof i.message === 'string' ? i.message : message }];
  });
  return fieldViolations.length > 0 ? { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations } : undefined;
}

/** The `google.rpc.ErrorInfo` an A2A 1.0 error carries in `data` (metadata values are strings). */
export interface ErrorInfoV1 {
  '@type': 'type.googleapis.com/google.rpc.ErrorInfo';
  reason: string;
  domain: string;
  metadata?: Record<string, string>;
}

/**
 * How an error reads to an A2A 1.0 caller. 1.0 gives -32001..-32009 meanings of its own, and the gateway's codes for
 * unauthorized, rate limit, agent not found and scope insufficient (-32003..-32006) would there read as push not
 * supported, unsupported operation, content type and invalid agent response: those four move to -32050..-32053, outside
 * 1.0's range, keeping their HTTP statuses. Unsupported operation takes 1.0's own -32004. Everything else keeps its code.
 */
const V1_CODES: Partial<Record<ErrorReason, number>> = {
  UNAUTHORIZED: -32050,
  SCOPE_INSUFFICIENT: -32051,
  RATE_LIMITED: -32052,
  AGENT_NOT_FOUND: -32053,
  UNSUPPORTED_OPERATION: -32004,
};

/** 1.0's ErrorInfo domain for the conditions 1.0 names, the gateway's own for the rest. */
const V1_DOMAIN: Partial<Record<ErrorReason, string>> = {
  PARSE_ERROR: 'a2a-protocol.org',
  INVALID_REQUEST: 'a2a-protocol.org',
  METHOD_NOT_FOUND: 'a2a-protocol.org',
  INVALID_PARAMS: 'a2a-protocol.org',
  INTERNAL_ERROR: 'a2a-protocol.org',
  TASK_NOT_FOUND: 'a2a-protocol.org',
  TASK_NOT_CANCELABLE: 'a2a-protocol.org',
  VERSION_NOT_SUPPORTED: 'a2a-protocol.org',
  UNSUPPORTED_OPERATION: 'a2a-protocol.org',
};

/** What the revisions call a condition only 1.0 names: the spec's name for the code they answer it with. */
const REVISION_REASON: Partial<Record<ErrorReason, ErrorReason>> = { UNSUPPORTED_OPERATION: 'INVALID_PARAMS' };

/** A failure with the spec's reason; the transport maps it to the wire in one place (`toErrorObject`). */
export class RpcError extends Error {
  readonly reason: ErrorReason;
  readonly data: Record<string, unknown> | undefined;
  /** extra response headers, e.g. Retry-After for RATE_LIMITED */
  readonly headers: Record<string, string> | undefined;
  /** the message as an A2A 1.0 caller reads it, when it differs (it names a task state: `stateMessages`) */
  readonly messageV1: string | undefined;

  constructor(reason: ErrorReason, opts: { message?: string; messageV1?: string; data?: Record<string, unknown>; headers?: Record<string, string> } = {}) {
    // A refusal is an answer, not a fault: its stack is never read, and V8 capturing one cost 6–14 µs on the bench
    // machine, more than a whole tasks/get. The refusals are what a hostile caller makes us build (bad keys, a spent
    // limit, ids that name nothing), so they are built without one.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(opts.message ?? ERRORS[reason].message);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = 'RpcError';
    this.reason = reason;
    this.data = opts.data;
    this.headers = opts.headers;
    this.messageV1 = opts.messageV1;
  }

  get code(): number {
    return ERRORS[this.reason].code;
  }

  get httpStatus(): number {
    return ERRORS[this.reason].http;
  }

  toErrorObject(): JsonRpcErrorObject {
    return { code: this.code, message: this.message, data: { reason: REVISION_REASON[this.reason] ?? this.reason, ...this.data } };
  }

  /** The same error as an A2A 1.0 caller reads it: 1.0's codes, and the details as one ErrorInfo. */
  toErrorObjectV1(): JsonRpcErrorObjectV1 {
    const metadata: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.data ?? {})) metadata[k] = typeof v === 'string' ? v : JSON.stringify(v);
    // a task's state (a refused cancel, a message to a terminal task) in 1.0's enum names, as 1.0's Task carries it
    if (metadata.state !== undefined) metadata.state = stateNameV1(metadata.state);
    const info: ErrorInfoV1 = {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: this.reason,
      domain: V1_DOMAIN[this.reason] ?? 'a2a-gateway',
      ...(Object.keys(metadata).length > 0 && { metadata }),
    };
    // 1.0 (9.5): validation errors SHOULD carry a BadRequest naming the fields; the ErrorInfo stays first
    const badRequest = this.reason === 'INVALID_PARAMS' ? badRequestOf(this.message, this.data) : undefined;
    return { code: V1_CODES[this.reason] ?? this.code, message: this.messageV1 ?? this.message, data: badRequest ? [info, badRequest] : [info] };
  }
}

/**
 * An error message that names task states, in both dialects: `text` is given each state's name as the dialect spells
 * it (`completed` for the revisions, `TASK_STATE_COMPLETED` for 1.0), as the caller's Task and `data.state` spell it.
 */
export function stateMessages(text: (name: (state: string) => string) => string): { message: string; messageV1: string } {
  return { message: text((s) => s), messageV1: text(stateNameV1) };
}

export const isRpcError = (e: unknown): e is RpcError => e instanceof RpcError;

/**
 * The code an operator reads for a failure of the admin modules, the store or the config (the admin API's `error`,
 * the CLI's `--json` `error.code`): the error's own stable `ERR_*` code, lower-cased without the prefix
 * (ERR_CONNECTION_NOT_FOUND: `connection_not_found`), so that one condition has one name on both. Undefined for an
 * error that carries no such code.
 */
export function operatorCode(e: unknown): string | undefined {
  const code = e instanceof Error ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^ERR_[A-Z0-9_]+$/.test(code) ? code.slice(4).toLowerCase() : undefined;
}
