// Discovery against real servers on loopback: the card cache (a hit makes no request, ETag revalidation answered 304,
// expiry after the TTL on a ManualClock, Cache-Control max-age / no-cache / no-store / Age), the fallback to
// agent.json, dialect detection both ways, refusals of bad cards, and the SSRF guard on every URL.
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import type { RemoteEndpoint } from '../../src/runtime/a2a-client/types.js';
import { parseAllowlist, type Resolve } from '../../src/runtime/net/guard.js';
import { testClient, userMessage } from '../support/a2a-client.js';
import { cardServer } from '../support/card-server.js';
import { startTestGateway } from '../support/gateway.js';
import { startSdkRemote, type SdkRemote } from '../support/sdk-remote.js';

const TTL = 60_000;

const cardB = (url: string, extra: Record<string, unknown> = {}) => ({
  name: 'plain-b',
  description: 'a rev B card',
  url,
  version: '2.0',
  protocolVersion: '0.3.0',
  capabilities: { streaming: false },
  skills: [],
  ...extra,
});
const none = (url: string): RemoteEndpoint => ({ url, credentials: { kind: 'none' } });

async function sdk(t: { teardown(fn: () => unknown): void }): Promise<SdkRemote> {
  const r = await startSdkRemote();
  t.teardown(() => r.close());
  return r;
}

t.test('the SDK card: a cache hit makes no request, concurrent discoveries share one', async (t) => {
  const r = await sdk(t);
  const clock = new ManualClock(Date.now());
  const c = testClient({ clock, timers: clock, defaultCardTtlMs: TTL });
  t.teardown(() => c.close());
  const [a, b] = await Promise.all([c.discover(none(r.url)), c.discover(none(r.url))]);
  t.equal(a.card.name, 'sdk-echo');
  t.same(b, a);
  t.equal(r.cardFetches().length, 1, 'one fetch for two concurrent discoveries');
  await c.discover(none(r.url));
  await c.send({ endpoint: none(r.url), message: userMessage('hi') });
  t.equal(r.cardFetches().length, 1, 'a hit: no second request');
});

