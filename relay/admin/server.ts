// The relay's admin server (127.0.0.1:9090 by default): the UI, its JSON API under /api/ with a live SSE stream,
// /healthz (the process is up), /readyz (the tunnel is connected) and Prometheus /metrics. It watches the relay through
// the observer it hands out, and asks the relay for nothing but its agents and a replay.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Clock, systemClock } from '../../src/runtime/clock.js';
import { errorText, type Log } from '../../src/runtime/log.js';
import type { RelayConfig } from '../config.js';
import type { RelayObserver } from '../observer.js';
import type { Relay } from '../relay.js';
import { loadAssets } from './assets.js';
import { trustedProxies } from '../../src/runtime/net/client-address.js';
import { clearedCookie, clientAddressOf, createAdminAuth, httpsOf, sessionCookie } from './auth.js';
import { apiError, hasBody, readBody, secure, sendJson, sendText, tooLarge } from './http.js';
import { ADMIN_HTTP_DEFAULTS, type AdminHttpLimits } from './limits.js';
import { type LiveStreamLimits, LiveStreams } from './live-streams.js';
import { loginPage } from './login-page.js';
import { createRelayMetrics } from './metrics.js';
import { AdminState, type Change } from './state.js';
import { RelayAgentCard } from '../../src/protocol/tunnel.js';
import { echoed } from '../../src/protocol/one-line.js';

export interface AdminOptions {
  config: RelayConfig;
  log: Log;
  clock?: Clock;
  /** turns kept in the task log */
  capacity?: number;
  /** SSE keep-alive comment interval */
  keepAliveMs?: number;
  /** bounds of the live streams (LIVE_STREAM_DEFAULTS where unset) */
  streams?: Partial<LiveStreamLimits>;
  /** the HTTP server's bounds (ADMIN_HTTP_DEFAULTS where unset) */
  http?: Partial<AdminHttpLimits>;
}

export interface Admin {
  readonly url: string;
  readonly state: AdminState;
  /** hand this to the relay: the admin UI and the metrics watch through it */
  readonly observer: RelayObserver;
  /** the relay, once started (until then the UI shows "starting" and replay is refused) */
  attach(relay: Relay): void;
  close(): Promise<void>;
}

/**
 * The request comes from the admin UI's own page, as far as the browser tells: Sec-Fetch-Site when it is sent (no page
 * can forge it; our own form's POST carries `Origin: null` under our no-referrer policy), else the Origin's host,
 * whatever its scheme (a TLS proxy in front of the UI is fine). A request with neither is no browser's cross-site one
 * (a script, curl).
 */
function sameOrigin(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const origin = req.headers.origin;
  return origin === undefined || (URL.canParse(origin) && new URL(origin).host === req.headers.host);
}

/** Retry-After in whole seconds, at least 1 ("0" invites an immediate retry loop). */
const retryAfter = (ms: number) => ({ 'retry-after': String(Math.max(1, Math.ceil(ms / 1000))) });

const TURN_STATES = new Set(['running', 'completed', 'input-required', 'failed', 'canceled']);

