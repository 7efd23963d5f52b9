// The gateway core behind the transport: decodes JSON-RPC bodies, runs each call through the pipeline, sanitizes at the exit.
import { decodeBody, errorResponse, resultResponse, type DecodedEntry, type RpcResponse } from '../protocol/envelope.js';
import { ERRORS, RpcError } from '../protocol/errors.js';
import { StreamResult } from './context.js';
import { toSanitizedJson } from '../runtime/sanitizer.js';
import { RawJson } from '../protocol/raw-json.js';
import { wideEncodingOf } from '../protocol/body-encoding.js';
import type { AdminApi, GatewayApi, HttpReply, JsonReply, RpcHttpRequest, CardRequest, TunnelApi } from './api.js';
import { agentCard, isPublic, serviceCard } from './card.js';
import { runCall, type PipelineDeps } from './pipeline.js';
import { methodRow } from './methods/table.js';
import { errorsInV1, versionAnswersV1 } from '../protocol/codec.js';
import { noMetrics } from '../runtime/metrics/metrics.js';
import { meteredStream, onStreamEnd, outcomeOf, requestIdOf } from './call-meter.js';
import { StreamSlots } from './stream-slots.js';
import { batchHeaders } from './batch-headers.js';

export interface GatewayOptions extends PipelineDeps {
  maxBodyBytes: number;
  /** a longer batch is refused whole with -32600 */
  maxBatchSize: number;
  /** SSE streams one key may hold open on this instance at once (streaming.maxStreamsPerKey) */
  maxStreamsPerKey: number;
  /** overrides the base URL seen in requests (behind a proxy) */
  publicUrl?: string;
  ready: () => Promise<{ ok: boolean; detail?: string }>;
  /** the relay tunnel endpoint */
  tunnel?: TunnelApi;
  /** the dashboard and its admin API */
  admin?: AdminApi;
}

interface Answer {
  stream?: StreamResult;
  /** frees the key's stream slot `stream` holds */
  release?: () => void;
  response: RpcResponse;
  status: number;
  headers: Record<string, string>;
  /** the call named a streaming method: its errors past authentication, scope and limit travel as an SSE event */
  streaming?: boolean;
}

/** Where a call stands: the request's base URL and id (a batch's calls share them), and whether it is one of a batch. */
interface CallSite {
  baseUrl: string;
  requestId: string;
  inBatch: boolean;
}

const JSON_HEADERS = { 'Content-Type': 'application/json' };

/** A response as JSON, sanitized; a result that is already sanitized JSON (RawJson) goes in as it is. */
function responseJson(r: RpcResponse): string {
  if ('result' in r && r.result instanceof RawJson) return `{"jsonrpc":"2.0","id":${JSON.stringify(r.id)},"result":${r.result.json}}`;
  return toSanitizedJson(r);
}
const SSE_HEADERS = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' };

/**
 * A reply's headers: `base`, then the call's. Copied key by key: on Node 20 an object spread of two header objects
 * (`{ ...base, ...call }`) took about 2.5 µs, several percent of a `tasks/get`; the loop takes about 0.15 µs. A
 * `__proto__` key (no header is named so) is skipped: assigned, it would set the copy's prototype, where a spread defines it.
 */
function withHeaders(base: Readonly<Record<string, string>>, call: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k in base) if (k !== '__proto__') out[k] = base[k]!;
  for (const k in call) if (k !== '__proto__') out[k] = call[k]!;
  return out;
}

/** Strict: a body that is not valid UTF-8 is a parse error, never silently repaired with U+FFFD. */
const utf8 = new TextDecoder('utf-8', { fatal: true });
/** The body as text, or undefined when it is not valid UTF-8 (a leading UTF-8 BOM is dropped, as RFC 8259 allows). */
function utf8Text(body: Buffer): string | undefined {
  try {
    return utf8.decode(body);
  } catch {
    return undefined;
  }
}

