// Credentials against real checks: OAuth 2.0 client credentials (a real token endpoint issuing signed, expiring JWTs,
// and a resource server that verifies them), refreshed after expiry (ManualClock) and after a 401; mTLS against a TLS
// listener that asks for a client certificate (certificates made with openssl in the test).
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import type { RemoteEndpoint } from '../../src/runtime/a2a-client/types.js';
import { testClient, userMessage } from '../support/a2a-client.js';
import { makeCerts, type Certs } from '../support/certs.js';
import { startOAuth, type OAuthIssuer } from '../support/oauth.js';
import { startSdkRemote, type SdkRemote } from '../support/sdk-remote.js';

const CLIENT = { clientId: 'gateway-client', clientSecret: 's3cret-value-!', scope: 'a2a.call' };

async function oauthRemote(t: { teardown(fn: () => unknown): void }): Promise<{ issuer: OAuthIssuer; r: SdkRemote }> {
  const issuer = await startOAuth(CLIENT);
  t.teardown(() => issuer.close());
  const r = await startSdkRemote({ before: [issuer.check] });
  t.teardown(() => r.close());
  return { issuer, r };
}
const oauth = (r: SdkRemote, issuer: OAuthIssuer, over: Partial<typeof CLIENT> = {}): RemoteEndpoint => ({
  url: r.url,
  credentials: { kind: 'oauth', tokenUrl: issuer.tokenUrl, ...CLIENT, ...over },
});
const statuses = (r: SdkRemote) => r.requests.map((q) => q.status);

t.test('OAuth: one token for many calls, renewed shortly before it expires (ManualClock)', async (t) => {
  const { issuer, r } = await oauthRemote(t);
  const clock = new ManualClock(Date.now());
  const c = testClient({ clock, timers: clock, tokenRefreshMarginMs: 30_000 });
  t.teardown(() => c.close());
  const endpoint = oauth(r, issuer);
  await c.send({ endpoint, message: userMessage('one') });
  await c.send({ endpoint, message: userMessage('two') });
  t.equal(issuer.requests, 1, 'one token request for the card and two calls');
  t.ok(r.requests.every((q) => q.headers.authorization === `Bearer ${issuer.issued[0]}`));
  t.match(issuer.issued[0], /^ey/, 'a signed JWT');

  // the token lives 3600 s: it is kept until 30 s before that
  clock.advance(3_600_000 - 30_001);
  await c.send({ endpoint, message: userMessage('still the first token') });
  t.equal(issuer.requests, 1);
  clock.advance(1);
  await c.send({ endpoint, message: userMessage('renewed') });
  t.equal(issuer.requests, 2, 'renewed once it was due');
  t.notSame(issuer.issued[1], issuer.issued[0]);
  t.equal(r.requests.at(-1)?.headers.authorization, `Bearer ${issuer.issued[1]}`);
  await r.answered();
  // the card went stale meanwhile too: it was revalidated (304)
  t.same(statuses(r), [200, 200, 200, 304, 200, 200], 'the remote never refused a call');
});

t.test('OAuth: a 401 to a token drops it, and the call is tried once more with a fresh one', async (t) => {
  const { issuer, r } = await oauthRemote(t);
  const c = testClient();
  t.teardown(() => c.close());
  const endpoint = oauth(r, issuer);
  await c.send({ endpoint, message: userMessage('first') });
  issuer.revoke(issuer.issued[0]!);
  const before = r.requests.length;
  const task = await c.send({ endpoint, message: userMessage('after revoke') });
  t.equal(task.status.state, 'completed');
  t.equal(issuer.requests, 2, 'one new token');
  await r.answered();
  t.same(
    r.requests.slice(before).map((q) => q.status),
    [401, 200],
    'refused once, then answered',
  );

  // a remote that refuses every token: one refresh, then unauthorized (no loop)
  issuer.refuseAll(true);
  const tokensBefore = issuer.requests;
  const err = await c.send({ endpoint, message: userMessage('refused') }).catch((e: unknown) => e);
  t.match(err, { code: 'unauthorized', message: /HTTP 401/ });
  t.equal(issuer.requests, tokensBefore + 1, 'exactly one refresh');
  issuer.refuseAll(false);
  t.equal((await c.send({ endpoint, message: userMessage('back') })).status.state, 'completed');
});

t.test('OAuth: a token endpoint that refuses our secret is token_failed, and the remote sees nothing', async (t) => {
  const { issuer, r } = await oauthRemote(t);
  const c = testClient();
  t.teardown(() => c.close());
  const err = await c.send({ endpoint: oauth(r, issuer, { clientSecret: 'wrong-secret-xyz' }), message: userMessage('x') }).catch((e: unknown) => e);
  t.match(err, { code: 'token_failed', message: /HTTP 401: invalid_client/ });
  t.notMatch((err as Error).message, /wrong-secret-xyz|s3cret/, 'no secret in the error');
  t.equal(r.requests.length, 0);
  const refused = await c
    .send({ endpoint: { url: r.url, credentials: { kind: 'oauth', tokenUrl: 'http://10.1.2.3/token', ...CLIENT } }, message: userMessage('x') })
    .catch((e: unknown) => e);
  t.match(refused, { code: 'url_refused', message: /private address 10\.1\.2\.3/ }, 'the token URL passes the SSRF guard too');
});

t.test('mTLS: the client certificate opens a listener that demands one; others are turned away', async (t) => {
  const certs: Certs = await makeCerts();
  t.teardown(() => certs.dispose());
  const r = await startSdkRemote({ tls: { key: certs.server.key, cert: certs.server.cert, ca: certs.ca.cert, requestCert: true } });
  t.teardown(() => r.close());
  t.match(r.url, /^https:\/\/127\.0\.0\.1:/);
  const c = testClient();
  t.teardown(() => c.close());

  const mtls: RemoteEndpoint = { url: r.url, credentials: { kind: 'mtls', cert: certs.client.cert, key: certs.client.key, ca: certs.ca.cert } };
  const d = await c.discover(mtls);
  t.equal(d.card.url, r.url);
  const task = await c.send({ endpoint: mtls, message: userMessage('over mtls') });
  t.equal(task.status.state, 'completed');
  t.same(task.artifacts[0]?.parts, [{ kind: 'text', text: 'over mtls' }]);
  const served = r.requests.length;

  const stranger: RemoteEndpoint = { url: r.url, credentials: { kind: 'mtls', cert: certs.stranger.cert, key: certs.stranger.key, ca: certs.ca.cert } };
  t.match(await c.discover(stranger).catch((e: unknown) => e), { code: 'unreachable' }, 'a certificate of another CA is refused in the handshake');
  const untrusting: RemoteEndpoint = { url: r.url, credentials: { kind: 'mtls', cert: certs.client.cert, key: certs.client.key, ca: certs.stranger.cert } };
  t.match(
    await c.discover(untrusting).catch((e: unknown) => e),
    { code: 'unreachable', message: /certificate/i },
    'and we refuse a server our CA bundle does not vouch for',
  );
  t.equal(r.requests.length, served, 'neither got a request through');
});
