// JSON-RPC 2.0 envelope: decoding a request body into calls, and building responses. No I/O.
import { RpcError, type JsonRpcErrorObject, type JsonRpcErrorObjectV1 } from './errors.js';
import { findingsOf, pathText, type TextFindings } from './json-text.js';
import { echoed, shownPath } from './one-line.js';

export type RpcId = string | number | null;

/**
 * One call. A2A defines no notifications, and its clients and conformance suite expect an error for a bad call sent
 * without `id`: every call is answered, one without `id` with `id: null`.
 */
export interface RpcCall {
  id: RpcId;
  /** false when the request had no `id` member (a streaming method needs one) */
  hasId: boolean;
  method: string;
  params: unknown;
  /**
   * The path (`params.data.n`) of an integer in the params written past ±(2^53 − 1): JSON.parse rounded it, so the
   * value at that path is not the one sent. The call is refused with -32602 where its params are read (see pipeline).
   */
  unsafeIntegerAt?: string;
}

export type RpcResponse = { jsonrpc: '2.0'; id: RpcId; result: unknown } | { jsonrpc: '2.0'; id: RpcId; error: JsonRpcErrorObject | JsonRpcErrorObjectV1 };

/** One element of a decoded body: a call to run, or an error to answer without running anything. */
export type DecodedEntry = { ok: true; call: RpcCall } | { ok: false; id: RpcId; error: RpcError };

export type DecodedBody =
  | { kind: 'single'; entry: DecodedEntry }
  | { kind: 'batch'; entries: DecodedEntry[] }
  | { kind: 'invalid'; id: RpcId; error: RpcError };

/**
 * The longest string `id` a call may carry, as every id a caller names (task, context, message ids): each answer and
 * every event of a stream repeats it, so a 900 KB id made a resubscribe replaying 900 events write 800 MB, holding
 * other callers' answers back while it was serialized.
 */
export const MAX_RPC_ID_LENGTH = 256;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A numeric id the answer echoes exactly: finite, and an integer only within ±(2^53 − 1). JSON.parse rounds a larger
 * integer to the nearest double (9007199254740993 reads as ...992), so an int64 caller could not match its answer, and
 * two ids of one batch could come back as one.
 */
const echoableNumber = (v: number): boolean => Number.isFinite(v) && (!Number.isInteger(v) || Number.isSafeInteger(v));

/** An id the answer can echo; any other reads as null (JSON has no Infinity: `1e400` parses to it). */
function readableId(v: unknown): RpcId {
  return typeof v === 'string' || (typeof v === 'number' && echoableNumber(v)) ? v : null;
}

/**
 * A key the request names twice in one object (`{"method":"tasks/get","method":"message/send"}`): JSON.parse keeps
 * the last, but a proxy, firewall or log in front of us that keeps the first read another call than the one run.
 * Answered with id null when `id` is the key named twice (which of them would be echoed?).
 */
function twiceNamed(path: readonly (string | number)[], id: RpcId): DecodedEntry {
  const field = shownPath(pathText(path));
  const key = echoed(String(path[path.length - 1]));
  const where = path.length > 1 ? ` in ${shownPath(pathText(path.slice(0, -1)))}` : '';
  return {
    ok: false,
    id: path.length === 1 && path[0] === 'id' ? null : id,
    error: new RpcError('INVALID_REQUEST', {
      message: `Invalid request: the key "${key}" is given twice${where}; each key of an object must be given once`,
      data: { field },
    }),
  };
}

export function decodeEntry(raw: unknown, found: TextFindings = {}): DecodedEntry {
  if (!isPlainObject(raw)) {
    return { ok: false, id: null, error: new RpcError('INVALID_REQUEST', { message: 'Invalid request: a request must be a JSON object' }) };
  }
  const id = readableId(raw.id);
  if (found.duplicateKey) return twiceNamed(found.duplicateKey, id);
  const invalid = (field: string, why: string): DecodedEntry => ({
    ok: false,
    id,
    error: new RpcError('INVALID_REQUEST', { message: `Invalid request: ${field} ${why}`, data: { field } }),
  });
  if (raw.jsonrpc !== '2.0') return invalid('jsonrpc', 'must be "2.0"');
  if ('id' in raw && raw.id !== null && typeof raw.id !== 'string' && typeof raw.id !== 'number') {
    return invalid('id', 'must be a string, a number or null');
  }
  // the answer could not carry it back (JSON.stringify writes null): the caller could not match its answer
  if (typeof raw.id === 'number' && !Number.isFinite(raw.id)) return invalid('id', 'must be a finite number');
  if (typeof raw.id === 'number' && !echoableNumber(raw.id)) {
    return invalid('id', 'must be an integer within ±9007199254740991 (2^53 − 1): a larger one loses digits (send it as a string)');
  }
  if (typeof raw.id === 'string' && raw.id.length > MAX_RPC_ID_LENGTH) {
    // answered with id null: repeating it is what the bound is there to stop
    return {
      ok: false,
      id: null,
      error: new RpcError('INVALID_REQUEST', {
        message: `Invalid request: id is a string of ${raw.id.length} characters, over the limit of ${MAX_RPC_ID_LENGTH}`,
        data: { field: 'id', limit: MAX_RPC_ID_LENGTH },
      }),
    };
  }
  if (typeof raw.method !== 'string' || raw.method.length === 0) return invalid('method', 'must be a non-empty string');
  // params that are not an object (a string, null, an array) are the method's to refuse: -32602, as a2a-js answers
  const unsafe = found.unsafeInteger?.[0] === 'params' ? pathText(found.unsafeInteger) : undefined;
  return {
    ok: true,
    call: { id, hasId: 'id' in raw && raw.id !== null, method: raw.method, params: raw.params, ...(unsafe !== undefined && { unsafeIntegerAt: unsafe }) },
  };
}

/**
 * Decodes a request body. Never throws. A batch longer than `maxBatchSize` is refused whole (nothing of it runs): a
 * small body of many cheap calls would otherwise make an answer hundreds of times its size.
 */
export function decodeBody(body: string, o: { maxBatchSize: number }): DecodedBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { kind: 'invalid', id: null, error: new RpcError('PARSE_ERROR') };
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) {
      return { kind: 'invalid', id: null, error: new RpcError('INVALID_REQUEST', { message: 'Invalid request: empty batch' }) };
    }
    if (parsed.length > o.maxBatchSize) {
      return {
        kind: 'invalid',
        id: null,
        error: new RpcError('INVALID_REQUEST', {
          message: `Invalid request: a batch of ${parsed.length} calls is over the limit of ${o.maxBatchSize}`,
          data: { field: 'batch', size: parsed.length, limit: o.maxBatchSize },
        }),
      };
    }
    const found = findingsOf(body, parsed);
    return { kind: 'batch', entries: parsed.map((raw, i) => decodeEntry(raw, found.get(i))) };
  }
  return { kind: 'single', entry: decodeEntry(parsed, findingsOf(body, parsed).get(-1)) };
}

export const resultResponse = (id: RpcId, result: unknown): RpcResponse => ({ jsonrpc: '2.0', id, result });
/** An error response; `v1`: in A2A 1.0's error shape (its codes, ErrorInfo in data). */
export const errorResponse = (id: RpcId, error: RpcError, o: { v1?: boolean } = {}): RpcResponse => ({
  jsonrpc: '2.0',
  id,
  error: o.v1 ? error.toErrorObjectV1() : error.toErrorObject(),
});
