// The dashboard's JSON admin API and its pages: who is calling (a session cookie, or an admin key as Bearer), the CSRF
// rule for cookie mutations, the route table, and the mapping of the admin modules' errors to HTTP.
import { z } from 'zod';
import { presentedKey, verifyKey } from '../../runtime/keys.js';
import { errorText } from '../../runtime/log.js';
import type { AdminApi, AdminHttpRequest, HttpReply } from '../api.js';
import { serveAsset } from './assets.js';
import { isStoreUnavailable } from '../../runtime/store/errors.js';
import { operatorCode } from '../../protocol/errors.js';
import { AdminError, AdminStoreUnavailable, errorReply, json } from './http.js';
import { SESSION_COOKIE, SessionStore, cookieValue, csrfMatches, sessionCookie, sessionWatch, type Session } from './sessions.js';
import { settingsRoutes } from './routes-settings.js';
import { AdminThrottle } from './throttle.js';
import { workRoutes } from './routes-work.js';
import { Reply, type AdminDeps, type AdminRoute } from './types.js';

const SignIn = z.object({ key: z.string().min(1).max(512) }).strict();

/** Errors of the admin modules (key, connection, relay, webhook administration) as HTTP: their codes say which status. */
function asAdminError(e: unknown): AdminError | undefined {
  if (e instanceof AdminError) return e;
  if (!(e instanceof Error)) return undefined;
  const code = operatorCode(e);
  const field = (e as { field?: unknown }).field;
  const f = typeof field === 'string' ? field : undefined;
  if (code !== undefined) {
    // a conflict (ERR_KEY_CONFLICT: a rotation lost a race; ERR_STORE_CONFLICT: an update kept losing) is no bad input
    const status = code.endsWith('not_found') ? 404 : code.endsWith('exists') || code.endsWith('conflict') ? 409 : 400;
    return new AdminError(status, code, e.message, f);
  }
  if (['KeyAdminError', 'WebhookSecretError', 'RelayAdminError', 'ConnectionAdminError'].includes(e.name))
    return new AdminError(400, 'invalid_input', e.message, f);
  return undefined;
}

