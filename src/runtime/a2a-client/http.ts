// The client's one way onto the network: an HTTP(S) request through the SSRF guard, on the endpoint's kept-alive
// agents, with no redirect followed, a response size limit, an abort signal and a deadline; every failure an OutboundError.
import { Agent as HttpAgent, request as httpRequest, maxHeaderSize, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Timers } from '../clock.js';
import { checkUrlStatic, guardedLookup, type Allowlist, type Resolve } from '../net/guard.js';
import { OutboundError } from './types.js';

/** What the SSRF guard calls a remote agent's URL in its refusals: "remote agent URL refused: ...". */
export const REMOTE_URL = 'remote agent URL';

/** One endpoint's connection pools: a busy connection reuses its sockets, and its client certificate stays its own. */
export interface EndpointAgents {
  http: HttpAgent;
  https: HttpsAgent;
}

/**
 * How long a kept-alive socket may sit idle in the pool. Node 20 lowers this to one second under a server's announced
 * `Keep-Alive: timeout=N`, but only when an agent timeout is set at all: without one it keeps idle sockets until the
 * server closes them, and a request sent on one as the server's idle timer fires is reset (seen under load with a
 * local agent's express server, whose timeout is 5 s: a `message/send` failed with "socket hang up"). 4 s stays
 * under the common 5 s server default when a server announces nothing.
 */
export const IDLE_SOCKET_MS = 4_000;

export function createAgents(o: { maxFreeSockets: number; tls?: { cert: string; key: string; ca?: string } }): EndpointAgents {
  const common = { keepAlive: true, maxFreeSockets: o.maxFreeSockets, scheduling: 'lifo' as const, timeout: IDLE_SOCKET_MS };
  return {
    http: new HttpAgent(common),
    https: new HttpsAgent({ ...common, ...(o.tls && { cert: o.tls.cert, key: o.tls.key, ...(o.tls.ca !== undefined && { ca: o.tls.ca }) }) }),
  };
}

export const destroyAgents = (a: EndpointAgents): void => {
  a.http.destroy();
  a.https.destroy();
};

export interface HttpCall {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  agents: EndpointAgents;
  allowlist: Allowlist;
  resolve: Resolve;
  timers: Timers;
  /** the deadline of the whole exchange, the body (or stream) included */
  timeoutMs: number;
  signal?: AbortSignal;
  /** the largest body `readBody` accepts */
  maxBytes: number;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** the body stream: a timeout or abort after the head destroys it with that error */
  res: IncomingMessage;
}

const canceled = () => new OutboundError('canceled', 'the call was canceled');

function networkError(e: unknown, url: URL): OutboundError {
  if (e instanceof OutboundError) return e;
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'ERR_ADDRESS_REFUSED') return new OutboundError('url_refused', err.message, { cause: e });
  // the remote answered, but not in HTTP we read: it is reachable, its answer is bad (an operator looks elsewhere)
  if (err.code === 'HPE_HEADER_OVERFLOW')
    return new OutboundError('bad_response', `the response head from ${url.origin} is larger than ${maxHeaderSize} bytes`, { cause: e });
  if (err.code?.startsWith('HPE_')) return new OutboundError('bad_response', `the answer from ${url.origin} is not valid HTTP (${err.code})`, { cause: e });
  const what = err.code ? `${err.code}: ${err.message}` : String(err.message ?? e);
  return new OutboundError('unreachable', `${url.origin} cannot be reached (${what})`, { cause: e });
}

/**
 * Sends the request and resolves with the response head; the body is read by the caller (`readBody`, or the SSE
 * reader), still under the same deadline and signal. Redirects are answered as they come (a 3xx is the caller's to refuse).
 */
export function httpOpen(c: HttpCall): Promise<HttpResponse> {
  return open(c, c.method === 'GET');
}

/**
 * A kept-alive socket the server closed as it was being reused (its idle timeout and our request crossed) fails with
 * a reset before any answer. The server never read that request, so a GET (a card read, a health check) is sent again
 * once on a new socket instead of reporting a healthy agent unreachable. A POST is not: a reset is ambiguous for it.
 */
