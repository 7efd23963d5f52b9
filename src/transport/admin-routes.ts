// The uWS routes of the dashboard (GET /dashboard...) and its JSON admin API (/api/admin/...): copy the request, read a
// body when one is announced, hand it to the gateway's AdminApi, write its reply.
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { AdminApi, AdminHttpRequest } from '../gateway/api.js';
import { readBody, type BodyDeadline } from './body.js';
import { send, trackAbort } from './http-response.js';
import { startSse, type SseLimits } from './sse.js';
import { addressOf, forwardedForOf, httpsOf, type Proxies } from './peer.js';

export function serveAdmin(
  app: TemplatedApp,
  o: {
    admin: AdminApi;
    tls: boolean;
    sse: SseLimits;
    deadline: BodyDeadline;
    log?: (msg: string, fields?: Record<string, unknown>) => void;
    proxies?: Proxies;
  },
): void {
  const scheme = { tls: o.tls, proxies: o.proxies };
  const route = (res: HttpResponse, req: HttpRequest) => {
    const state = trackAbort(res);
    const length = Number(req.getHeader('content-length') || '0');
    const hasBody = length > 0 || req.getHeader('transfer-encoding') !== '';
    const base: Omit<AdminHttpRequest, 'body'> = {
      method: req.getMethod().toUpperCase(),
      path: req.getUrl(),
      query: req.getQuery() ?? '',
      authorization: req.getHeader('authorization') || undefined,
      cookie: req.getHeader('cookie') || undefined,
      csrf: req.getHeader('x-csrf-token') || undefined,
      contentType: req.getHeader('content-type') || undefined,
      // read before any await: the request and response objects are usable only synchronously here
      tls: httpsOf(req, res, scheme),
      address: addressOf(res, forwardedForOf(req, o.proxies), o.proxies),
    };
    // a request without a body (GET, most DELETEs) never gets an onData call to wait for
    const body = hasBody
      ? readBody(res, { limit: o.admin.maxBodyBytes, declaredLength: length || undefined, deadline: o.deadline, state })
      : Promise.resolve({ ok: true as const, body: Buffer.alloc(0) });
    void body
      .then(async (b) => {
        if (!b.ok && b.why === 'timeout') {
          const message = `Request timeout: the request body did not arrive within ${o.deadline.ms} ms (bodyTimeoutMs)`;
          return send(res, state, { ...o.admin.refusal({ status: 408, error: 'request_timeout', message }), close: true });
        }
        if (!b.ok) {
          const message = `Request body too large: the limit is ${o.admin.maxBodyBytes} bytes`;
          // as on /api/a2a: a body not read to its end would be parsed as the next request, so the connection closes
          return send(res, state, { ...o.admin.refusal({ status: 413, error: 'payload_too_large', message }), close: !b.drained });
        }
        const reply = await o.admin.handle({ ...base, body: b.body });
        if (reply.kind === 'json') send(res, state, { status: reply.status, headers: reply.headers, body: reply.body });
        else startSse(res, state, reply, o.sse);
      })
      .catch((e: unknown) => {
        o.log?.('admin transport error', { error: e instanceof Error ? e.message : String(e) });
        send(res, state, o.admin.refusal({ status: 500, error: 'internal_error', message: 'Internal error' }));
      });
  };
  app.any('/api/admin/*', route);
  app.get('/dashboard', route);
  app.get('/dashboard/*', route);
}