t.test('expiry after the default TTL (ManualClock), then revalidation with the ETag: 304 keeps the card', async (t) => {
  const r = await sdk(t);
  const clock = new ManualClock(Date.now());
  const c = testClient({ clock, timers: clock, defaultCardTtlMs: TTL });
  t.teardown(() => c.close());
  await c.discover(none(r.url));
  const etag = r.cardFetches()[0]?.headers['if-none-match'];
  t.equal(etag, undefined, 'the first fetch is unconditional');
  clock.advance(TTL - 1);
  await c.discover(none(r.url));
  t.equal(r.cardFetches().length, 1, 'fresh until the TTL ends');
  clock.advance(1);
  const d = await c.discover(none(r.url));
  await r.answered();
  const fetches = r.cardFetches();
  t.equal(fetches.length, 2, 'stale: asked again');
  t.match(fetches[1]?.headers['if-none-match'], /^W\/"/, 'with the ETag it was given');
  t.equal(fetches[1]?.status, 304, 'answered 304 Not Modified');
  t.equal(d.card.name, 'sdk-echo');
  await c.discover(none(r.url));
  t.equal(r.cardFetches().length, 2, 'the 304 made it fresh for another TTL');

  r.card.name = 'sdk-echo-renamed';
  clock.advance(TTL);
  t.equal((await c.discover(none(r.url))).card.name, 'sdk-echo-renamed', 'a changed card is answered 200 and replaces the cached one');
  await r.answered();
  t.same(
    r.cardFetches().map((f) => f.status),
    [200, 304, 200],
  );
  await c.discover(none(r.url), { fresh: true });
  t.equal(r.cardFetches().length, 4, 'fresh: true asks even while fresh');
});

t.test('Cache-Control: max-age (less Age) overrides the default TTL; no-cache revalidates each time; no-store keeps nothing', async (t) => {
  const s = await cardServer(t);
  const clock = new ManualClock(Date.now());
  const c = testClient({ clock, timers: clock, defaultCardTtlMs: TTL });
  t.teardown(() => c.close());
  let cc = 'max-age=120';
  let age: string | undefined;
  s.route.set('/max/.well-known/agent-card.json', (h) =>
    h['if-none-match'] === '"v1"'
      ? { status: 304, headers: { 'cache-control': cc, etag: '"v1"' } }
      : { status: 200, headers: { 'cache-control': cc, etag: '"v1"', ...(age && { age }) }, body: cardB(`${s.url}/rpc`) },
  );
  const count = () => s.seen.length;
  await c.discover(none(`${s.url}/max`));
  clock.advance(119_999);
  await c.discover(none(`${s.url}/max`));
  t.equal(count(), 1, 'fresh for max-age (longer than the default TTL)');
  clock.advance(1);
  await c.discover(none(`${s.url}/max`));
  t.equal(count(), 2);
  t.equal(s.seen[1]?.status, 304);

  cc = 'no-cache';
  clock.advance(120_000);
  await c.discover(none(`${s.url}/max`));
  await c.discover(none(`${s.url}/max`));
  await c.discover(none(`${s.url}/max`));
  t.same(
    s.seen.slice(2).map((x) => x.status),
    [304, 304, 304],
    'no-cache: every use revalidates',
  );

  cc = 'no-store';
  s.route.set('/nostore/.well-known/agent-card.json', () => ({
    status: 200,
    headers: { 'cache-control': 'no-store', etag: '"x"' },
    body: cardB(`${s.url}/rpc`),
  }));
  const before = count();
  await c.discover(none(`${s.url}/nostore`));
  await c.discover(none(`${s.url}/nostore`));
  t.equal(count() - before, 2, 'no-store: fetched every time');
  t.equal(s.seen.at(-1)?.headers['if-none-match'], undefined, 'and never revalidated (nothing was kept)');

  s.route.set('/aged/.well-known/agent-card.json', () => ({
    status: 200,
    headers: { 'cache-control': 'public, max-age=120', age: '100' },
    body: cardB(`${s.url}/rpc`),
  }));
  const n = count();
  await c.discover(none(`${s.url}/aged`));
  clock.advance(19_999);
  await c.discover(none(`${s.url}/aged`));
  t.equal(count() - n, 1, 'max-age less Age: 20 s left');
  clock.advance(1);
  await c.discover(none(`${s.url}/aged`));
  t.equal(count() - n, 2);
});

t.test('dialect both ways: a 0.1 card at agent.json only is rev A (tasks/send), a 0.3 card is rev B', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key({ trust: 'admin' });
  const s = await cardServer(t);
  // a 0.1 card: no protocolVersion, served only at the rev A path; its endpoint is the gateway's
  s.route.set('/old/.well-known/agent.json', () => ({
    status: 200,
    body: { name: 'old-agent', description: 'speaks 0.1', url: `${gw.url}/api/a2a/agents/echo`, version: '0.1.0', capabilities: { streaming: true } },
  }));
  s.route.set('/new/.well-known/agent-card.json', () => ({ status: 200, body: cardB(`${gw.url}/api/a2a/agents/echo`) }));
  const c = testClient();
  t.teardown(() => c.close());
  // the cards name the gateway, another origin than the card server's: the endpoints allow it for their token
  const bearer = (url: string): RemoteEndpoint => ({ url, credentials: { kind: 'bearer', token: key }, allowedOrigins: [gw.url] });

  const old = await c.discover(bearer(`${s.url}/old`));
  t.equal(old.dialect, 'A');
  t.equal(old.card.name, 'old-agent');
  t.same(
    s.seen.map((x) => [x.path, x.status]),
    [
      ['/old/.well-known/agent-card.json', 404],
      ['/old/.well-known/agent.json', 200],
    ],
    'agent-card.json first, then agent.json',
  );
  const a = await c.send({ endpoint: bearer(`${s.url}/old`), message: userMessage('in rev A') });
  t.equal((await gw.gw.store.tasks.get('ws1', a.id))?.dialect, 'A', 'the remote got tasks/send');

  const fresh = await c.discover(bearer(`${s.url}/new`));
  t.equal(fresh.dialect, 'B');
  const b = await c.send({ endpoint: bearer(`${s.url}/new`), message: userMessage('in rev B') });
  t.equal((await gw.gw.store.tasks.get('ws1', b.id))?.dialect, 'B', 'the remote got message/send');
  t.same(b.artifacts[0]?.parts, [{ kind: 'text', text: 'in rev B' }]);
});

