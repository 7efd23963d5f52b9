// The uWS front: routes for JSON-RPC, Agent Cards and health; body limits; hands typed requests to the gateway interface.
import uWS, { type HttpRequest, type HttpResponse, type TemplatedApp } from 'uWebSockets.js';
import type { GatewayApi, HttpReply } from '../gateway/api.js';
import { serveTunnel } from './tunnel.js';
import { serveAdmin } from './admin-routes.js';
import { errorResponse } from '../protocol/envelope.js';
import { ERRORS, RpcError } from '../protocol/errors.js';
import { versionAnswersV1 } from '../protocol/codec.js';
import { echoed } from '../protocol/one-line.js';
import { readBody, type BodyDeadline, type BodyTimers } from './body.js';
import { send, sendJson, trackAbort, type ResponseState } from './http-response.js';
import { startSse, type SseLimits } from './sse.js';
import { listenExclusive } from './listen.js';
import { addressOf, forwardedForOf, httpsOf, type Proxies } from './peer.js';
import { hostOf, TWO_HOSTS } from './host.js';
import { CARD_SINGLE_HEADERS, repeatedHeader, RPC_SINGLE_HEADERS } from './header-lines.js';

export interface HttpServerOptions {
  gateway: GatewayApi;
  host: string;
  port: number;
  sse: SseLimits;
  /** a request body must arrive whole within this long of its headers, else 408 (setting bodyTimeoutMs) */
  bodyTimeoutMs: number;
  /** the gateway's injected timers (the body deadline runs on them) */
  timers: BodyTimers;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
  /** serve HTTPS (and WSS for the relay tunnel) from these PEM files */
  tls?: { certFile: string; keyFile: string };
  /** the operator's trusted proxies (setting trustedProxies): their X-Forwarded-For and -Proto are read, no one else's */
  proxies?: Proxies;
}

export interface HttpServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/** A path segment, percent-decoded; a malformed escape (`%zz`) names no agent rather than throwing in a uWS handler. */
function segment(req: HttpRequest, index: number): string {
  const raw = req.getParameter(index) ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return `\u0000${raw}`;
  }
}

/**
 * scheme://host as the caller reached us, or undefined for a Host that is not a plain host[:port]; the scheme from a
 * proxy's X-Forwarded-Proto only when it is a trusted one
 */
function baseUrlOf(req: HttpRequest, res: HttpResponse, o: { tls: boolean; proxies: Proxies | undefined }): string | undefined {
  const host = hostOf(req.getHeader('host'));
  if (!host.ok) return undefined;
  return `${httpsOf(req, res, o) ? 'https' : 'http'}://${host.host}`;
}

/**
 * 400 naming the Host header (after the body is read, so a client that uploads before it reads still gets it). On the
 * JSON-RPC endpoint it is a JSON-RPC error, in 1.0's shape when the request named 1.0 (`v1`), as the gateway's are.
 */
function badHost(res: HttpResponse, state: ResponseState, o: { rpc: boolean; v1?: boolean; message?: string }): void {
  const err = new RpcError('BAD_HOST', { data: { header: 'Host' }, ...(o.message !== undefined && { message: o.message }) });
  sendJson(res, state, ERRORS.BAD_HOST.http, o.rpc ? errorResponse(null, err, { v1: o.v1 }) : { error: 'bad_request', message: err.message, header: 'Host' });
}

function writeReply(res: HttpResponse, state: ResponseState, reply: HttpReply, sse: SseLimits): void {
  if (reply.kind === 'json') {
    send(res, state, { status: reply.status, headers: reply.headers, body: reply.body });
    return;
  }
  startSse(res, state, reply, sse);
}

/**
 * 400 naming a header given on more than one line; the connection is closed after it (with two Content-Length lines
 * the body's end is in doubt, and a client that sends either is not one to keep talking to).
 */
function repeated(res: HttpResponse, state: ResponseState, o: { header: string; v1: boolean }): void {
  const err = new RpcError('REPEATED_HEADER', {
    message: `Bad request: the ${o.header} header is given more than once; send it once`,
    data: { header: o.header },
  });
  send(res, state, {
    status: ERRORS.REPEATED_HEADER.http,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(errorResponse(null, err, { v1: o.v1 })),
    close: true,
  });
}