export function createAdmin(d: AdminDeps): AdminApi {
  const sessions = new SessionStore({ store: d.store.dashboard, clock: d.clock, ttlMs: d.sessionTtlMs });
  // a live view opened with a session's cookie ends with the session, as one opened with a key ends with the key
  const watch = sessionWatch({
    store: d.store.dashboard,
    clock: d.clock,
    timers: d.timers,
    everyMs: d.sessionCheckMs,
    onError: (e) => d.log('session check failed', { error: errorText(e) }),
  });
  const routes: AdminRoute[] = [...settingsRoutes(d), ...workRoutes(d, { sessions: watch })];
  const throttle = new AdminThrottle({ limiter: d.limiter, perKey: d.limits, authFailures: d.authFailures });

  /**
   * The admin key presented (Bearer, or the sign-in body) from `address`: it must be live and of trust admin. An
   * address past its failures is refused before the key is looked at; a key that fails counts against it (nothing
   * presented, or a live key of a lower trust, is no guess and counts not).
   */
  async function adminKey(presented: string | undefined, address: string) {
    const check = await throttle.authenticate(address, presented !== undefined, verifyKey, {
      hasher: d.hasher,
      keys: d.store.keys,
      clock: d.clock,
      presented,
      log: d.log,
    });
    if (!check.ok)
      throw new AdminError(
        401,
        'unauthorized',
        check.why === 'missing'
          ? 'Sign in with an admin key'
          : `API key ${check.why === 'revoked' ? 'revoked' : check.why === 'expired' ? 'expired' : check.why === 'damaged' ? 'cannot be verified' : 'invalid'}`,
      );
    if (check.key.trust !== 'admin') throw new AdminError(403, 'forbidden', 'Only an admin key may manage a workspace');
    d.usage.seen(check.key.id, d.clock.now());
    return check.key;
  }

  /** The session of the cookie, while the key that opened it is still live (revoking it signs the dashboard out). */
  async function sessionOf(req: AdminHttpRequest): Promise<Session | undefined> {
    const s = await sessions.get(cookieValue(req.cookie, SESSION_COOKIE));
    if (!s) return undefined;
    const key = await d.store.keys.get(s.keyId);
    if (!key || key.revokedAt !== null || (key.expiresAt !== null && key.expiresAt <= d.clock.now())) {
      await sessions.end(s);
      return undefined;
    }
    return s;
  }

  const parseBody = (req: AdminHttpRequest): unknown => {
    if (req.body.length === 0) return {};
    if (!/^application\/json\b/i.test(req.contentType ?? '')) throw new AdminError(415, 'unsupported_media_type', 'Send the body as application/json');
    try {
      return JSON.parse(req.body.toString('utf8'));
    } catch {
      throw new AdminError(400, 'invalid_json', 'The body is not valid JSON');
    }
  };

  async function session(req: AdminHttpRequest): Promise<HttpReply> {
    if (req.method === 'POST') {
      const p = SignIn.safeParse(parseBody(req));
      if (!p.success) throw new AdminError(400, 'invalid_input', 'key: an admin key is required', 'key');
      const key = await adminKey(p.data.key, req.address);
      const limitHeaders = await throttle.spend(key.id);
      const { session: s, cookie } = await sessions.create({ workspace: key.workspaceId, keyId: key.id });
      d.log('dashboard sign-in', { workspace: key.workspaceId, key: key.id });
      return json(
        200,
        { workspace: s.workspace, csrf: s.csrf, expires_at: new Date(s.expiresAt).toISOString() },
        { ...limitHeaders, 'Set-Cookie': sessionCookie({ id: cookie, maxAgeSeconds: Math.floor(sessions.ttlMs / 1000), tls: req.tls }) },
      );
    }
    const s = await sessionOf(req);
    if (req.method === 'GET') {
      if (!s) throw new AdminError(401, 'unauthorized', 'Not signed in');
      const limitHeaders = await throttle.spend(s.keyId);
      return json(200, { workspace: s.workspace, csrf: s.csrf, expires_at: new Date(s.expiresAt).toISOString() }, limitHeaders);
    }
    if (req.method === 'DELETE') {
      if (s && !csrfMatches(s, req.csrf)) throw new AdminError(403, 'csrf', 'Missing or wrong X-CSRF-Token');
      if (s) await sessions.end(s);
      return json(200, { signed_out: true }, { 'Set-Cookie': sessionCookie({ id: '', maxAgeSeconds: 0, tls: req.tls }) });
    }
    throw new AdminError(405, 'method_not_allowed', `${req.method} is not allowed here`);
  }

  /**
   * Who calls: an admin key as Bearer (no CSRF: a browser never sends it by itself), or a session cookie. Each call
   * spends one of that key's admin budget (a session's, of the key that signed in); `headers` tell what is left.
   */
  async function caller(req: AdminHttpRequest): Promise<{ workspace: string; keyId: string; sessionId?: string; headers: Record<string, string> }> {
    if (req.authorization) {
      const key = await adminKey(presentedKey(req.authorization), req.address);
      return { workspace: key.workspaceId, keyId: key.id, headers: await throttle.spend(key.id) };
    }
    const s = await sessionOf(req);
    if (!s) throw new AdminError(401, 'unauthorized', 'Not signed in');
    if (req.method !== 'GET' && !csrfMatches(s, req.csrf)) throw new AdminError(403, 'csrf', 'Missing or wrong X-CSRF-Token');
    return { workspace: s.workspace, keyId: s.keyId, sessionId: s.id, headers: await throttle.spend(s.keyId) };
  }

  async function api(req: AdminHttpRequest): Promise<HttpReply> {
    const sub = req.path.slice('/api/admin'.length) || '/';
    if (sub === '/session') return session(req);
    let pathMatched = false;
    for (const r of routes) {
      const m = r.path.exec(sub);
      if (!m) continue;
      pathMatched = true;
      if (r.method !== req.method) continue;
      const { workspace, keyId, sessionId, headers } = await caller(req);
      const params = m.slice(1).map((p) => {
        try {
          return decodeURIComponent(p);
        } catch {
          throw new AdminError(400, 'invalid_path', 'A malformed escape in the path');
        }
      });
      const out = await r.handler({
        workspace,
        keyId,
        ...(sessionId !== undefined && { sessionId }),
        params,
        body: parseBody(req),
        query: new URLSearchParams(req.query),
        req,
      });
      const reply = out instanceof Reply ? out.reply : json(200, out);
      return { ...reply, headers: { ...headers, ...reply.headers } };
    }
    if (pathMatched) throw new AdminError(405, 'method_not_allowed', `${req.method} is not allowed on ${req.path}`);
    throw new AdminError(404, 'not_found', `No admin route ${req.method} ${req.path}`);
  }

  return {
    maxBodyBytes: d.maxBodyBytes,
    refusal: (o) => json(o.status, { error: o.error, message: o.message }),
    async handle(req) {
      if (!req.path.startsWith('/api/admin')) return serveAsset(req.path);
      try {
        return await api(req);
      } catch (e) {
        // before the admin modules' codes: a client's outage error may carry an ERR_ code of its own
        if (isStoreUnavailable(e)) {
          d.log('store unavailable', { path: req.path, method: req.method, error: errorText(e) });
          return errorReply(new AdminStoreUnavailable());
        }
        const known = asAdminError(e);
        if (known) return errorReply(known);
        d.log('admin call failed', { path: req.path, method: req.method, error: errorText(e) });
        return errorReply(new AdminError(500, 'internal_error', 'Internal error'));
      }
    },
  };
}
