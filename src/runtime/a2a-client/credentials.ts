// How a request proves who we are to a remote, per credential kind; an OAuth token is cached until shortly before it
// expires, fetched once for all concurrent callers, and dropped when the remote refuses it. (mTLS is on the agent.)
import type { Credentials } from '../../protocol/connections.js';
import type { Clock } from '../clock.js';
import type { Token } from './oauth.js';

export interface Proof {
  headers: Record<string, string>;
  /** the OAuth token the headers carry: what `refused` drops */
  token?: string;
}

export interface Auth {
  proof(): Promise<Proof>;
  /** the remote answered 401/403 to this proof: true when a fresh one is worth one more try (a dropped OAuth token) */
  refused(p: Proof): boolean;
  /** forgets a cached token */
  reset(): void;
}

export interface AuthOptions {
  credentials: Credentials;
  clock: Clock;
  /** renew a token this long before it expires (at most half its lifetime before) */
  refreshMarginMs: number;
  /** bounded by its own deadline, not by a caller's signal: the token serves every caller */
  fetchToken(): Promise<Token>;
}

const fixed = (headers: Record<string, string>): Auth => ({ proof: async () => ({ headers }), refused: () => false, reset: () => {} });

export function createAuth(o: AuthOptions): Auth {
  const c = o.credentials;
  switch (c.kind) {
    case 'none':
    case 'mtls':
      return fixed({});
    case 'apikey':
      return fixed({ [c.header.toLowerCase()]: c.value });
    case 'bearer':
      return fixed({ authorization: `Bearer ${c.token}` });
    case 'oauth':
      return oauthAuth(o);
  }
}

function oauthAuth(o: AuthOptions): Auth {
  let cached: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;

  const renew = (): Promise<string> => {
    // one fetch for every caller that finds no fresh token
    pending ??= o
      .fetchToken()
      .then((t) => {
        const now = o.clock.now();
        const life = t.expiresIn === undefined ? Number.POSITIVE_INFINITY : t.expiresIn * 1000;
        cached = { token: t.accessToken, renewAt: now + life - Math.min(o.refreshMarginMs, life / 2) };
        return t.accessToken;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };

  return {
    async proof() {
      const token = cached && o.clock.now() < cached.renewAt ? cached.token : await renew();
      return { headers: { authorization: `Bearer ${token}` }, token };
    },
    refused(p) {
      if (cached?.token === p.token) cached = undefined;
      return true;
    },
    reset() {
      cached = undefined;
    },
  };
}
