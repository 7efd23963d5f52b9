// Dashboard sessions: an opaque token in an HttpOnly cookie maps to (workspace, the admin key that signed in, a CSRF
// token, an expiry). Kept in the store (store.dashboard), so every gateway instance on one store knows every session
// and a restart signs no one out. The store holds only a hash of the token, as it holds API keys only hashed: whoever
// reads the store (a Redis SCAN, a copy of the LMDB file, a backup) learns no cookie to sign in with. Expiry is judged
// here on the injected clock; the store only collects abandoned sessions.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DashboardSession } from '../../protocol/dashboard.js';
import type { Clock, Timers } from '../../runtime/clock.js';
import type { DashboardStore } from '../../runtime/store/types.js';
import { LapseWatch } from '../lapse-watch.js';

export type Session = DashboardSession;

export const SESSION_COOKIE = 'a2a_session';

const token = () => randomBytes(32).toString('base64url');

/** The store's id of a session: a hash of its cookie token (256 random bits: no secret key is needed against guessing). */
const storedId = (cookieToken: string) => createHash('sha256').update(cookieToken).digest('base64url');

export class SessionStore {
  constructor(private readonly o: { store: Pick<DashboardStore, 'putSession' | 'getSession' | 'deleteSession'>; clock: Clock; ttlMs: number }) {}

  /** A new session; `cookie` is the token for the Set-Cookie header, shown this once and never stored. */
  async create(o: { workspace: string; keyId: string }): Promise<{ session: Session; cookie: string }> {
    const now = this.o.clock.now();
    const cookie = token();
    const session: Session = { id: storedId(cookie), workspace: o.workspace, keyId: o.keyId, csrf: token(), expiresAt: now + this.o.ttlMs };
    await this.o.store.putSession(session, { now });
    return { session, cookie };
  }

  /** The live session of a cookie's token; an expired one is dropped. */
  async get(cookie: string | undefined): Promise<Session | undefined> {
    // a cookie value is ours only if it looks like one of our tokens
    if (!cookie || !/^[A-Za-z0-9_-]{43}$/.test(cookie)) return undefined;
    const s = await this.o.store.getSession(storedId(cookie));
    if (!s) return undefined;
    if (s.expiresAt <= this.o.clock.now()) {
      await this.o.store.deleteSession(s.id);
      return undefined;
    }
    return s;
  }

  async end(s: Session): Promise<void> {
    await this.o.store.deleteSession(s.id);
  }

  get ttlMs(): number {
    return this.o.ttlMs;
  }
}

/** Why a session's live views end: signed out (its record gone, on any instance) or expired. */
export type SessionEnd = 'signed out' | 'expired';

/** Watches sessions as KeyWatch watches keys: a view opened with a session's cookie ends within `everyMs` of its end. */
export const sessionWatch = (o: {
  store: Pick<DashboardStore, 'getSession'>;
  clock: Clock;
  timers: Timers;
  everyMs: number;
  onError?: (e: unknown) => void;
}): LapseWatch<SessionEnd> =>
  new LapseWatch<SessionEnd>({
    ...o,
    lapsed: async (id, now) => {
      const s = await o.store.getSession(id);
      return !s ? 'signed out' : s.expiresAt <= now ? 'expired' : undefined;
    },
  });

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
