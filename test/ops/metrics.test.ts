// /metrics after real traffic: the counters say exactly what was sent (by method and outcome), rate-limit refusals,
// open SSE streams, live tasks by state; the request id comes back on every call and reaches the debug log.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import t from 'tap';
import { startTestGateway, msgB } from '../support/gateway.js';
import { openSse } from '../support/sse.js';
import { until } from '../support/a2a-client.js';
import { collectGarbage, total } from '../support/gc.js';
import { connectRelay } from '../support/tunnel-client.js';
import { startReceiver } from '../support/webhooks.js';
import { addRelay } from '../../src/runtime/relay-admin.js';
import { addConnection } from '../../src/runtime/connection-admin.js';
import { parseAllowlist } from '../../src/runtime/net/guard.js';
import { sample, scrape } from '../support/metrics.js';

t.test('counters after traffic match what was sent', async (t) => {
  const lines: string[] = [];
  const { createLog } = await import('../../src/runtime/log.js');
  const tg = await startTestGateway({ log: createLog({ level: 'debug', write: (l) => lines.push(l) }) });
  t.teardown(() => tg.close());
  const { key } = await tg.key({ trust: 'admin' });
  const { key: tight } = await tg.key({ trust: 'admin', limits: { perMinute: 2, perHour: 100 } });

  // 3 sends (ok), 2 unauthorized, 1 unknown method, 1 parse error, 2 ok + 1 refused on the tight key
  for (let i = 0; i < 3; i++) {
    const r = await tg.rpc({ method: 'message/send', key, params: { ...msgB('hi'), metadata: { agentId: 'echo' } } });
    t.equal(r.status, 200);
  }
  for (let i = 0; i < 2; i++) t.equal((await tg.rpc({ method: 'tasks/get', key: 'svc_a2a_nope', params: { id: 'x' } })).status, 401);
  t.equal((await tg.rpc({ method: 'no/such', key, params: {} })).json?.error?.code, -32601);
  t.equal((await tg.rpc({ body: '{not json' })).json?.error?.code, -32700);
  const tightStatuses = [];
  for (let i = 0; i < 3; i++) tightStatuses.push((await tg.rpc({ method: 'agent/getAuthenticatedExtendedCard', key: tight, params: {} })).status);
  t.same(tightStatuses, [200, 200, 429]);

  const text = await scrape(t, tg.url);
  t.equal(sample(text, 'a2a_requests_total', { method: 'message/send', outcome: 'ok' }), 3, 'three sends ok');
  t.equal(sample(text, 'a2a_requests_total', { method: 'tasks/get', outcome: 'UNAUTHORIZED' }), 2, 'two refused keys');
  t.equal(sample(text, 'a2a_requests_total', { method: 'unknown', outcome: 'METHOD_NOT_FOUND' }), 1, 'an unknown method is labelled unknown');
  t.equal(sample(text, 'a2a_requests_total', { method: 'invalid', outcome: 'PARSE_ERROR' }), 1, 'a parse error');
  t.equal(sample(text, 'a2a_requests_total', { method: 'agent/getAuthenticatedExtendedCard', outcome: 'ok' }), 2);
  t.equal(sample(text, 'a2a_requests_total', { method: 'agent/getAuthenticatedExtendedCard', outcome: 'RATE_LIMITED' }), 1);
  t.equal(sample(text, 'a2a_rate_limit_refusals_total', { window: 'minute' }), 1, 'one refusal by the minute window');
  t.equal(sample(text, 'a2a_request_duration_seconds_count', { method: 'message/send' }), 3, 'three send latencies observed');
  t.equal(sample(text, 'a2a_tasks_active', { state: 'working' }), 0, 'no task runs now');
  t.equal(sample(text, 'a2a_sse_streams_open'), 0);
  t.match(text, /a2a_connections\{state="ready"\} 0/);
  t.match(text, /a2a_process_resident_memory_bytes/, 'process metrics too');

  // debug logs: one line per call with its request id, never the key
  const calls = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'call');
  t.equal(calls.length, 9, 'one debug line per decoded call');
  t.ok(
    calls.every((c) => typeof c.requestId === 'string' && c.requestId.length > 0),
    'each has a request id',
  );
  t.notOk(
    lines.some((l) => l.includes(key) || l.includes(tight) || l.includes('svc_a2a_nope')),
    'no key in any line',
  );
  t.notOk(
    lines.some((l) => l.includes('"hi"')),
    'no message body in any line',
  );
});

