// The admin UI's password (asked when one is configured, which a bind that is not loopback requires): a login form sets a
// random session token in an HttpOnly, SameSite=Strict cookie (Secure behind a trusted TLS proxy); scripts and
// Prometheus may send HTTP Basic instead.
// Failed passwords are counted per client address, whichever way they are tried (form or Basic): an address past its
// budget is refused even the right password until its window frees, and other addresses are not locked by it. Behind
// a trusted proxy (admin_trusted_proxies) the client is the one its X-Forwarded-For names, by the gateway's rule.
// Without a password only loopback Host names are served (a DNS-rebinding page cannot read the task log).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RateLimits } from '../../src/protocol/records.js';
import type { Clock } from '../../src/runtime/clock.js';
import { AuthFailureThrottle, isAuthBlocked } from '../../src/runtime/limiter/auth-throttle.js';
import { createMemoryLimiter } from '../../src/runtime/limiter/memory.js';
import type { TrustedProxies } from '../../src/runtime/net/client-address.js';
import { isLoopback } from '../config.js';

export const COOKIE = 'a2a_relay_session';
const SESSION_MS = 12 * 60 * 60 * 1000;
/** sessions kept at once: one more sign-in ends the oldest (each sign-in takes the password, but nothing else bounds them) */
export const MAX_SESSIONS = 100;
/** failed passwords allowed per client address: 10 a minute (as the form allowed in all), 100 an hour */
const FAILURES: RateLimits = { perMinute: 10, perHour: 100 };

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** Whether a request may in: a live session or the right password; else nothing presented, a wrong one, or a lock. */
export type Admission = { ok: true } | { ok: false; why: 'missing' | 'wrong' } | { ok: false; why: 'locked'; retryAfterMs: number };

/** A login: the new session's token, or why not. */
export type Login = { ok: true; token: string } | { ok: false; why: 'wrong' } | { ok: false; why: 'locked'; retryAfterMs: number };

export interface AdminAuth {
  /** a password is configured */
  readonly required: boolean;
  /** the request may see the UI and the API (a session cookie, or HTTP Basic: that counts as a try of the password) */
  allowed(req: IncomingMessage): Promise<Admission>;
  /** the Host header names this server in a way we serve (always true with a password) */
  hostAllowed(req: IncomingMessage, bind: string): boolean;
  /** checks a password from the form, sent from `address` */
  login(password: string, address: string): Promise<Login>;
  /** ends the request's session; answers its token (to end what it holds open), if it had one */
  logout(req: IncomingMessage): string | undefined;
  /** the token of the request's live session (undefined for HTTP Basic, no password, or none) */
  sessionOf(req: IncomingMessage): string | undefined;
  /** the session of `token` is still live (not signed out, not expired, not evicted) */
  live(token: string): boolean;
  /** how many sessions are kept now (expired ones dropped first) */
  sessions(): number;
}

function cookieOf(req: IncomingMessage): string | undefined {
  const header = req.headers.cookie ?? '';
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === COOKIE) return v.join('=');
  }
  return undefined;
}

/** The connection's peer address, as the socket tells it. */
export const addressOf = (req: IncomingMessage) => req.socket.remoteAddress ?? '';

/**
 * The client's address, which the password throttle counts by: the peer, or, from a trusted proxy, the client its
 * X-Forwarded-For names (else a proxy in front makes every client one address: one caller's guesses lock out all).
 * From any other peer the header is ignored, so a caller cannot pick a fresh budget per request.
 */
export const clientAddressOf = (req: IncomingMessage, proxies: TrustedProxies | undefined): string => {
  const peer = addressOf(req);
  const forwardedFor = req.headers['x-forwarded-for'];
  if (proxies === undefined || forwardedFor === undefined) return peer;
  return proxies.clientAddress({ peer, forwardedFor: Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor });
};

