// How a request proves who we are to a remote, per credential kind; an OAuth token is cached until shortly before it
// expires, fetched once for all concurrent callers, and dropped when the remote refuses it. (mTLS is on the agent.)
import type { Credentials } from '../../protocol/connections.js';
import type { Clock } from '../clock.js';
import { basicAuth, type Token } from './oauth.js';
import { scrubbable } from './scrub.js';

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
  /**
   * What must never come back out of the remote's answers (scrub.ts): the static secrets, and an OAuth client's
   * recent tokens (the remote saw those, not the client secret, but its token endpoint may echo either).
   */
  secrets(): readonly string[];
}

export interface AuthOptions {
  credentials: Credentials;
  clock: Clock;
  /** renew a token this long before it expires (at most half its lifetime before) */
  refreshMarginMs: number;
  /** bounded by its own deadline, not by a caller's signal: the token serves every caller */
  fetchToken(): Promise<Token>;
}

/**
 * The secrets of a credential that never change (an OAuth client's tokens come on top): the ones a remote or a token
 * endpoint receives. An mTLS private key never leaves this process, so no remote can echo it.
 */
export function staticSecrets(c: Credentials): string[] {
  switch (c.kind) {
    case 'none':
    case 'mtls':
      return [];
    case 'apikey':
      return scrubbable([c.value]);
    case 'bearer':
      return scrubbable([c.token]);
    case 'oauth':
      return scrubbable([c.clientSecret, basicAuth(c.clientId, c.clientSecret)]);
  }
}

const fixed = (headers: Record<string, string>, c: Credentials): Auth => {
  const kept = staticSecrets(c);
  return { proof: async () => ({ headers }), refused: () => false, reset: () => {}, secrets: () => kept };
};

export function createAuth(o: AuthOptions): Auth {
  const c = o.credentials;
  switch (c.kind) {
    case 'none':
    case 'mtls':
      return fixed({}, c);
    case 'apikey':
      return fixed({ [c.header.toLowerCase()]: c.value }, c);
    case 'bearer':
      return fixed({ authorization: `Bearer ${c.token}` }, c);
    case 'oauth':
      return oauthAuth(o, c);
  }
}

/** How many of an OAuth client's latest tokens are scrubbed from answers (one given up may still be echoed a while). */
const TOKENS_SCRUBBED = 4;

function oauthAuth(o: AuthOptions, c: Extract<Credentials, { kind: 'oauth' }>): Auth {
  let cached: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;
  const tokens: string[] = [];
  const fixedOnes = staticSecrets(c);
  let secrets = fixedOnes;
  const issued = (token: string) => {
    if (tokens.includes(token)) return;
    tokens.push(token);
    if (tokens.length > TOKENS_SCRUBBED) tokens.shift();
    secrets = scrubbable([...fixedOnes, ...tokens]);
  };

  const renew = (): Promise<string> => {
    // one fetch for every caller that finds no fresh token
    pending ??= o
      .fetchToken()
      .then((t) => {
        const now = o.clock.now();
        const life = t.expiresIn === undefined ? Number.POSITIVE_INFINITY : t.expiresIn * 1000;
        cached = { token: t.accessToken, renewAt: now + life - Math.min(o.refreshMarginMs, life / 2) };
        issued(t.accessToken);
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
    secrets: () => secrets,
  };
}