t.test('a 1.0 caller’s errors are labelled by their reason, as the revisions’ are', async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  const { key } = await tg.key();
  // a refused key on a 1.0 method, and an A2A-Version the gateway does not speak: both answered in 1.0's error shape
  const refused = await tg.rpc({ method: 'GetTask', key: 'svc_a2a_nope', params: { id: 'x' }, headers: { 'A2A-Version': '1.0' } });
  t.equal(refused.status, 401);
  t.ok(Array.isArray(refused.json?.error?.data), 'the 1.0 shape: data is a list of details');
  const version = await tg.rpc({ method: 'tasks/get', key, params: { id: 'x' }, headers: { 'A2A-Version': '9.9' } });
  t.equal(version.json?.error?.code, -32009);

  const text = await scrape(t, tg.url);
  t.equal(sample(text, 'a2a_requests_total', { method: 'GetTask', outcome: 'UNAUTHORIZED' }), 1, 'the reason, not the code');
  t.equal(sample(text, 'a2a_requests_total', { method: 'tasks/get', outcome: 'VERSION_NOT_SUPPORTED' }), 1);
  t.notMatch(text, /outcome="-?\d+"/, 'no outcome is a bare error code');
});

t.test('the request id: the caller’s is echoed, else one is made', async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  const { key } = await tg.key();
  const mine = await tg.rpc({ method: 'agents/list', key, params: {}, headers: { 'X-Request-Id': 'abc-123' } });
  t.equal(mine.headers.get('x-request-id'), 'abc-123');
  const made = await tg.rpc({ method: 'agents/list', key, params: {}, headers: { 'X-Request-Id': 'bad id\twith spaces' } });
  t.match(made.headers.get('x-request-id'), /^[0-9a-f]{8}-[0-9a-z]+$/, 'an unsafe id is replaced');
  const other = await tg.rpc({ method: 'agents/list', key, params: {} });
  t.not(other.headers.get('x-request-id'), made.headers.get('x-request-id'), 'ids differ per call');
});

t.test('open SSE streams and live tasks by state are read at scrape time', async (t) => {
  const tg = await startTestGateway();
  t.teardown(() => tg.close());
  const { key } = await tg.key({ trust: 'admin' });
  const sse = await openSse({
    url: tg.url,
    key,
    method: 'message/stream',
    params: { message: { ...msgB('x').message, parts: [{ kind: 'data', data: { ms: 60_000, steps: 1 } }], metadata: { agentId: 'slow' } } },
  });
  t.equal(sse.status, 200);
  let first = await sse.next();
  while (first && !first.data) first = await sse.next();
  const taskId = first?.data?.result?.id;
  t.ok(taskId, 'the stream opened with its task');
  await until(async () => sample(await (await fetch(`${tg.url}/metrics`)).text(), 'a2a_tasks_active', { state: 'working' }) === 1, 'the task is working');
  const text = await scrape(t, tg.url);
  t.equal(sample(text, 'a2a_sse_streams_open'), 1, 'one stream open');
  t.equal(sample(text, 'a2a_tasks_active', { state: 'working' }), 1, 'one task working');
  const c = await tg.rpc({ method: 'tasks/cancel', key, params: { id: taskId } });
  t.equal(c.json?.result?.status?.state, 'canceled');
  await sse.all();
  await until(async () => sample(await (await fetch(`${tg.url}/metrics`)).text(), 'a2a_sse_streams_open') === 0, 'the stream is counted closed');
  t.equal(sample(await scrape(t, tg.url), 'a2a_tasks_active', { state: 'working' }), 0, 'nothing works now');
});