const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

function open(c: HttpCall, mayRetry: boolean): Promise<HttpResponse> {
  // an IP literal is never looked up, so the guarded lookup would not see it: check every URL here too
  const pre = checkUrlStatic(c.url, { allowlist: c.allowlist, what: REMOTE_URL });
  if (!pre.ok) return Promise.reject(new OutboundError('url_refused', pre.refusal.message));
  const url = pre.url;
  const https = url.protocol === 'https:';
  const body = c.body === undefined ? undefined : Buffer.from(c.body, 'utf8');
  if (c.signal?.aborted) return Promise.reject(canceled());

  return new Promise<HttpResponse>((resolve, reject) => {
    let req: ClientRequest | undefined;
    let res: IncomingMessage | undefined;
    let over = false;
    const stop = (err: OutboundError) => {
      if (over) return;
      over = true;
      cleanup();
      // before the head the promise rejects; after it, whoever reads the body sees the error
      if (res) res.destroy(err);
      else {
        req?.destroy(err);
        reject(err);
      }
    };
    const onAbort = () => stop(canceled());
    const cancelTimer = c.timers.after(c.timeoutMs, () => stop(new OutboundError('timeout', `no complete answer from ${url.origin} within ${c.timeoutMs} ms`)));
    const cleanup = () => {
      cancelTimer();
      c.signal?.removeEventListener('abort', onAbort);
    };
    c.signal?.addEventListener('abort', onAbort, { once: true });

    try {
      req = (https ? httpsRequest : httpRequest)(url, {
        method: c.method,
        headers: {
          'user-agent': 'a2a-gateway-client/1',
          ...(body && { 'content-type': 'application/json', 'content-length': String(body.length) }),
          ...c.headers,
        },
        agent: https ? c.agents.https : c.agents.http,
        // every new socket goes through the guard: what is checked is what is connected to
        lookup: guardedLookup({ allowlist: c.allowlist, resolve: c.resolve, what: REMOTE_URL }),
      });
    } catch (e) {
      // Node refused the request before sending it (a header value it cannot send): its deadline and listener go too
      over = true;
      cleanup();
      reject(e);
      return;
    }
    req.on('error', (e) => {
      if (over) return;
      over = true;
      cleanup();
      if (mayRetry && req?.reusedSocket && !res && STALE_SOCKET.has((e as NodeJS.ErrnoException).code ?? '')) {
        resolve(open(c, false));
        return;
      }
      reject(networkError(e, url));
    });
    req.on('response', (r: IncomingMessage) => {
      res = r;
      // the reader attaches its own; this one keeps an error raised before it does from going unhandled
      r.on('error', () => {});
      r.on('close', () => {
        if (!over) {
          over = true;
          cleanup();
        }
      });
      resolve({ status: r.statusCode ?? 0, headers: r.headers, res: r });
    });
    req.end(body);
  });
}

/** The whole body of a response, at most `maxBytes` (more destroys the response and fails). */
export function readBody(r: HttpResponse, maxBytes: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const declared = Number(r.headers['content-length']);
    const tooBig = () => new OutboundError('bad_response', `the response is larger than ${maxBytes} bytes`);
    if (Number.isFinite(declared) && declared > maxBytes) {
      r.res.destroy();
      return reject(tooBig());
    }
    r.res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) r.res.destroy(tooBig());
      else chunks.push(chunk);
    });
    r.res.on('end', () => resolve(Buffer.concat(chunks)));
    r.res.on('error', (e) => reject(e instanceof OutboundError ? e : new OutboundError('unreachable', `the response broke off (${e.message})`, { cause: e })));
    // a response destroyed without an error (the peer hung up mid-body) ends with close and no end
    r.res.on('close', () => {
      if (!r.res.complete) reject(new OutboundError('unreachable', 'the response broke off before its end'));
    });
  });
}

/** Sends the request and reads the whole body. */
export async function httpExchange(c: HttpCall): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  const r = await httpOpen(c);
  const body = await readBody(r, c.maxBytes);
  return { status: r.status, headers: r.headers, body };
}
