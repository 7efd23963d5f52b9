// The Host header builds the URLs the gateway hands out when publicUrl is unset (Agent Cards, agents/list). A Host that
// is not a plain host[:port] is refused with 400 naming the header, on every route that builds a URL; a good one is used.
import t from 'tap';
import { rawExchange } from '../support/raw-http.js';
import { startTestGateway } from '../support/gateway.js';

/** One raw HTTP/1.1 exchange (fetch will not send an arbitrary Host): the status and the parsed JSON body. */
function raw(port: number, o: { method: string; path: string; host: string | string[]; headers?: Record<string, string>; body?: string }) {
  const extra = Object.entries(o.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`);
  const body = o.body ?? '';
  const hosts = (Array.isArray(o.host) ? o.host : [o.host]).map((h) => `Host: ${h}\r\n`).join('');
  const head = `${o.method} ${o.path} HTTP/1.1\r\n${hosts}${extra.join('')}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
  return rawExchange(port, head + body);
}

t.test('a Host that is not host[:port] is 400 naming Host on the cards and JSON-RPC; a good one builds the URLs', async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  const { key } = await tg.key();
  const port = tg.gw.port;
  const listAgents = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agents/list', params: {} });
  const rpc = (host: string) =>
    raw(port, { method: 'POST', path: '/api/a2a', host, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: listAgents });
  const bad = ['evil.example/"x', 'a b', 'user@evil.example', 'x"><script>', 'evil.example:99999', 'evil.example:80:80', 'h'.repeat(300)];
  for (const host of bad) {
    for (const path of ['/.well-known/agent-card.json', '/.well-known/agent.json', '/api/a2a/agents/echo/.well-known/agent-card.json']) {
      const r = await raw(port, { method: 'GET', path, host });
      t.equal(r.status, 400, `${path} with Host ${JSON.stringify(host.slice(0, 30))}: 400`);
      t.match(r.json, { error: 'bad_request', header: 'Host', message: /Host header/ }, 'the answer names the header');
    }
    const r = await rpc(host);
    t.equal(r.status, 400, `agents/list with Host ${JSON.stringify(host.slice(0, 30))}: 400`);
    t.match(r.json, { jsonrpc: '2.0', id: null, error: { code: -32600, message: /Host header/, data: { reason: 'BAD_HOST', header: 'Host' } } });
    t.notOk(JSON.stringify(r.json).includes('result'), 'no URL is built from it');
  }
  for (const host of ['gw.example.com:8443', '10.0.0.7', '[::1]:8080', 'gw-1.internal']) {
    const card = await raw(port, { method: 'GET', path: '/.well-known/agent-card.json', host });
    t.equal(card.json.url, `http://${host}/api/a2a`, `Host ${host} builds the card's URL`);
    const listed = await rpc(host);
    t.equal(listed.json.result.agents[0].url, `http://${host}/api/a2a/agents/echo`, `and agents/list's`);
  }
  const after = await tg.rpc({ key, method: 'agents/list', params: {} });
  t.equal(after.status, 200, 'the server goes on');
});

t.test('a card request with two Host lines is 400 (a cache in front may key on the other one)', async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  for (const path of ['/.well-known/agent-card.json', '/api/a2a/agents/echo/.well-known/agent.json']) {
    const r = await raw(tg.gw.port, { method: 'GET', path, host: ['gw.example.com', 'evil.example'] });
    t.equal(r.status, 400, `${path}: 400`);
    t.match(r.json, { error: 'bad_request', header: 'Host', message: /more than one Host/ }, 'naming the header');
    t.notOk(JSON.stringify(r.json).includes('evil.example'), 'no URL built from either');
  }
  const one = await raw(tg.gw.port, { method: 'GET', path: '/.well-known/agent-card.json', host: 'gw.example.com' });
  t.equal(one.json.url, 'http://gw.example.com/api/a2a', 'one Host line builds the URL');
});
