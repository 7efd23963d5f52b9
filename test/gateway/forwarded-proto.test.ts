// X-Forwarded-Proto is a proxy's word that its client came over https: it marks the admin session cookie Secure and
// makes the URLs the gateway hands out (Agent Cards, agents/list) https. It is read only from a peer in trustedProxies,
// as X-Forwarded-For is; from anyone else it has no effect. The gateway's own TLS needs no header.
import t, { type Test } from 'tap';
import { join } from 'node:path';
import { certsInDir } from '../support/certs.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { fetchWithCa } from '../support/https-fetch.js';

const HTTPS = { 'X-Forwarded-Proto': 'https' };

/** What a caller sees of the scheme: the cards' and agents/list's URLs, and whether its session cookie is Secure. */
async function seen(tg: TestGateway, headers: Record<string, string>, o: { fetch?: typeof fetch } = {}) {
  const get = o.fetch ?? fetch;
  const card = async (path: string) => ((await (await get(`${tg.url}${path}`, { headers })).json()) as { url: string }).url;
  const { key } = await tg.key({ workspace: 'ws1', trust: 'admin' });
  const listed = await tg.rpc({ method: 'agents/list', key, params: {}, headers });
  const signIn = await get(`${tg.url}/api/admin/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ key }),
  });
  return {
    serviceCard: await card('/.well-known/agent-card.json'),
    agentCard: await card('/api/a2a/agents/echo/.well-known/agent-card.json'),
    listed: listed.json.result.agents[0].url as string,
    secureCookie: /;\s*Secure/i.test(signIn.headers.get('set-cookie') ?? ''),
  };
}

async function gateway(t: Test, trustedProxies?: string[]) {
  const tg = await startTestGateway({ config: { dashboard: { enabled: true }, ...(trustedProxies && { trustedProxies }) } });
  t.teardown(() => tg.close());
  return tg;
}

const plain = (tg: TestGateway) => ({
  serviceCard: `${tg.url}/api/a2a`,
  agentCard: `${tg.url}/api/a2a/agents/echo`,
  listed: `${tg.url}/api/a2a/agents/echo`,
  secureCookie: false,
});
const secure = (tg: TestGateway) => ({
  serviceCard: `${tg.url.replace('http:', 'https:')}/api/a2a`,
  agentCard: `${tg.url.replace('http:', 'https:')}/api/a2a/agents/echo`,
  listed: `${tg.url.replace('http:', 'https:')}/api/a2a/agents/echo`,
  secureCookie: true,
});

t.test('without trustedProxies, X-Forwarded-Proto from a caller changes neither the URLs nor the cookie', async (t) => {
  const tg = await gateway(t);
  t.strictSame(await seen(tg, HTTPS), plain(tg), 'http URLs and no Secure cookie, whatever the caller claims');
});

t.test('a peer that is not a trusted proxy cannot claim https', async (t) => {
  const tg = await gateway(t, ['192.0.2.10']);
  t.strictSame(await seen(tg, HTTPS), plain(tg), 'the header of an untrusted peer is not read');
});

t.test('a trusted proxy saying https gets https URLs and a Secure cookie; without the header, plain', async (t) => {
  const tg = await gateway(t, ['127.0.0.0/8']);
  t.strictSame(await seen(tg, HTTPS), secure(tg), 'the proxy terminated TLS: the client is told https');
  t.strictSame(await seen(tg, {}), plain(tg), 'no header, plain HTTP');
  t.strictSame(await seen(tg, { 'X-Forwarded-Proto': 'http' }), plain(tg), 'the proxy says http');
});

t.test('served over its own TLS, the gateway says https with no header and no trusted proxy', async (t) => {
  const { certs, dir, file } = await certsInDir(t, 'a2a-proto-');
  await file('cert.pem', certs.server.cert);
  await file('key.pem', certs.server.key);
  const tg = await startTestGateway({
    ca: certs.ca.cert,
    config: { dashboard: { enabled: true }, tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') } },
  });
  t.teardown(() => tg.close());
  t.strictSame(await seen(tg, {}, { fetch: fetchWithCa(certs.ca.cert) }), secure(tg));
});
