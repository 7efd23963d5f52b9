// The relay's admin server over real HTTP, the relay run as its command runs it between a real gateway and the
// official SDK server: the JSON API behind every view, the task log with its sanitized, capped detail, replay and its
// CSRF checks, /healthz and /readyz, Prometheus /metrics matching the traffic, the debug log (never a key or a body).
import type { RequestHandler } from 'express';
import t from 'tap';
import { until } from '../support/a2a-client.js';
import { startRelayStack, type RelayStack } from '../support/relay-stack.js';

let s: RelayStack;
/** local turns of the second agent fail (a JSON-RPC error echoing keys) while its card stays readable (a failed turn, a healthy agent) */
const failing: RequestHandler = (req, res, next) =>
  req.method === 'POST' && req.socket.localPort === failPort
    ? void res.status(200).json({ jsonrpc: '2.0', id: null, error: { code: -32603, message: `leaked ${s.relayKey} svc_a2a_EchoedKey456` } })
    : next();
let failPort = -1;

t.before(async () => {
  s = await startRelayStack({ names: ['sdk-echo', 'sdk-broken'], before: [failing], env: { LOG_LEVEL: 'debug' } });
  failPort = Number(new URL(s.agents.get('sdk-broken')!.url).port);
});
t.teardown(() => s?.close());

const api = async (path: string, init?: RequestInit) => {
  const r = await fetch(s.admin.url + path, init);
  const text = await r.text();
  return { status: r.status, headers: r.headers, text, json: text.startsWith('{') ? JSON.parse(text) : undefined };
};

t.test('status, readyz and healthz tell a connected tunnel; the page carries a strict CSP', async (t) => {
  await until(async () => (await api('/api/status')).json.connection === 'connected', 'connected');
  const st = (await api('/api/status')).json;
  t.equal(st.workspace, 'ws1');
  t.match(st.gatewayUrl, /^ws:\/\/127\.0\.0\.1:\d+$/);
  t.equal(st.attempts, 0);
  t.equal((await api('/healthz')).status, 200);
  t.equal((await api('/readyz')).status, 200);
  const page = await api('/');
  t.equal(page.status, 200);
  const csp = page.headers.get('content-security-policy') ?? '';
  t.match(csp, /script-src 'self'/);
  t.notMatch(csp, /unsafe-inline|unsafe-eval/);
  t.notMatch(page.text, /<script>(?!<)/, 'no inline script in the page');
  t.equal((await api('/assets/preact-htm.js')).status, 200, 'the UI library is served locally');
});

t.test('agents: each with its health, latency, card and counts', async (t) => {
  await until(async () => (await api('/api/agents')).json.agents.every((a: any) => a.health === 'up'), 'both agents up');
  const agents = (await api('/api/agents')).json.agents;
  t.same(agents.map((a: any) => a.name).sort(), ['sdk-broken', 'sdk-echo']);
  const echo = agents.find((a: any) => a.name === 'sdk-echo');
  t.type(echo.lastCheck, 'number');
  t.type(echo.latencyMs, 'number');
  t.notOk('card' in echo, 'the list carries no card');
  t.equal((await api('/api/agents/sdk-echo')).json.card.skills[0].id, 'echo', 'one agent whole carries it');
});