export async function startAdmin(o: AdminOptions): Promise<Admin> {
  const c = o.config;
  const clock = o.clock ?? systemClock;
  const state = new AdminState({
    clock,
    gatewayUrl: c.gateway_url,
    workspace: c.workspace_id,
    secrets: [c.api_key],
    ...(o.capacity && { capacity: o.capacity }),
  });
  const streams: LiveStreams = new LiveStreams(o.streams, { onCut: () => metrics.streamCut() });
  const metrics = createRelayMetrics({ openStreams: () => streams.size, sessions: () => auth.sessions() });
  const proxies = c.admin_trusted_proxies.length > 0 ? trustedProxies(c.admin_trusted_proxies) : undefined;
  const limits = { ...ADMIN_HTTP_DEFAULTS, ...o.http };
  const auth = createAdminAuth({
    password: c.admin_password,
    clock,
    proxies,
    // a session evicted or expired ends what it holds open, as signing out does
    onSessionEnd: (token) => streams.endSession(token),
  });
  const assets = loadAssets();
  let relay: Relay | undefined;

  const observer: RelayObserver = {
    tunnel: (v) => {
      state.tunnel(v);
      metrics.tunnel?.(v);
    },
    health: (round, at) => {
      state.health(round, at);
      metrics.health?.(round, at);
    },
    turn: (start) => {
      const a = state.turn(start);
      const b = metrics.turn?.(start);
      return {
        event: (ev) => {
          a.event(ev);
          b?.event(ev);
        },
        end: (r, at) => {
          a.end(r, at);
          b?.end(r, at);
        },
      };
    },
  };

  // one framing for every change, done once per change however many streams are open
  const frame = (ch: Change) => `event: ${ch.type}\ndata: ${JSON.stringify(ch.data)}\n\n`;
  /** then each agent's description, one per event, as the stream reads (the snapshot leaves them out: agent-summary.ts) */
  const descriptions = (res: ServerResponse) => {
    const names = state.summaries().map((a) => a.name);
    let i = 0;
    streams.trickle(res, () => {
      for (; i < names.length; ) {
        const a = state.summary(names[i++]!);
        if (a) return frame({ type: 'agent', data: { name: a.name, description: a.description ?? '' } });
      }
      return undefined;
    });
  };
  state.listen((ch) => {
    streams.broadcast(frame(ch));
    if (ch.type === 'agents') for (const res of streams.all()) descriptions(res);
  });

  const events = (req: IncomingMessage, res: ServerResponse) => {
    const token = auth.sessionOf(req);
    // without a session (HTTP Basic, no password) the client's address holds the streams
    const holder = token !== undefined ? `session:${token}` : `address:${clientAddressOf(req, proxies)}`;
    const refused = streams.refusal(holder);
    if (refused) return apiError(res, refused.status, refused.code, refused.message, refused.status === 503 ? retryAfter(10_000) : {});
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    streams.add(res, { holder, session: token });
    streams.write(res, 'retry: 2000\n\n');
    streams.write(res, frame({ type: 'status', data: state.status() }));
    streams.write(res, frame({ type: 'agents', data: state.summaries() }));
    descriptions(res);
    // a session that expires ends its stream at the next keep-alive (signing out ends it at once: endSession)
    const ping = setInterval(() => (token === undefined || auth.live(token) ? streams.write(res, ': keep-alive\n\n') : res.end()), o.keepAliveMs ?? 15_000);
    ping.unref();
    // the response's close: the client went away, or the stream was ended or cut off here (sign-out, expiry, shutdown)
    res.once('close', () => clearInterval(ping));
  };

  const replay = async (req: IncomingMessage, res: ServerResponse, id: string) => {
    // no form of another site can send JSON, and a browser names the page that sent it: both checked (CSRF)
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return apiError(res, 415, 'bad_content_type', 'send content-type: application/json');
    if (!sameOrigin(req)) return apiError(res, 403, 'cross_site', 'a replay must come from the admin UI itself');
    const logged = state.replayable(id);
    if (logged === undefined) return apiError(res, 404, 'not_found', `no turn ${id} in the task log`);
    if (logged === 'too_large') return apiError(res, 409, 'not_kept', `turn ${id}'s message was too large to keep for a replay`);
    if (!relay) return apiError(res, 503, 'starting', 'the relay is still starting');
    let newId: string | undefined;
    // the replay's turn is logged synchronously as it starts: its id is the one answered
    const off = state.listen((ch) => {
      if (ch.type === 'task' && ch.data.replayOf === id && newId === undefined) newId = ch.data.id;
    });
    const done = relay.replay({ agent: logged.agent, message: logged.message, replayOf: id });
    off();
    done.catch((e) => o.log('relay replay failed', { turn: id, error: errorText(e) }));
    if (newId === undefined)
      return apiError(res, 502, 'replay_refused', (await done).ok ? 'the replay did not start' : 'the agent is not served by this relay');
    sendJson(res, 202, { id: newId, replayOf: id });
  };

  const api = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const p = url.pathname;
    // another site's page cannot read the answers (no CORS), but it can make the requests from the operator's own
    // browser: hold live streams counted against the operator (the client address without a password; a browser's
    // cached HTTP Basic credentials are sent cross-site too) and the browser's few connections to this host
    if (req.method === 'GET' && !sameOrigin(req)) return apiError(res, 403, 'cross_site', "the admin API answers the admin UI's own pages and scripts");
    if (req.method === 'GET' && p === '/api/status') return sendJson(res, 200, state.status());
    // summaries, never the cards (up to the 4 MiB a hello carries, built whole per request): one card is GET /api/agents/NAME
    if (req.method === 'GET' && p === '/api/agents') return sendJson(res, 200, { agents: state.listed() });
    const agent = /^\/api\/agents\/([^/]+)$/.exec(p);
    if (req.method === 'GET' && agent) {
      // the name as the relay's card schema takes it: anything else names no agent, and is not repeated back whole
      let name = agent[1]!;
      try {
        name = decodeURIComponent(name);
      } catch {
        // a malformed escape: taken as written, which names no agent
      }
      const a = RelayAgentCard.shape.name.safeParse(name).success ? state.agentView(name) : undefined;
      return a ? sendJson(res, 200, a) : apiError(res, 404, 'not_found', `no agent ${echoed(name)} on this relay`);
    }
    if (req.method === 'GET' && p === '/api/events') return events(req, res);
    if (req.method === 'GET' && p === '/api/session') return sendJson(res, 200, { password: auth.required });
    if (req.method === 'GET' && p === '/api/tasks') {
      const agent = url.searchParams.get('agent') ?? undefined;
      const st = url.searchParams.get('state') ?? undefined;
      const limitText = url.searchParams.get('limit');
      if (st !== undefined && !TURN_STATES.has(st)) return apiError(res, 400, 'bad_state', `state: one of ${[...TURN_STATES].join(', ')}`);
      const limit = limitText === null ? undefined : Number(limitText);
      if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) return apiError(res, 400, 'bad_limit', 'limit: a positive integer');
      return sendJson(res, 200, {
        tasks: state.tasks({ ...(agent && { agent }), ...(st && { state: st }), ...(limit && { limit }) }),
        capacity: state.capacity,
      });
    }
    const m = /^\/api\/tasks\/([A-Za-z0-9]+)(\/replay)?$/.exec(p);
    if (m && req.method === 'GET' && !m[2]) {
      const t = state.task(m[1]!);
      return t ? sendJson(res, 200, t) : apiError(res, 404, 'not_found', `no turn ${m[1]} in the task log`);
    }
    if (m && req.method === 'POST' && m[2]) return replay(req, res, m[1]!);
    return apiError(res, 404, 'not_found', `no ${req.method} ${p}`);
  };

  const login = async (req: IncomingMessage, res: ServerResponse, body: string) => {
    // (an over-size form is no try of the password: refused in handle, before the throttle counts it)
    const password = new URLSearchParams(body).get('password') ?? '';
    const r = await auth.login(password, clientAddressOf(req, proxies));
    if (!r.ok && r.why === 'locked')
      return sendText(res, 429, 'text/html; charset=utf-8', loginPage({ message: 'Too many failed attempts: wait a minute.' }), retryAfter(r.retryAfterMs));
    if (!r.ok) return sendText(res, 401, 'text/html; charset=utf-8', loginPage({ message: 'Wrong password.' }));
    res.writeHead(303, { location: '/', 'set-cookie': sessionCookie(r.token, { https: httpsOf(req, proxies) }) });
    res.end();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    secure(res);
    const url = new URL(req.url ?? '/', 'http://admin');
    const p = url.pathname;
    // Every body is read here, up to the bound, whatever the route, before anything answers: a route that never reads
    // one (sign-out, a refusal, a 404) would otherwise leave Node to drain it after the answer for as long as the client
    // sends, up to the 30 s request timeout per connection. Past the bound: 413, and the connection closes.
    const read = hasBody(req) ? await readBody(req, limits.maxBodyBytes) : { ok: true as const, body: '' };
    if (!read.ok) return tooLarge(res, limits.maxBodyBytes);
    if (!auth.hostAllowed(req, c.admin_bind)) return apiError(res, 421, 'bad_host', 'the admin UI answers to a loopback address only');
    if (p === '/healthz') return sendJson(res, 200, { ok: true });
    if (p === '/readyz') {
      const s = state.status();
      return sendJson(res, s.connection === 'connected' ? 200 : 503, { ready: s.connection === 'connected', connection: s.connection });
    }
    if (auth.required) {
      if (p === '/login' && req.method === 'POST') {
        // another site's page could otherwise post guesses from the operator's own browser, spending the operator's
        // address's password budget (locking the operator out), or sign the browser in (CSRF on the login itself)
        if (!sameOrigin(req)) return apiError(res, 403, 'cross_site', 'sign in from the admin UI itself');
        return login(req, res, read.body);
      }
      if (p === '/login') return sendText(res, 200, 'text/html; charset=utf-8', loginPage({}));
      if (p === '/logout' && req.method === 'POST') {
        // another site's form could otherwise sign the operator out (its POST carries no cookie, but its answer clears it)
        if (!sameOrigin(req)) return apiError(res, 403, 'cross_site', 'sign out from the admin UI itself');
        const token = auth.logout(req);
        // what the session holds open ends with it: its live streams stop showing the relay's traffic
        if (token !== undefined) streams.endSession(token);
        res.writeHead(303, { location: '/login', 'set-cookie': clearedCookie({ https: httpsOf(req, proxies) }) });
        return res.end();
      }
      const open = p === '/assets/app.css' || p === '/assets/icon.svg';
      const admitted = open ? { ok: true as const } : await auth.allowed(req);
      if (!admitted.ok && admitted.why === 'locked') {
        return apiError(
          res,
          429,
          'locked',
          'too many failed passwords from this address: retry after the Retry-After seconds',
          retryAfter(admitted.retryAfterMs),
        );
      }
      if (!admitted.ok) {
        if (req.method === 'GET' && (p === '/' || p.startsWith('/assets/'))) {
          res.writeHead(303, { location: '/login' });
          return res.end();
        }
        return apiError(res, 401, 'unauthorized', 'sign in at /login, or send the admin password with HTTP Basic');
      }
    }
    if (p.startsWith('/api/')) return api(req, res, url);
    if (p === '/metrics' && req.method === 'GET')
      return sendText(res, 200, metrics.registry.contentType, await metrics.registry.metrics(), { 'cache-control': 'no-store' });
    const asset = req.method === 'GET' ? assets.get(p) : undefined;
    if (asset) return sendText(res, 200, asset.type, asset.body, { 'cache-control': p === '/' ? 'no-store' : 'no-cache' });
    return apiError(res, 404, 'not_found', `no ${req.method} ${p}`);
  };

  const server = createServer(
    { headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: limits.checkIntervalMs },
    (req, res) => {
      handle(req, res).catch((e) => {
        o.log('relay admin request failed', { path: req.url?.split('?')[0], error: errorText(e) });
        if (!res.headersSent) apiError(res, 500, 'internal', 'the admin server failed on this request');
        else res.destroy();
      });
    },
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(c.admin_port, c.admin_bind, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `http://${host}:${addr.port}`;
  o.log('relay admin UI listening', { url, password: auth.required });

  return {
    url,
    state,
    observer,
    attach(r) {
      relay = r;
      state.setAgents(r.agents());
      state.tunnel(r.tunnel());
    },
    async close() {
      streams.endAll();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      metrics.stop();
    },
  };
}
