// A remote that echoes our credentials back (in a JSON-RPC error, an artifact, a stream event, its card, or an OAuth
// token endpoint's error): none of them reaches our callers, the stored results or the admin API.
import t from 'tap';
import { adminCall } from '../support/admin-api.js';
import { until } from '../support/a2a-client.js';
import { cardServer, type CardServer, sseAnswer } from '../support/card-server.js';
import { msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { openSse } from '../support/sse.js';

const WS = 'ws1';
const API_KEY = 'apikey-Secret-4Qm9Lx2W';
const BEARER = 'bearer-Secret-7Hv3Pn8K';
const CLIENT_SECRET = 'client-Secret-2Zr6Tb5J';
const ACCESS_TOKEN = 'access-Token-9Wd1Ys4F';
const SECRETS = [API_KEY, BEARER, CLIENT_SECRET, ACCESS_TOKEN];

const card = (s: CardServer, name: string, o: { streaming?: boolean; echo?: string } = {}) => ({
  name: o.echo ? `agent of ${o.echo}` : name,
  description: o.echo ? `you showed us ${o.echo}` : '',
  url: `${s.url}/${name}/rpc`,
  version: '1',
  protocolVersion: '0.3.0',
  capabilities: { streaming: o.streaming === true },
});
/** `body`: the request, whose id the answer carries */
const rpcResult = (body: string, result: unknown) => ({ status: 200, body: { jsonrpc: '2.0', id: JSON.parse(body).id, result } });
const sse = (body: string, ...results: unknown[]) => sseAnswer(JSON.parse(body).id, results);
const task = (state: string, text?: string) => ({
  kind: 'task',
  id: 'r1',
  contextId: 'c1',
  status: { state },
  artifacts: text === undefined ? [] : [{ artifactId: 'a', parts: [{ kind: 'text', text }] }],
});
/** What the remote saw of us: every header, as an echo service would give it back. */
const echoed = (h: Record<string, unknown>) => JSON.stringify(h);
const leaks = (text: string) => SECRETS.filter((x) => text.includes(x));

let s: CardServer;
let ours: TestGateway;
let key: string;
const admin = (method: string, path: string) => adminCall(ours, method, path, { bearer: key });

t.before(async () => {
  s = await cardServer(t);
  s.route.set('/apikey/.well-known/agent-card.json', () => ({ status: 200, body: card(s, 'apikey') }));
  s.route.set('/apikey/rpc', (h, body) => rpcResult(body, { ...task('completed', `you sent ${echoed(h)}`) }));
  s.route.set('/bearer/.well-known/agent-card.json', () => ({ status: 200, body: card(s, 'bearer') }));
  s.route.set('/bearer/rpc', (h, body) => ({
    status: 200,
    body: { jsonrpc: '2.0', id: JSON.parse(body).id, error: { code: -32003, message: `key ${h.authorization} is not known here` } },
  }));
  s.route.set('/stream/.well-known/agent-card.json', () => ({ status: 200, body: card(s, 'stream', { streaming: true }) }));
  s.route.set('/stream/rpc', (h, body) =>
    sse(
      body,
      task('working'),
      {
        kind: 'artifact-update',
        taskId: 'r1',
        contextId: 'c1',
        artifact: { artifactId: 'a', parts: [{ kind: 'data', data: { [`${h.authorization}`]: echoed(h) } }] },
      },
      { kind: 'status-update', taskId: 'r1', contextId: 'c1', status: { state: 'completed' }, final: true },
    ),
  );
  // an OAuth token endpoint that tells us which secret it refused
  s.route.set('/refusing/token', (h) => {
    const basic = Buffer.from(String(h.authorization).replace(/^Basic /, ''), 'base64').toString('utf8');
    return {
      status: 401,
      body: { error: 'invalid_client', error_description: `secret ${decodeURIComponent(basic.split(':')[1]!)} is wrong (${h.authorization})` },
    };
  });
  s.route.set('/granting/token', () => ({ status: 200, body: { access_token: ACCESS_TOKEN, token_type: 'Bearer', expires_in: 3600 } }));
  s.route.set('/granting/.well-known/agent-card.json', (h) => ({ status: 200, body: card(s, 'granting', { echo: String(h.authorization) }) }));

  // a card nested deeper than any answer may be (the scrub and the admin view read it recursively)
  s.route.set('/deep/.well-known/agent-card.json', (h) => ({
    status: 200,
    body: `{"name":"deep","url":"${s.url}/deep/rpc","protocolVersion":"0.3.0","x":${'['.repeat(20_000)}${JSON.stringify(String(h.authorization))}${']'.repeat(20_000)}}`,
  }));

  ours = await startTestGateway({
    config: {
      push: { allowlist: ['127.0.0.1'] },
      agents: ['apikey', 'bearer', 'stream'].map((id) => ({ id, name: id, kind: 'remote' as const, connection: id, workspace: WS })),
    },
  });
  key = (await ours.key({ workspace: WS, trust: 'admin' })).key;
  const oauth = (name: string) => ({ kind: 'oauth', tokenUrl: `${s.url}/${name}/token`, clientId: 'our-client', clientSecret: CLIENT_SECRET });
  const connections = [
    { name: 'apikey', credentials: { kind: 'apikey', header: 'X-Api-Key', value: API_KEY }, storeResults: true },
    { name: 'bearer', credentials: { kind: 'bearer', token: BEARER } },
    { name: 'stream', credentials: { kind: 'bearer', token: BEARER }, trust: 'admin', storeResults: true },
    { name: 'refusing', credentials: oauth('refusing') },
    { name: 'granting', credentials: oauth('granting') },
    { name: 'deep', credentials: { kind: 'bearer', token: BEARER } },
  ];
  for (const c of connections) {
    const r = await adminCall(ours, 'POST', '/connections', { bearer: key, body: { url: `${s.url}/${c.name}`, ...c } });
    if (r.status !== 200) throw new Error(`connection ${c.name} not added: ${JSON.stringify(r.json)}`);
  }
});

t.teardown(() => ours.close());

t.test("an API key echoed in the remote's artifact: the caller and the stored result see it redacted", async (t) => {
  const r = await ours.rpc({ method: 'message/send', key, params: msgB('hi', { metadata: { agentId: 'apikey' } }) });
  const text = r.json.result?.artifacts?.[0]?.parts?.[0]?.text ?? '';
  t.equal(r.json.result?.status?.state, 'completed', JSON.stringify(r.json).slice(0, 300));
  t.ok(
    s.seen.some((x) => x.headers['x-api-key'] === API_KEY),
    'the remote did get the key',
  );
  t.match(text, /"x-api-key":"\[redacted\]"/, 'the echo reaches the caller, the key replaced');
  t.same(leaks(JSON.stringify(r.json)), [], 'no secret in the answer to our caller');
  const kept = await ours.gw.store.results.list({ workspace: WS, connection: 'apikey' });
  t.equal(kept.length, 1);
  t.match(kept[0]!.summary, /\[redacted\]/);
  t.same(leaks(JSON.stringify(kept)), [], 'no secret in the stored summary or raw result');
});

t.test("a bearer token echoed in the remote's JSON-RPC error: our caller's failed task does not show it", async (t) => {
  const r = await ours.rpc({ method: 'message/send', key, params: msgB('hi', { metadata: { agentId: 'bearer' } }) });
  const status = r.json.result?.status;
  t.equal(status?.state, 'failed', JSON.stringify(r.json).slice(0, 300));
  t.match(status?.message?.parts?.[0]?.text, /error -32003: key Bearer \[redacted\] is not known here/, 'the error still says what happened');
  t.same(leaks(JSON.stringify(r.json)), [], 'no secret in the failed task');
  const got = await ours.rpc({ method: 'tasks/get', key, params: { id: r.json.result.id } });
  t.same(leaks(JSON.stringify(got.json)), [], 'nor in the task read back from the store');
});

t.test('a token echoed in stream events (a data key and value): the SSE caller and the stored raw result do not see it', async (t) => {
  const st = await openSse({ url: ours.url, key, method: 'message/stream', params: msgB('hi', { metadata: { agentId: 'stream' } }) });
  const frames = await st.untilFinal();
  const all = JSON.stringify(frames.map((f) => f.data));
  t.match(all, /\[redacted\]/, 'the echoed data came through, redacted');
  t.same(leaks(all), [], 'no secret in any frame');
  const kept = await ours.gw.store.results.list({ workspace: WS, connection: 'stream' });
  t.equal(kept.length, 1);
  t.same(leaks(JSON.stringify(kept)), [], 'no secret in the stored result');
});

t.test("OAuth: the token endpoint's error echoing the client secret stays out of the connection's status", async (t) => {
  let status: any;
  await until(async () => {
    status = (await admin('GET', '/connections/refusing')).json;
    return status?.status?.last_error != null;
  }, 'the refused discovery is reported');
  t.match(status.status.last_error, /invalid_client \(secret \[redacted\] is wrong \(Basic \[redacted\]\)\)/, 'the status says why, redacted');
  t.same(leaks(JSON.stringify(status)), [], 'no secret in the admin view');
});

t.test("OAuth: the access token echoed in the remote's card stays out of the card test and the status", async (t) => {
  const tested = await admin('POST', '/connections/granting/test');
  t.equal(tested.json?.ok, true, JSON.stringify(tested.json).slice(0, 300));
  t.ok(
    s.seen.some((x) => x.headers.authorization === `Bearer ${ACCESS_TOKEN}`),
    'the remote did get the token',
  );
  t.equal(tested.json.card.name, 'agent of Bearer [redacted]');
  t.same(leaks(JSON.stringify(tested.json)), [], 'no secret in the card shown');
  let status: any;
  await until(async () => {
    status = (await admin('GET', '/connections/granting')).json;
    return status?.status?.remote_name != null;
  }, 'the discovery is reported');
  t.equal(status.status.remote_name, 'agent of Bearer [redacted]');
});

t.test('a card nested 20,000 levels deep around an echoed token: refused as invalid, naming the depth, nothing leaks', async (t) => {
  const tested = await admin('POST', '/connections/deep/test');
  t.equal(tested.status, 200);
  t.match(tested.json, { ok: false, error: /the Agent Card at .* nests deeper than 72 levels \(at card\.x\.0\.0/ });
  t.same(leaks(JSON.stringify(tested.json)), []);
});