t.test('a task through the gateway is logged with its sanitized request and answer; metrics match the traffic', async (t) => {
  const before = (await api('/api/tasks')).json.tasks.length;
  for (let i = 0; i < 3; i++) {
    const r = await s.send(`hello ${i} svc_a2a_NotARealKey123 ${s.relayKey}`);
    t.equal(r.result.status.state, 'completed', JSON.stringify(r));
  }
  const failed = await s.send('this one breaks', 'sdk-broken');
  t.equal(failed.result.status.state, 'failed');
  await until(async () => (await api('/api/tasks')).json.tasks.filter((x: any) => x.state !== 'running').length === before + 4, 'four turns logged');
  const list = (await api('/api/tasks')).json.tasks;
  t.equal(list[0].agent, 'sdk-broken', 'newest first');
  t.equal(list[0].state, 'failed');
  t.match(list[0].error, /local_agent/);
  // the local agent's failure text echoed the relay's key: the log shows it masked, as the detail panes do
  t.notOk(list[0].error.includes(s.relayKey), "the task log's error never shows the relay's key");
  t.notMatch(list[0].error, /svc_a2a_EchoedKey456/, 'nor a key-like string');
  t.notOk(JSON.stringify((await api(`/api/tasks/${list[0].id}`)).json).includes(s.relayKey), 'nor its detail');
  t.equal(list[1].dialect, 'B', "the caller's dialect");
  const byAgent = (await api('/api/tasks?agent=sdk-echo')).json.tasks;
  t.equal(byAgent.length, 3);
  t.equal((await api('/api/tasks?state=failed')).json.tasks.length, 1);
  t.equal((await api('/api/tasks?state=bogus')).status, 400);

  const detail = (await api(`/api/tasks/${list[1].id}`)).json;
  t.match(detail.request, /hello 2/);
  t.match(detail.answer, /hello 2/, 'the answer holds the echo');
  t.notMatch(detail.request + detail.answer, /svc_a2a_NotARealKey123/, 'a key-like string is masked');
  t.notOk((detail.request + detail.answer).includes(s.relayKey), "the relay's own key is never shown");
  t.match(detail.request, /\[redacted key\]/);

  const agents = (await api('/api/agents')).json.agents;
  t.equal(agents.find((a: any) => a.name === 'sdk-echo').served, 3);
  t.equal(agents.find((a: any) => a.name === 'sdk-broken').failed, 1);

  const m = (await api('/metrics')).text;
  t.match(m, /a2a_relay_turns_total\{agent="sdk-echo",outcome="completed"\} 3\b/);
  t.match(m, /a2a_relay_turns_total\{agent="sdk-broken",outcome="failed"\} 1\b/);
  t.match(m, /a2a_relay_local_latency_seconds_count\{agent="sdk-echo"\} 3\b/);
  t.match(m, /a2a_relay_tunnel_state\{state="connected"\} 1\b/);
  t.match(m, /a2a_relay_tunnel_state\{state="backing_off"\} 0\b/);
  t.match(m, /a2a_relay_tunnel_reconnects_total 0\b/);
  t.match(m, /a2a_relay_agent_up\{agent="sdk-echo"\} 1\b/);
});

t.test('a large request is capped in the detail', async (t) => {
  const big = 'x'.repeat(40_000);
  await s.send(big);
  await until(async () => (await api('/api/tasks?agent=sdk-echo')).json.tasks[0]?.state === 'completed', 'logged');
  const id = (await api('/api/tasks?agent=sdk-echo')).json.tasks[0].id;
  const d = (await api(`/api/tasks/${id}`)).json;
  t.ok(Buffer.byteLength(d.request) < 17_000, 'the request is capped');
  t.match(d.request, /cut at 16384 bytes of \d+/);
});

t.test('replay sends the logged turn again to the local agent and logs it; cross-site requests are refused', async (t) => {
  const orig = (await api('/api/tasks?agent=sdk-echo&state=completed')).json.tasks.find((x: any) => !x.replayOf);
  const calls = s.agents.get('sdk-echo')!.calls().length;
  t.equal(
    (await api(`/api/tasks/${orig.id}/replay`, { method: 'POST', body: 'x=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status,
    415,
  );
  const cross = await api(`/api/tasks/${orig.id}/replay`, {
    method: 'POST',
    body: '{}',
    headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
  });
  t.equal(cross.status, 403);
  t.equal(s.agents.get('sdk-echo')!.calls().length, calls, 'nothing ran');
  const r = await api(`/api/tasks/${orig.id}/replay`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  t.equal(r.status, 202, r.text);
  await until(async () => (await api(`/api/tasks/${r.json.id}`)).json.state === 'completed', 'the replay completes');
  const d = (await api(`/api/tasks/${r.json.id}`)).json;
  t.equal(d.replayOf, orig.id);
  t.match(d.answer, /hello|x{10}/);
  t.equal(s.agents.get('sdk-echo')!.calls().length, calls + 1, 'the local agent was called again');
  t.equal((await api('/api/tasks/t99999/replay', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status, 404);
});

t.test('a Host that is not loopback is refused (DNS rebinding) when no password is set', async (t) => {
  const { request } = await import('node:http');
  const status = await new Promise<number>((resolve, reject) => {
    const u = new URL(`${s.admin.url}/api/status`);
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, headers: { host: 'evil.example:9090' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
  t.equal(status, 421);
});

t.test('debug logs each frame and each local call with its time, never a key or a body', async (t) => {
  const log = s.logs.join('\n');
  t.match(log, /relay frame \{"dir":"in","kind":"run","sid":\d+,"bytes":\d+\}/);
  t.match(log, /relay local call ended \{"agent":"sdk-echo","sid":\d+,"ms":\d+,"outcome":"ok"\}/);
  t.notOk(log.includes(s.relayKey), 'no relay key');
  t.notMatch(log, /hello 1|svc_a2a_/, 'no body, no key');
});
