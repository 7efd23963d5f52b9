// Dashboard sessions: an opaque id in an HttpOnly cookie maps to (workspace, the admin key that signed in, a CSRF
// token, an expiry). Kept in the store (store.dashboard), so every gateway instance on one store knows every session
// and a restart signs no one out. Expiry is judged here on the injected clock; the store only collects abandoned ones.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { DashboardSession } from '../../protocol/dashboard.js';
import type { Clock } from '../../runtime/clock.js';
import type { DashboardStore } from '../../runtime/store/types.js';

export type Session = DashboardSession;

export const SESSION_COOKIE = 'a2a_session';

const token = () => randomBytes(32).toString('base64url');

export class SessionStore {
  constructor(private readonly o: { store: Pick<DashboardStore, 'putSession' | 'getSession' | 'deleteSession'>; clock: Clock; ttlMs: number }) {}

  async create(o: { workspace: string; keyId: string }): Promise<Session> {
    const now = this.o.clock.now();
    const s: Session = { id: token(), workspace: o.workspace, keyId: o.keyId, csrf: token(), expiresAt: now + this.o.ttlMs };
    await this.o.store.putSession(s, { now });
    return s;
  }

  /** The live session of this id; an expired one is dropped. */
  async get(id: string | undefined): Promise<Session | undefined> {
    // a cookie value is ours only if it looks like one of our tokens: nothing else reaches the store's key names
    if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
    const s = await this.o.store.getSession(id);
    if (!s) return undefined;
    if (s.expiresAt <= this.o.clock.now()) {
      await this.o.store.deleteSession(id);
      return undefined;
    }
    return s;
  }

  async end(id: string): Promise<void> {
    await this.o.store.deleteSession(id);
  }

  get ttlMs(): number {
    return this.o.ttlMs;
  }
}

/** Constant-time comparison of a presented CSRF token with the session's. */
export function csrfMatches(s: Session, presented: string | undefined): boolean {
  if (!presented) return false;
  const a = Buffer.from(s.csrf);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The value of one cookie in a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Set-Cookie for a session: HttpOnly, SameSite=Strict, Path=/ , Max-Age, and Secure when served over TLS. */
export function sessionCookie(o: { id: string; maxAgeSeconds: number; tls: boolean }): string {
  return `${SESSION_COOKIE}=${o.id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${o.maxAgeSeconds}${o.tls ? '; Secure' : ''}`;
}