t.test('relay tunnels and relay agents, webhook deliveries: counted as they happen', async (t) => {
  const tg = await startTestGateway({ config: { push: { allowlist: ['127.0.0.1'] } } });
  t.teardown(() => tg.close());
  const { key } = await tg.key({ trust: 'admin' });
  const relayKey = await tg.key({ trust: 'execute' });
  await addRelay(
    { relays: tg.gw.store.relays, keys: tg.gw.store.keys, clock: { now: () => Date.now() } },
    { workspace: 'ws1', name: 'home', key: relayKey.id },
  );
  const before = await scrape(t, tg.url);
  t.equal(sample(before, 'a2a_relay_tunnels_open'), 0);
  const { client, answer } = await connectRelay({
    url: tg.url,
    key: relayKey.key,
    workspace: 'ws1',
    agents: [
      { name: 'a1', description: 'one', skills: [], streaming: false },
      { name: 'a2', description: 'two', skills: [], streaming: false },
    ],
  });
  t.equal(answer.t, 'welcome');
  const up = await scrape(t, tg.url);
  t.equal(sample(up, 'a2a_relay_tunnels_open'), 1, 'one tunnel open');
  t.equal(sample(up, 'a2a_relay_agents', { status: 'up' }), 2, 'its two agents up');
  client.close();
  await until(async () => sample(await (await fetch(`${tg.url}/metrics`)).text(), 'a2a_relay_tunnels_open') === 0, 'the tunnel is counted closed');
  const down = await scrape(t, tg.url);
  t.equal(sample(down, 'a2a_relay_agents', { status: 'down' }), 2, 'its agents are down while it is away');

  const rx = await startReceiver();
  t.teardown(() => rx.close());
  for (const text of ['one', 'two']) {
    await tg.rpc({
      method: 'message/send',
      key,
      params: { ...msgB(text), metadata: { agentId: 'echo' }, configuration: { pushNotificationConfig: { url: rx.url, token: 't' } } },
    });
  }
  await tg.gw.push.idle();
  await until(() => rx.deliveries.length >= 2, 'the deliveries arrived');
  await until(
    async () => sample(await (await fetch(`${tg.url}/metrics`)).text(), 'a2a_push_deliveries_total', { result: 'delivered' }) === rx.deliveries.length,
    'each delivery is counted once',
  );
  t.pass('push deliveries counted');
});

t.test('outbound calls by outcome and connections by state', async (t) => {
  const peer = await startTestGateway();
  t.teardown(() => peer.close());
  const peerKey = await peer.key({ workspace: 'partner', trust: 'admin' });
  const tg = await startTestGateway({
    config: {
      push: { allowlist: ['127.0.0.1'] },
      agents: [
        { id: 'partner-echo', name: 'partner-echo', kind: 'remote', connection: 'partner', workspace: 'ws1' },
        { id: 'nowhere', name: 'nowhere', kind: 'remote', connection: 'missing', workspace: 'ws1' },
      ],
    },
  });
  t.teardown(() => tg.close());
  const { key } = await tg.key({ trust: 'admin' });
  await addConnection(
    { connections: tg.gw.store.connections, secret: tg.gw.secret, clock: { now: () => Date.now() }, allowlist: parseAllowlist(['127.0.0.1']) },
    { workspace: 'ws1', name: 'partner', url: `${peer.url}/api/a2a/agents/echo`, credentials: { kind: 'bearer', token: peerKey.key }, trust: 'admin' },
  );
  await tg.gw.connections.rescan();
  for (const agentId of ['partner-echo', 'partner-echo', 'nowhere']) {
    await tg.rpc({ method: 'message/send', key, params: { ...msgB('out'), metadata: { agentId } } });
  }
  const text = await scrape(t, tg.url);
  t.equal(sample(text, 'a2a_outbound_calls_total', { outcome: 'ok' }), 2, 'two calls went through');
  t.equal(sample(text, 'a2a_outbound_calls_total', { outcome: 'no_connection' }), 1, 'one had no connection');
  t.equal(sample(text, 'a2a_connections', { state: 'ready' }), 1, 'the connection is ready');
});

t.test('metrics off: no /metrics route', async (t) => {
  const tg = await startTestGateway({ config: { metrics: { enabled: false } } });
  t.teardown(() => tg.close());
  t.equal((await fetch(`${tg.url}/metrics`)).status, 404);
});

/** Every sample of `name` (any labels) added up: the GC histogram counts collections by kind. */
t.test("a closed gateway's process metrics stop: its GC observer and event-loop monitor no longer run", async (t) => {
  const tg = await startTestGateway();
  const { metrics } = tg.gw;
  const GC = 'a2a_nodejs_gc_duration_seconds_count';
  const open = total(await metrics.text(), GC);
  await collectGarbage();
  t.ok(total(await metrics.text(), GC) > open, 'while open, a GC is counted');

  await tg.close();
  // a scrape resets the event-loop histogram: from here on it holds only what is sampled after the close
  const closed = total(await metrics.text(), GC);
  await collectGarbage();
  // a monitor of our own at the gateway's resolution: once it has sampled, a running one would have too
  const own = monitorEventLoopDelay({ resolution: 10 });
  own.enable();
  await until(() => own.count >= 3, 'the loop is sampled');
  own.disable();
  const after = await metrics.text();
  t.equal(total(after, GC), closed, 'after close, a GC is not counted');
  t.ok(Number.isNaN(sample(after, 'a2a_nodejs_eventloop_lag_mean_seconds')), 'after close, the event loop is not sampled (an empty histogram has no mean)');
});