t.test('bad cards are card_invalid, naming what is wrong', async (t) => {
  const s = await cardServer(t);
  const c = testClient();
  t.teardown(() => c.close());
  const fail = (path: string) => c.discover(none(`${s.url}${path}`)).catch((e: unknown) => e);

  s.route.set('/typed/.well-known/agent-card.json', () => ({ status: 200, body: cardB('http://x', { capabilities: { streaming: 'yes' } }) }));
  t.match(await fail('/typed'), { code: 'card_invalid', message: /capabilities\.streaming: / });
  s.route.set('/noname/.well-known/agent-card.json', () => ({ status: 200, body: { url: 'http://x' } }));
  t.match(await fail('/noname'), { code: 'card_invalid', message: /: name: / });
  s.route.set('/text/.well-known/agent-card.json', () => ({ status: 200, body: 'not json {' }));
  t.match(await fail('/text'), { code: 'card_invalid', message: /is not JSON/ });
  t.match(await fail('/nothing'), {
    code: 'card_invalid',
    message: /no Agent Card: .*\/nothing\/\.well-known\/agent-card\.json \(HTTP 404\), .*\/nothing\/\.well-known\/agent\.json \(HTTP 404\)/,
  });
  s.route.set('/broken/.well-known/agent-card.json', () => ({ status: 500, body: { error: 'oops' } }));
  t.match(await fail('/broken'), { code: 'card_invalid', message: /HTTP 500/ });
  t.notOk(
    s.seen.some((x) => x.path === '/broken/.well-known/agent.json'),
    'a failing server is not asked for the other path',
  );
  s.route.set('/moved/.well-known/agent-card.json', () => ({ status: 302, headers: { location: `${s.url}/typed/.well-known/agent-card.json` } }));
  const seenBefore = s.seen.length;
  t.match(await fail('/moved'), { code: 'card_invalid', message: /redirects are not followed/ });
  t.equal(s.seen.length, seenBefore + 1, 'the redirect was not followed');
  s.route.set('/grpc/.well-known/agent-card.json', () => ({ status: 200, body: cardB('grpc://x', { preferredTransport: 'GRPC' }) }));
  t.match(await fail('/grpc'), { code: 'card_invalid', message: /no JSON-RPC interface/ });

  s.route.set('/v1/.well-known/agent-card.json', () => ({ status: 200, body: cardB(`${s.url}/rpc`, { protocolVersion: '1.0' }) }));
  t.match(await fail('/v1'), { code: 'card_invalid', message: /protocolVersion '1\.0'.*does not speak/ });
  const forced = await c.discover({ ...none(`${s.url}/v1`), dialect: 'B' });
  t.equal(forced.dialect, 'B', 'a forced dialect speaks anyway');
});

t.test('the SSRF guard: loopback refused without the allowlist, also behind a name; internal card URLs refused', async (t) => {
  const r = await sdk(t);
  const strict = testClient({ allowlist: parseAllowlist([]) });
  t.teardown(() => strict.close());
  const refused = await strict.discover(none(r.url)).catch((e: unknown) => e);
  t.match(refused, { code: 'url_refused', message: /remote agent URL refused: points to a loopback address 127\.0\.0\.1/ });
  t.equal(r.requests.length, 0, 'the remote saw nothing');
  t.match(await strict.discover(none('http://localhost:1/x')).catch((e: unknown) => e), { code: 'url_refused', message: /'localhost' names a loopback/ });

  // a name is judged by what it resolves to, at connect time
  const port = new URL(r.url).port;
  const resolve: Resolve = async (host) => (host === 'agent.test' ? [{ address: '127.0.0.1', family: 4 }] : []);
  const named = testClient({ allowlist: parseAllowlist([]), resolve });
  t.teardown(() => named.close());
  t.match(await named.discover(none(`http://agent.test:${port}/api/a2a`)).catch((e: unknown) => e), {
    code: 'url_refused',
    message: /agent\.test resolves to a loopback address 127\.0\.0\.1/,
  });
  t.equal(r.requests.length, 0);
  const admitted = testClient({ resolve });
  t.teardown(() => admitted.close());
  t.equal((await admitted.discover(none(`http://agent.test:${port}/api/a2a`))).card.name, 'sdk-echo', 'the allowlist admits it');

  // the card may name an internal JSON-RPC endpoint: the call to it is refused
  const s = await cardServer(t);
  s.route.set('/meta/.well-known/agent-card.json', () => ({ status: 200, body: cardB('http://169.254.169.254/latest') }));
  const c = testClient();
  t.teardown(() => c.close());
  t.match(await c.send({ endpoint: none(`${s.url}/meta`), message: userMessage('x') }).catch((e: unknown) => e), {
    code: 'url_refused',
    message: /cloud metadata address/,
  });
});