/**
 * A Content-Encoding other than identity (`gzip`, `br`, ...): 415 naming it. The gateway does not decode bodies, so a
 * gzip body read "not valid UTF-8", and a plain body labelled gzip was run as plain, while a firewall in front that
 * failed to decompress it may have let it through uninspected.
 */
const encodedBody = (header: string): boolean => header !== '' && header.trim().toLowerCase() !== 'identity';

function encoded(res: HttpResponse, state: ResponseState, o: { encoding: string; v1: boolean }): void {
  const named = echoed(o.encoding);
  const err = new RpcError('UNSUPPORTED_ENCODING', {
    message: `Unsupported media type: the request body has Content-Encoding '${named}'; send it uncompressed`,
    data: { header: 'Content-Encoding', encoding: named },
  });
  sendJson(res, state, ERRORS.UNSUPPORTED_ENCODING.http, errorResponse(null, err, { v1: o.v1 }));
}

/** 413; `v1`: the request named A2A 1.0, and reads the error in 1.0's shape. */
function tooLarge(res: HttpResponse, state: ResponseState, o: { limit: number; drained: boolean; v1: boolean }): void {
  const err = new RpcError('PAYLOAD_TOO_LARGE', { message: `Request body too large: the limit is ${o.limit} bytes`, data: { limit: o.limit } });
  // a body read to its end leaves the connection usable; one past the discard bound is cut off after the answer
  send(res, state, {
    status: ERRORS.PAYLOAD_TOO_LARGE.http,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(errorResponse(null, err, { v1: o.v1 })),
    close: !o.drained,
  });
}

/** The body did not arrive whole in time: 408, and the connection is closed (the rest of the body may still come). */
function timedOut(res: HttpResponse, state: ResponseState, o: { ms: number; v1: boolean }): void {
  const { ms } = o;
  const err = new RpcError('REQUEST_TIMEOUT', {
    message: `Request timeout: the request body did not arrive within ${ms} ms (bodyTimeoutMs)`,
    data: { limitMs: ms },
  });
  send(res, state, {
    status: ERRORS.REQUEST_TIMEOUT.http,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(errorResponse(null, err, { v1: o.v1 })),
    close: true,
  });
}

const deadlineOf = (o: HttpServerOptions): BodyDeadline => ({ ms: o.bodyTimeoutMs, timers: o.timers });

function rpcRoute(o: HttpServerOptions) {
  const { gateway, log, sse, proxies } = o;
  // made once: nothing is allocated per call for it
  const scheme = { tls: o.tls !== undefined, proxies };
  const deadline = deadlineOf(o);
  return (res: HttpResponse, req: HttpRequest, agentId: string | undefined) => {
    // everything from req is copied now: req is gone after the first await
    const authorization = req.getHeader('authorization') || undefined;
    // 1.0 (3.6.1): a client may name its version as a request parameter instead of the header; the header wins
    const a2aVersion = req.getHeader('a2a-version') || req.getQuery('A2A-Version') || undefined;
    // errors answered here (before the gateway reads the body) take the shape the request's version names, as the
    // gateway's parse errors do: there is no method yet to tell it otherwise
    const v1 = versionAnswersV1(a2aVersion);
    const lastEventId = req.getHeader('last-event-id') || undefined;
    const lengthHeader = req.getHeader('content-length');
    const requestId = req.getHeader('x-request-id') || undefined;
    const baseUrl = baseUrlOf(req, res, scheme);
    const forwardedFor = forwardedForOf(req, proxies);
    const twice = repeatedHeader(req, RPC_SINGLE_HEADERS);
    const encoding = req.getHeader('content-encoding');
    const state = trackAbort(res);
    // read at the first need, at the latest when a failed key is counted; a client already gone has no address left
    let peer: string | undefined;
    const address = () => (peer ??= state.aborted ? '' : addressOf(res, forwardedFor, proxies));
    const declaredLength = lengthHeader ? Number(lengthHeader) : undefined;
    void readBody(res, { limit: gateway.maxBodyBytes, declaredLength, deadline, state })
      .then(async (b) => {
        if (!b.ok && b.why === 'timeout') return timedOut(res, state, { ms: deadline.ms, v1 });
        if (!b.ok) return tooLarge(res, state, { limit: gateway.maxBodyBytes, drained: b.drained, v1 });
        if (twice !== undefined) return repeated(res, state, { header: twice, v1 });
        if (encodedBody(encoding)) return encoded(res, state, { encoding, v1 });
        if (baseUrl === undefined) return badHost(res, state, { rpc: true, v1 });
        const reply = await gateway.rpc({ body: b.body, authorization, a2aVersion, lastEventId, agentId, baseUrl, requestId, address });
        writeReply(res, state, reply, sse);
      })
      .catch((e: unknown) => {
        log?.('transport error', { error: e instanceof Error ? e.message : String(e) });
        sendJson(res, state, 500, errorResponse(null, new RpcError('INTERNAL_ERROR'), { v1 }));
      });
  };
}

