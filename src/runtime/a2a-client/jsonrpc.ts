// JSON-RPC 2.0 over the client's HTTP: one call answered with one result, or a streaming call answered with SSE events
// (each a JSON-RPC response). Every request body leaves through the sanitizer: no internal field, at any depth.
import { z } from 'zod';
import { MAX_JSON_DEPTH, tooDeepAt } from '../../protocol/json-depth.js';
import type { JsonPath } from '../../protocol/json-text.js';
import { readRemoteJson, unkeptInRemoteJson } from '../../protocol/remote-json.js';
import { cutCodePoints } from '../../protocol/summary.js';
import { toSanitizedJson } from '../sanitizer.js';
import { authorizedExchange, authorizedOpen, unauthorized, type EndpointState, type EndpointStates } from './endpoint.js';
import type { HttpResponse } from './http.js';
import { readBody } from './http.js';
import { withRetryAfter } from './retry-after.js';
import { readSse } from './sse.js';
import { MAX_REMOTE_ERROR, OutboundError } from './types.js';

export interface RpcTarget {
  states: EndpointStates;
  st: EndpointState;
  /** the JSON-RPC endpoint (the card's url) */
  url: string;
  /** the A2A-Version header: shared methods are answered in the dialect it names */
  version: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

const RpcAnswer = z.object({
  id: z.union([z.string(), z.number(), z.null()]).optional(),
  result: z.unknown().optional(),
  error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
});

let nextId = 0;

/** How an id is shown in an error: as JSON (a string and a number differ), cut short (it is the remote's). */
const shownId = (id: unknown): string => (id === undefined ? 'none' : JSON.stringify(id).slice(0, 100));

/**
 * An answer is to our request only when it carries the request's id (an error may carry null or none: the remote could
 * not read our id, and an error brings no task to mistake for ours). Any other id is an answer to someone else's request (a confused proxy, a cache, a hostile remote): its
 * result must not be taken for ours.
 */
function checkId(answered: unknown, requestId: string, o: { method: string; error: boolean }): void {
  if (answered === requestId || (o.error && (answered === null || answered === undefined))) return;
  throw new OutboundError(
    'bad_response',
    `the remote answered request ${shownId(requestId)} (${o.method}) with id ${shownId(answered)}: the answer is not to our request`,
  );
}

const statusError = (method: string, status: number) =>
  new OutboundError(
    'bad_response',
    `the remote answered ${method} with HTTP ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`,
    {
      httpStatus: status,
    },
  );

/**
 * How deep an answer may nest: the data of a part nests as accepted params may (MAX_JSON_DEPTH), inside the envelope
 * around it (answer, result, 1.0's task or statusUpdate, status, message or artifacts, artifact, parts, part). Deeper
 * data, stored, overflowed the store's encoder: the caller's send got -32603 `store_write_failed` and lost its task.
 */
export const MAX_ANSWER_DEPTH = MAX_JSON_DEPTH + 8;

/**
 * Whether `path` is outside what the client reads of an answer of kind `read`: its `id`, and its `result` or its
 * `error`. An error's `data` is never read (not shown, stored or passed on: the caller gets its code and message), so
 * what it holds cannot reach anyone changed, and a remote's error stands whatever its data holds.
 */
const unread =
  (read: 'result' | 'error') =>
  (path: JsonPath): boolean =>
    !(path[0] === 'id' || (path[0] === read && !(read === 'error' && path[1] === 'data')));

/**
 * An answer holding a key named twice, or an integer written past ±(2^53 − 1), where the client reads it is refused
 * (bad_response naming the path), as a caller's params are: JSON.parse keeps a repeated key's last value and reads
 * such an integer as a double with other digits, which our caller would be answered (an error's code is quoted in
 * the failed task's message and handed to `ctx.call` as `remoteCode`) and the result store would keep as the remote's
 * data. Keeping it exactly (as a string) would change its type as silently. A non-2xx status goes along, as a bare
 * one's does (a 503 stays "not now" to a poll).
 */
function judgeText(text: string, json: unknown, o: { method: string; read: 'result' | 'error'; status: number }): void {
  const words = unkeptInRemoteJson(text, json, unread(o.read));
  if (words === undefined) return;
  throw new OutboundError('bad_response', `the remote's answer to ${o.method} ${words}`, {
    ...((o.status < 200 || o.status >= 300) && { httpStatus: o.status }),
  });
}

/**
 * The result of one JSON-RPC response (`json`, parsed from `text`) to the request of id `requestId`; a JSON-RPC
 * error is a `remote_error` with its code, and with the HTTP status when that is not 2xx: a JSON-RPC error sent with
 * 429 or 503 (another gateway's rate limit or store outage) says "not now" as a bare 429 or 503 does, so a poll is
 * made again (wait.ts, saidNotNow).
 */
function resultOf(text: string, json: unknown, requestId: string, method: string, status: number): unknown {
  const deep = tooDeepAt(json, { limit: MAX_ANSWER_DEPTH, root: 'answer' });
  if (deep !== undefined)
    throw new OutboundError('bad_response', `the remote's answer to ${method} nests deeper than ${MAX_ANSWER_DEPTH} levels (at ${deep.slice(0, 200)})`);
  const r = RpcAnswer.safeParse(json);
  if (r.success && r.data.error) {
    checkId(r.data.id, requestId, { method, error: true });
    judgeText(text, json, { method, read: 'error', status });
    const e = r.data.error;
    throw new OutboundError('remote_error', `the remote answered ${method} with error ${e.code}: ${cutCodePoints(e.message, MAX_REMOTE_ERROR)}`, {
      remoteCode: e.code,
      ...((status < 200 || status >= 300) && { httpStatus: status }),
    });
  }
  if (status < 200 || status >= 300) throw statusError(method, status);
  if (!r.success || !('result' in (json as object)) || r.data.result === undefined) {
    throw new OutboundError('bad_response', `the remote's answer to ${method} is not a JSON-RPC response with a result`);
  }
  checkId(r.data.id, requestId, { method, error: false });
  judgeText(text, json, { method, read: 'result', status });
  return r.data.result;
}

/** An answer's JSON as read (`value`) and, when a lone surrogate was read as U+FFFD, as sent (readRemoteJson). */
type ReadJson = ReturnType<typeof readRemoteJson>;

/**
 * The result a JSON-RPC call brought: as read, and (only when a lone surrogate in it was read as U+FFFD) as sent, so
 * that the ids the client takes can be checked to be the remote's own (a2a-client/belongs.ts, `keptIds`).
 */
export interface RpcResult {
  result: unknown;
  asSent?: unknown;
}

/** The result of `json` (resultOf, read from `text`), with the result as sent beside it when they differ. */
function rpcResultOf(text: string, json: ReadJson, requestId: string, method: string, status: number): RpcResult {
  const result = resultOf(text, json.value, requestId, method, status);
  if (json.asSent === undefined) return { result };
  const asSent = typeof json.asSent === 'object' && json.asSent !== null ? (json.asSent as { result?: unknown }).result : undefined;
  return { result, ...(asSent !== undefined && { asSent }) };
}

function parseJson(text: string, method: string, status: number): ReadJson {
  try {
    return readRemoteJson(text);
  } catch {
    if (status < 200 || status >= 300) throw statusError(method, status);
    throw new OutboundError('bad_response', `the remote's answer to ${method} is not JSON`);
  }
}

/** The POST of one JSON-RPC call of id `id` to the target, answered as `accept` (a plain answer or an event stream). */
const post = (t: RpcTarget, o: { id: string; method: string; params: Record<string, unknown>; accept: string }) => ({
  url: t.url,
  method: 'POST' as const,
  headers: { accept: o.accept, 'a2a-version': t.version },
  body: toSanitizedJson({ jsonrpc: '2.0', id: o.id, method: o.method, params: o.params }),
  timeoutMs: t.timeoutMs,
  ...(t.signal && { signal: t.signal }),
});

export async function rpcCall(t: RpcTarget, method: string, params: Record<string, unknown>): Promise<RpcResult> {
  const id = `a2a-client-${++nextId}`;
  const r = await authorizedExchange(t.states, t.st, post(t, { id, method, params, accept: 'application/json' }));
  if (r.status === 401 || r.status === 403) throw unauthorized(r.status, t.url);
  try {
    const text = r.body.toString('utf8');
    return rpcResultOf(text, parseJson(text, method, r.status), id, method, r.status);
  } catch (e) {
    throw withRetryAfter(e, r.headers);
  }
}

const isEventStream = (r: HttpResponse) =>
  String(r.headers['content-type'] ?? '')
    .toLowerCase()
    .startsWith('text/event-stream');

/** One result of a streaming call, with the size of the event (or answer) that brought it. */
export interface StreamedResult extends RpcResult {
  bytes: number;
}

/** The results a streaming call answers, one per event; a remote that answers with plain JSON yields its one result. */
export async function* rpcStream(t: RpcTarget, method: string, params: Record<string, unknown>): AsyncGenerator<StreamedResult> {
  const id = `a2a-client-${++nextId}`;
  const r = await authorizedOpen(t.states, t.st, post(t, { id, method, params, accept: 'text/event-stream' }));
  try {
    if (r.status === 401 || r.status === 403) throw unauthorized(r.status, t.url);
    const max = t.states.maxBytes;
    if (!isEventStream(r) || r.status < 200 || r.status >= 300) {
      const body = await readBody(r, max);
      const text = body.toString('utf8');
      yield { ...rpcResultOf(text, parseJson(text, method, r.status), id, method, r.status), bytes: body.length };
      return;
    }
    for await (const ev of readSse(r.res, max)) {
      let json: ReadJson;
      try {
        json = readRemoteJson(ev.data);
      } catch {
        throw new OutboundError('bad_response', `an event of the remote's ${method} stream is not JSON`);
      }
      // bytes, as the bound the fold's weight is held to (maxResponseBytes) counts them
      yield { ...rpcResultOf(ev.data, json, id, method, r.status), bytes: Buffer.byteLength(ev.data, 'utf8') };
    }
  } catch (e) {
    if (e instanceof OutboundError) throw e;
    throw new OutboundError('unreachable', `the remote's ${method} stream broke off (${e instanceof Error ? e.message : String(e)})`, { cause: e });
  } finally {
    // the caller may stop at the final event while the remote keeps the stream open
    if (!r.res.complete) r.res.destroy();
  }
}