export function createGateway(o: GatewayOptions): GatewayApi {
  const metrics = o.metrics ?? noMetrics;
  const debug = o.log.debug;
  const slots = new StreamSlots({ limit: o.maxStreamsPerKey });

  async function answer(entry: DecodedEntry, req: RpcHttpRequest, site: CallSite): Promise<Answer> {
    const started = performance.now();
    const a = await answerCall(entry, req, site);
    const method = entry.ok && methodRow(entry.call.method) ? entry.call.method : entry.ok ? 'unknown' : 'invalid';
    const outcome = outcomeOf(a.response);
    const seconds = (performance.now() - started) / 1000;
    metrics.call(method, outcome, seconds);
    debug?.('call', { requestId: site.requestId, method, outcome, status: a.status, ms: Math.round(seconds * 1e4) / 10, stream: a.stream !== undefined });
    return a;
  }

  async function answerCall(entry: DecodedEntry, req: RpcHttpRequest, site: CallSite): Promise<Answer> {
    const headerV1 = versionAnswersV1(req.a2aVersion);
    if (!entry.ok) return { response: errorResponse(entry.id, entry.error, { v1: headerV1 }), status: entry.error.httpStatus, headers: {} };
    const { call } = entry;
    const row = methodRow(call.method);
    // a 1.0 method (or a 1.0 header) reads its errors in 1.0's shape
    const v1 = errorsInV1({ methodDialect: row?.dialect, version: req.a2aVersion });
    const streaming = row?.streaming === true;
    if (streaming && !call.hasId) {
      // a stream's events carry the request's id: without one there is nothing to tie them to (nothing runs)
      const err = new RpcError('INVALID_REQUEST', { message: `Invalid request: ${call.method} is a streaming method and needs an id`, data: { field: 'id' } });
      return { response: errorResponse(null, err, { v1 }), status: err.httpStatus, headers: {} };
    }
    const out = await runCall(o, {
      call,
      authorization: req.authorization,
      a2aVersion: req.a2aVersion,
      urlAgentId: req.agentId,
      lastEventId: req.lastEventId,
      baseUrl: site.baseUrl,
      requestId: site.requestId,
      inBatch: site.inBatch,
      address: req.address,
    });
    if (out.ok && out.result instanceof StreamResult) {
      // the handler changed nothing yet (a send starts its task when the stream opens): refusing here is clean
      let release: () => void;
      try {
        release = slots.take(out.result.keyId);
      } catch (e) {
        if (!(e instanceof RpcError)) throw e;
        return { response: errorResponse(call.id, e, { v1 }), status: e.httpStatus, headers: out.headers };
      }
      return { stream: out.result, release, response: resultResponse(call.id, null), status: 200, headers: out.headers };
    }
    const response = out.ok ? resultResponse(call.id, out.result) : errorResponse(call.id, out.error, { v1 });
    return { response, status: out.ok ? 200 : out.error.httpStatus, headers: out.headers, streaming };
  }

  const reply = (status: number, headers: Record<string, string>, body: RpcResponse | RpcResponse[]): JsonReply => ({
    kind: 'json',
    status,
    headers: withHeaders(JSON_HEADERS, headers),
    body: Array.isArray(body) ? `[${body.map(responseJson).join(',')}]` : responseJson(body),
  });

  /** one request id per HTTP call (a batch's calls share it) */
  async function rpcReply(req: RpcHttpRequest, requestId: string): Promise<HttpReply> {
    const baseUrl = o.publicUrl ?? req.baseUrl;
    const wide = wideEncodingOf(req.body);
    const text = wide === undefined ? utf8Text(req.body) : undefined;
    if (text === undefined) {
      const message =
        wide === undefined
          ? 'Parse error: request body is not valid UTF-8'
          : `Parse error: request body is ${wide}, not UTF-8; send JSON-RPC bodies in UTF-8 (RFC 8259 §8.1)`;
      const err = new RpcError('PARSE_ERROR', { message, ...(wide !== undefined && { data: { encoding: wide } }) });
      metrics.call('invalid', err.reason, 0);
      return reply(err.httpStatus, {}, errorResponse(null, err, { v1: versionAnswersV1(req.a2aVersion) }));
    }
    const decoded = decodeBody(text, { maxBatchSize: o.maxBatchSize });
    if (decoded.kind === 'invalid') {
      metrics.call('invalid', decoded.error.reason, 0);
      return reply(ERRORS[decoded.error.reason].http, {}, errorResponse(decoded.id, decoded.error, { v1: versionAnswersV1(req.a2aVersion) }));
    }
    if (decoded.kind === 'single') {
      const a = await answer(decoded.entry, req, { baseUrl, requestId, inBatch: false });
      if (a.stream) {
        const stream = a.stream;
        const release = a.release ?? (() => undefined);
        return {
          kind: 'stream',
          headers: withHeaders(SSE_HEADERS, a.headers),
          start: meteredStream(
            metrics,
            onStreamEnd((sink) => stream.start(sink), release),
          ),
          abandon: release,
        };
      }
      // clients of a streaming method read text/event-stream: past authentication, scope and the limit (which keep
      // their HTTP statuses), its error is one event, and the stream ends
      if (a.streaming && a.status === 200) {
        const data = responseJson(a.response);
        return {
          kind: 'stream',
          headers: withHeaders(SSE_HEADERS, a.headers),
          start: (sink) => {
            sink.end({ data });
            return () => undefined;
          },
        };
      }
      return reply(a.status, a.headers, a.response);
    }
    // a batch: each element runs the whole pipeline (and counts against the limit); HTTP says 200
    // a streaming method in it is refused by the pipeline (runCall, `inBatch`) before it spends budget
    const answers = await Promise.all(decoded.entries.map((e) => answer(e, req, { baseUrl, requestId, inBatch: true })));
    return reply(
      200,
      batchHeaders(answers.map((a) => a.headers)),
      answers.map((a) => a.response),
    );
  }

  return {
    maxBodyBytes: o.maxBodyBytes,
    tunnel: o.tunnel,
    admin: o.admin,

    async rpc(req: RpcHttpRequest): Promise<HttpReply> {
      const requestId = requestIdOf(req.requestId);
      const out = await rpcReply(req, requestId);
      out.headers['X-Request-Id'] = requestId;
      return out;
    },

    card(req: CardRequest) {
      const baseUrl = o.publicUrl ?? req.baseUrl;
      const agents = o.parts.agents;
      if (req.agentId === undefined) return serviceCard({ settings: o.parts.card, agents: agents.specs, baseUrl });
      const agent = agents.shared(req.agentId);
      if (!agent || !isPublic(agent)) return undefined;
      return agentCard({ settings: o.parts.card, agent, baseUrl });
    },

    health: () => ({ ok: true }),
    ready: () => o.ready(),
    ...(o.metrics && { metrics: async () => ({ contentType: metrics.contentType, body: await metrics.text() }) }),
  };
}