function cardRoute(o: HttpServerOptions, fromParam: boolean) {
  const { gateway } = o;
  const scheme = { tls: o.tls !== undefined, proxies: o.proxies };
  return (res: HttpResponse, req: HttpRequest) => {
    const state = trackAbort(res);
    const agentId = fromParam ? segment(req, 0) : undefined;
    // the card is served `public`: a cache in front must not key it on one Host line while its URL comes from another
    if (repeatedHeader(req, CARD_SINGLE_HEADERS) !== undefined) return badHost(res, state, { rpc: false, message: TWO_HOSTS });
    const baseUrl = baseUrlOf(req, res, scheme);
    if (baseUrl === undefined) return badHost(res, state, { rpc: false });
    const card = gateway.card({ agentId, baseUrl });
    if (!card) return sendJson(res, state, 404, { error: 'not_found', message: `No listed agent '${echoed(agentId ?? '')}'` });
    sendJson(res, state, 200, card, { 'Cache-Control': 'public, max-age=60' });
  };
}

function buildApp(o: HttpServerOptions): TemplatedApp {
  const { gateway } = o;
  const rpc = rpcRoute(o);
  const app = o.tls ? uWS.SSLApp({ cert_file_name: o.tls.certFile, key_file_name: o.tls.keyFile }) : uWS.App();
  if (gateway.tunnel) serveTunnel(app, { tunnel: gateway.tunnel, log: o.log, proxies: o.proxies });
  if (gateway.admin) serveAdmin(app, { admin: gateway.admin, tls: o.tls !== undefined, sse: o.sse, deadline: deadlineOf(o), log: o.log, proxies: o.proxies });
  app.post('/api/a2a', (res, req) => rpc(res, req, undefined));
  app.post('/api/a2a/agents/:agentId', (res, req) => rpc(res, req, segment(req, 0)));
  for (const path of ['/.well-known/agent.json', '/.well-known/agent-card.json']) {
    app.get(path, cardRoute(o, false));
    app.get(`/api/a2a/agents/:agentId${path}`, cardRoute(o, true));
  }
  app.get('/healthz', (res) => sendJson(res, trackAbort(res), 200, gateway.health()));
  app.get('/readyz', (res) => {
    const state = trackAbort(res);
    void gateway.ready().then((r) => sendJson(res, state, r.ok ? 200 : 503, r));
  });
  const metrics = gateway.metrics?.bind(gateway);
  if (metrics) {
    app.get('/metrics', (res) => {
      const state = trackAbort(res);
      void metrics()
        .then((m) => send(res, state, { status: 200, headers: { 'Content-Type': m.contentType }, body: m.body }))
        .catch(() => send(res, state, { status: 500, headers: { 'Content-Type': 'text/plain' }, body: 'metrics unavailable' }));
    });
  }
  app.any('/api/a2a', (res) => sendJson(res, trackAbort(res), 405, { error: 'method_not_allowed', message: 'Use POST for JSON-RPC' }));
  app.any('/*', (res, req) =>
    sendJson(res, trackAbort(res), 404, { error: 'not_found', message: `No route for ${echoed(req.getMethod().toUpperCase())} ${echoed(req.getUrl())}` }),
  );
  return app;
}

export async function startHttpServer(o: HttpServerOptions): Promise<HttpServer> {
  const app = buildApp(o);
  const token = await listenExclusive(app, { host: o.host, port: o.port });
  const port = uWS.us_socket_local_port(token);
  let closed = false;
  return {
    port,
    url: `${o.tls ? 'https' : 'http'}://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`,
    async close() {
      if (closed) return;
      closed = true;
      uWS.us_listen_socket_close(token);
      // close() drops open connections too; it is in the build but not in its typings
      (app as TemplatedApp & { close(): void }).close();
    },
  };
}