/**
 * Whether the browser reached the UI over https, by the gateway's rule: a trusted proxy (admin_trusted_proxies) says
 * exactly `X-Forwarded-Proto: https`. From anyone else the header is not believed: a plain-HTTP client would get a
 * Secure cookie its browser then never sends back. The server itself speaks plain HTTP only.
 */
export const httpsOf = (req: IncomingMessage, proxies: TrustedProxies | undefined): boolean =>
  proxies !== undefined && req.headers['x-forwarded-proto'] === 'https' && proxies.trusts(addressOf(req));

export interface AdminAuthOptions {
  password: string | undefined;
  clock: Clock;
  proxies: TrustedProxies | undefined;
  /** a session ended here, by expiry or eviction (not by logout: its caller ends what it holds) */
  onSessionEnd?: (token: string) => void;
}

export function createAdminAuth(o: AdminAuthOptions): AdminAuth {
  const want = o.password === undefined ? undefined : digest(o.password);
  /** token -> expiry, oldest first (insertion order: every session lasts SESSION_MS) */
  const sessions = new Map<string, number>();
  const end = (token: string) => {
    sessions.delete(token);
    o.onSessionEnd?.(token);
  };
  /** expired sessions leave memory at the next request, not only at the next sign-in */
  const prune = () => {
    const now = o.clock.now();
    for (const [t, until] of sessions) if (until <= now) end(t);
  };
  const throttle = new AuthFailureThrottle({ limiter: createMemoryLimiter({ clock: o.clock }), limits: FAILURES, bucket: 'relay-admin-auth' });
  const check = async (given: string) => ({ ok: want !== undefined && timingSafeEqual(digest(given), want) });
  /** one try of the password from `address`: right, wrong, or refused unread for an address past its budget */
  const attempt = async (address: string, given: string) => {
    const r = await throttle.authenticate(address, true, check, given);
    if (isAuthBlocked(r)) return { ok: false as const, why: 'locked' as const, retryAfterMs: r.blocked.retryAfterMs ?? r.blocked.resetMs };
    return r.ok ? { ok: true as const } : { ok: false as const, why: 'wrong' as const };
  };

  const live = (token: string) => {
    prune();
    const until = sessions.get(token);
    return until !== undefined && until > o.clock.now();
  };
  const sessionOf = (req: IncomingMessage) => {
    const token = cookieOf(req);
    return token !== undefined && live(token) ? token : undefined;
  };

  return {
    required: want !== undefined,
    async allowed(req) {
      if (want === undefined || sessionOf(req) !== undefined) return { ok: true };
      const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '');
      if (!basic) return { ok: false, why: 'missing' };
      const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
      return attempt(clientAddressOf(req, o.proxies), decoded.slice(decoded.indexOf(':') + 1));
    },
    hostAllowed(req, bind) {
      if (want !== undefined) return true;
      const host = (req.headers.host ?? '').replace(/:\d+$/, '');
      return isLoopback(host) || host === bind || host === `[${bind}]`;
    },
    async login(password, address) {
      const r = await attempt(address, password);
      if (!r.ok) return r;
      prune();
      for (const t of sessions.keys()) {
        if (sessions.size < MAX_SESSIONS) break;
        end(t);
      }
      const token = randomBytes(32).toString('base64url');
      sessions.set(token, o.clock.now() + SESSION_MS);
      return { ok: true, token };
    },
    logout(req) {
      const token = cookieOf(req);
      if (token === undefined || !sessions.delete(token)) return undefined;
      return token;
    },
    sessionOf,
    live,
    sessions() {
      prune();
      return sessions.size;
    },
  };
}

/**
 * The session cookie's header: HttpOnly (no script reads it), SameSite=Strict (no other site sends it), Secure when
 * the UI was reached over https (the browser then never sends it in clear).
 */
export const sessionCookie = (token: string, o: { https: boolean }) =>
  `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_MS / 1000}${o.https ? '; Secure' : ''}`;
export const clearedCookie = (o: { https: boolean }) => `${COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${o.https ? '; Secure' : ''}`;
