// The admin UI's password (asked when one is configured, which a bind that is not loopback requires): a login form sets a
// random session token in an HttpOnly, SameSite=Strict cookie; scripts and Prometheus may send HTTP Basic instead.
// Without a password only loopback Host names are served (a DNS-rebinding page cannot read the task log).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Clock } from '../../src/runtime/clock.js';
import { isLoopback } from '../config.js';

export const COOKIE = 'a2a_relay_session';
const SESSION_MS = 12 * 60 * 60 * 1000;
/** failed logins allowed per minute before the form refuses for the rest of it */
const FAILURES_PER_MINUTE = 10;

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

export interface AdminAuth {
  /** a password is configured */
  readonly required: boolean;
  /** the request may see the UI and the API */
  allowed(req: IncomingMessage): boolean;
  /** the Host header names this server in a way we serve (always true with a password) */
  hostAllowed(req: IncomingMessage, bind: string): boolean;
  /** checks a password from the form: a new session token, 'locked' after too many failures, or undefined */
  login(password: string): string | 'locked' | undefined;
  logout(req: IncomingMessage): void;
}

function cookieOf(req: IncomingMessage): string | undefined {
  const header = req.headers.cookie ?? '';
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === COOKIE) return v.join('=');
  }
  return undefined;
}

export function createAdminAuth(o: { password: string | undefined; clock: Clock }): AdminAuth {
  const want = o.password === undefined ? undefined : digest(o.password);
  const sessions = new Map<string, number>();
  let failures: number[] = [];
  const matches = (given: string) => want !== undefined && timingSafeEqual(digest(given), want);

  return {
    required: want !== undefined,
    allowed(req) {
      if (want === undefined) return true;
      const token = cookieOf(req);
      const until = token === undefined ? undefined : sessions.get(token);
      if (until !== undefined && until > o.clock.now()) return true;
      const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '');
      if (!basic) return false;
      const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
      return matches(decoded.slice(decoded.indexOf(':') + 1));
    },
    hostAllowed(req, bind) {
      if (want !== undefined) return true;
      const host = (req.headers.host ?? '').replace(/:\d+$/, '');
      return isLoopback(host) || host === bind || host === `[${bind}]`;
    },
    login(password) {
      const now = o.clock.now();
      failures = failures.filter((t) => t > now - 60_000);
      if (failures.length >= FAILURES_PER_MINUTE) return 'locked';
      if (!matches(password)) {
        failures.push(now);
        return undefined;
      }
      for (const [t, until] of sessions) if (until <= now) sessions.delete(t);
      const token = randomBytes(32).toString('base64url');
      sessions.set(token, now + SESSION_MS);
      return token;
    },
    logout(req) {
      const token = cookieOf(req);
      if (token !== undefined) sessions.delete(token);
    },
  };
}

/** The session cookie's header: HttpOnly (no script reads it), SameSite=Strict (no other site sends it). */
export const sessionCookie = (token: string) => `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_MS / 1000}`;
export const clearedCookie = () => `${COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;
