// Test support: a real OAuth 2.0 token endpoint (oauth2-mock-server on loopback, issuing signed JWTs) that checks the
// client's id and secret, and the resource server's check of those tokens (signature against the issuer's keys,
// expiry, revocation), as express middleware to put in front of a remote.
import { createPublicKey, randomUUID, verify, type JsonWebKey } from 'node:crypto';
import type { RequestHandler } from 'express';
import { OAuth2Server } from 'oauth2-mock-server';

export interface OAuthIssuer {
  tokenUrl: string;
  /** every token the endpoint issued, in order */
  issued: string[];
  /** every token request, granted or not */
  requests: number;
  /** express middleware: a request needs a valid, unexpired, unrevoked Bearer token of this issuer, else 401 */
  check: RequestHandler;
  /** tokens the resource server refuses from now on */
  revoke(token: string): void;
  /** refuse every token (the remote refuses us whatever we show) */
  refuseAll(on: boolean): void;
  close(): Promise<void>;
}

const b64json = (s: string): any => JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));

export async function startOAuth(o: { clientId: string; clientSecret: string; scope?: string }): Promise<OAuthIssuer> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  // the mock names itself `localhost`, which the SSRF guard refuses whatever the allowlist: address it by its IP
  const tokenUrl = new URL('/token', server.issuer.url!);
  tokenUrl.hostname = '127.0.0.1';
  const revoked = new Set<string>();
  let refuseEvery = false;
  const me: OAuthIssuer = {
    tokenUrl: tokenUrl.toString(),
    issued: [],
    requests: 0,
    check: (req, res, next) => {
      const refuse = (why: string) => res.status(401).json({ jsonrpc: '2.0', id: null, error: { code: -32003, message: why } });
      const m = /^Bearer (.+)$/.exec(req.header('authorization') ?? '');
      if (!m) return refuse('no bearer token');
      const token = m[1]!;
      const [h, p, s] = token.split('.');
      if (!h || !p || !s) return refuse('not a JWT');
      const header = b64json(h);
      const jwk = (server.issuer.keys.toJSON() as JsonWebKey[]).find((k) => k.kid === header.kid);
      if (!jwk) return refuse('unknown signing key');
      if (!verify('sha256', Buffer.from(`${h}.${p}`), createPublicKey({ key: jwk, format: 'jwk' }), Buffer.from(s, 'base64url')))
        return refuse('bad signature');
      const payload = b64json(p);
      if (typeof payload.exp !== 'number' || payload.exp * 1000 <= Date.now()) return refuse('expired');
      if (o.scope !== undefined && payload.scope !== o.scope) return refuse('wrong scope');
      if (refuseEvery || revoked.has(token)) return refuse('revoked');
      next();
    },
    revoke: (token) => revoked.add(token),
    refuseAll: (on) => {
      refuseEvery = on;
    },
    close: () => server.stop(),
  };
  // two tokens issued in the same second would be the same string: a jti tells them apart
  server.service.on('beforeTokenSigning', (token) => {
    token.payload.jti = randomUUID();
  });
  // the mock issues to anyone: this is the check of the client's id and secret (HTTP Basic, RFC 6749 §2.3.1)
  server.service.on('beforeResponse', (response, req) => {
    me.requests++;
    const auth = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    const [id, secret] = auth
      ? Buffer.from(auth[1]!, 'base64')
          .toString('utf8')
          .split(':')
          .map((x) => decodeURIComponent(x.replace(/\+/g, ' ')))
      : [];
    if (id !== o.clientId || secret !== o.clientSecret) {
      response.statusCode = 401;
      response.body = { error: 'invalid_client', error_description: 'client authentication failed' };
      return;
    }
    const body = response.body as { access_token?: string };
    if (body.access_token) me.issued.push(body.access_token);
  });
  return me;
}
