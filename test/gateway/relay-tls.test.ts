// TLS: with `tls.certFile`/`tls.keyFile` the gateway serves HTTPS and the relay tunnel over WSS (uWS SSLApp), with a
// certificate made in the test with openssl; a plain-HTTP client gets nothing.
import { request } from 'node:https';
import { join } from 'node:path';
import t from 'tap';
import { addRelay } from '../../src/runtime/relay-admin.js';
import { certsInDir } from '../support/certs.js';
import { msgB, startTestGateway } from '../support/gateway.js';
import { connectRelay, echoTurns } from '../support/tunnel-client.js';

t.setTimeout(120_000);

function httpsJson(o: { url: string; ca: string; path: string; body?: unknown; key?: string }): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const u = new URL(o.url + o.path);
    const req = request(
      u,
      {
        method: o.body === undefined ? 'GET' : 'POST',
        ca: o.ca,
        headers: { 'Content-Type': 'application/json', ...(o.key && { Authorization: `Bearer ${o.key}` }) },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(o.body === undefined ? undefined : JSON.stringify(o.body));
  });
}

t.test('HTTPS and WSS from configured cert and key files', async (t) => {
  const { certs, dir, file } = await certsInDir(t, 'a2a-tls-');
  const certFile = await file('server.crt', certs.server.cert);
  const keyFile = await file('server.key', certs.server.key);
  await t.rejects(
    startTestGateway({ config: { tls: { certFile, keyFile: join(dir, 'missing.key') } } }),
    /tls\.keyFile: .*missing\.key does not exist/,
    'a missing key file is named before anything starts',
  );
  const g = await startTestGateway({ config: { tls: { certFile, keyFile } } });
  t.teardown(() => g.close());
  t.match(g.url, /^https:\/\/127\.0\.0\.1:\d+$/, 'the gateway says it serves https');

  const health = await httpsJson({ url: g.url, ca: certs.ca.cert, path: '/healthz' });
  t.strictSame(health, { status: 200, json: { ok: true } }, 'HTTPS answers, verified against the test CA');
  const cardRes = await httpsJson({ url: g.url, ca: certs.ca.cert, path: '/.well-known/agent-card.json' });
  t.match(cardRes.json.url, /^https:\/\//, 'the card names https URLs');
  await t.rejects(fetch(`${g.url.replace('https', 'http')}/healthz`), 'plain HTTP gets no answer');

  const k = await g.key({ workspace: 'ws1', trust: 'execute' });
  await addRelay({ relays: g.gw.store.relays, keys: g.gw.store.keys, clock: { now: () => Date.now() } }, { workspace: 'ws1', name: 'home', key: k.id });
  const { client, answer } = await connectRelay({
    url: g.url,
    key: k.key,
    workspace: 'ws1',
    agents: [{ name: 'local-echo', description: '', skills: [], streaming: false }],
    ca: Buffer.from(certs.ca.cert),
  });
  t.match(answer, { t: 'welcome', agents: [{ name: 'local-echo' }] }, 'the tunnel opens over WSS');
  echoTurns(client);
  const caller = await g.key({ workspace: 'ws1' });
  const sent = await httpsJson({
    url: g.url,
    ca: certs.ca.cert,
    path: '/api/a2a/agents/local-echo',
    key: caller.key,
    body: { jsonrpc: '2.0', id: 1, method: 'message/send', params: msgB('over tls') },
  });
  t.equal(sent.json.result.status.state, 'completed');
  t.equal(sent.json.result.artifacts[0].parts[0].text, 'echo: over tls', 'a turn went gateway → tunnel → relay and back, all over TLS');
  client.close();
});
