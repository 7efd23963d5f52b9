// Dashboard sessions: an opaque id in an HttpOnly cookie maps to (workspace, the admin key that signed in, a CSRF
// token, an expiry). Kept in this process's memory: a restart signs everyone out, which a sign-in with the key undoes.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../runtime/clock.js';

export interface Session {
  id: string;
  workspace: string;
  /** the admin key that signed in: the session ends when it is revoked or expires */
  keyId: string;
  csrf: string;
  expiresAt: number;
}

export const SESSION_COOKIE = 'a2a_session';

const token = () => randomBytes(32).toString('base64url');

export class SessionStore {
  private readonly byId = new Map<string, Session>();

  constructor(private readonly o: { clock: Clock; ttlMs: number }) {}

  create(o: { workspace: string; keyId: string }): Session {
    this.sweep();
    const s: Session = { id: token(), workspace: o.workspace, keyId: o.keyId, csrf: token(), expiresAt: this.o.clock.now() + this.o.ttlMs };
    this.byId.set(s.id, s);
    return s;
  }

  /** The live session of this id; an expired one is dropped. */
  get(id: string | undefined): Session | undefined {
    if (!id) return undefined;
    const s = this.byId.get(id);
    if (!s) return undefined;
    if (s.expiresAt <= this.o.clock.now()) {
      this.byId.delete(id);
      return undefined;
    }
    return s;
  }

  end(id: string): void {
    this.byId.delete(id);
  }

  get ttlMs(): number {
    return this.o.ttlMs;
  }

  private sweep(): void {
    const now = this.o.clock.now();
    for (const [id, s] of this.byId) if (s.expiresAt <= now) this.byId.delete(id);
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
