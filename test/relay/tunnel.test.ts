// The relay's tunnel against a stand-in gateway end (test/support/tunnel-gateway.ts; the real endpoint is being built in
// parallel), with real local agents: the official SDK 0.3 server and a second instance of this gateway whose demo agents
// (echo, converse, slow) are the local A2A endpoints. hello with the cards; run → events → done (blocking and streamed);
// a multi-turn follow-up; cancel reaching the local task; a local agent slower than the timeout; bad frames survived;
// debug frame logs without keys or bodies.
import t from 'tap';
import type { AgentEvent } from '../../src/protocol/agent-events.js';
import type { Message } from '../../src/protocol/model.js';
import { MAX_FRAME_BYTES, type RelayFrame } from '../../src/protocol/tunnel.js';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import { parseRelayConfig, type RelayConfig } from '../../relay/config.js';
import { type Relay, startRelay } from '../../relay/relay.js';
import { until, userMessage } from '../support/a2a-client.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { cardServer } from '../support/card-server.js';
import { startSdkRemote, type SdkRemote } from '../support/sdk-remote.js';
import { type StandInGateway, startStandInGateway } from '../support/tunnel-gateway.js';

const RELAY_KEY = 'relay-key-Hq83bV0sLk';
let sdk: SdkRemote;
let local: TestGateway;
let localKey: string;
let gw: StandInGateway;
let relay: Relay;
const logs: string[] = [];

const config = (extra: Record<string, unknown> = {}): RelayConfig => {
  const gwAgent = (name: string) => ({
    name: `gw-${name}`,
    description: `the gateway's ${name}`,
    local_url: `${local.url}/api/a2a/agents/${name}`,
    credentials: { kind: 'bearer', token: localKey },
  });
  return parseRelayConfig({
    text: JSON.stringify({
      workspace_id: 'ws1',
      api_key: RELAY_KEY,
      gateway_url: gw.url,
      health_check_interval: 3600,
      log_level: 'debug',
      agents: [
        { name: 'sdk-echo', description: 'the SDK echo', local_url: sdk.url, skills: [{ id: 'echo', name: 'Echo', description: 'echoes' }] },
        gwAgent('echo'),
        gwAgent('converse'),
        gwAgent('slow'),
      ],
      ...extra,
    }),
  });
};

t.before(async () => {
  sdk = await startSdkRemote();
  local = await startTestGateway();
  localKey = (await local.key({ trust: 'admin' })).key;
  gw = await startStandInGateway({ key: RELAY_KEY });
  relay = await startRelay({ config: config(), log: (msg, f) => logs.push(`${msg} ${JSON.stringify(f ?? {})}`) });
  await gw.connected();
});
t.teardown(async () => {
  await relay.stop();
  await gw.close();
  await local.close();
  await sdk.close();
});

let nextSid = 1;
const task = (history: Message[] = []) => ({ id: `t-${nextSid}`, contextId: `c-${nextSid}`, history, artifacts: [], metadata: {} });

/** sends a run frame; resolves with its events and how it ended */
async function run(agent: string, message: Message, o: { stream?: boolean; history?: Message[]; onSent?: (sid: number) => void } = {}) {
  const sid = nextSid++;
  const from = gw.frames.length;
  gw.send({ t: 'run', sid, agent, task: task(o.history), message, stream: o.stream ?? false });
  o.onSent?.(sid);
  const end = await gw.waitFor((f) => (f.t === 'done' || f.t === 'fail') && f.sid === sid, from);
  const events = gw.frames
    .slice(from)
    .filter((f): f is Extract<RelayFrame, { t: 'event' }> => f.t === 'event' && f.sid === sid)
    .map((f) => f.event);
  return { sid, end, events };
}

const texts = (events: AgentEvent[]) =>
  events.flatMap((e) => (e.type === 'artifact' ? e.artifact.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])) : []));
const final = (events: AgentEvent[]) => events.filter((e) => e.type === 'status').at(-1);

t.test('hello carries the workspace and every agent card; the upgrade carried the key as Bearer', async (t) => {
  const hello = gw.frames[0];
  t.equal(hello?.t, 'hello');
  if (hello?.t !== 'hello') return;
  t.equal(hello.workspace, 'ws1');
  t.same(
    hello.agents.map((a) => a.name),
    ['sdk-echo', 'gw-echo', 'gw-converse', 'gw-slow'],
  );
  t.same(hello.agents[0]?.skills, [{ id: 'echo', name: 'Echo', description: 'echoes' }]);
  t.equal(gw.upgrades[0]?.authorization, `Bearer ${RELAY_KEY}`);
  t.equal(relay.tunnel().state, 'session', 'the session is up');
});

t.test('a run on the SDK 0.3 server: artifact and completed status as events, then done', async (t) => {
  const r = await run('sdk-echo', userMessage('hello sdk'));
  t.equal(r.end.t, 'done');
  t.same(texts(r.events), ['hello sdk']);
  t.equal(final(r.events)?.state, 'completed');
});

t.test("a streamed run on the gateway's echo agent", async (t) => {
  const r = await run('gw-echo', userMessage('hello gateway'), { stream: true });
  t.equal(r.end.t, 'done');
  t.same(texts(r.events), ['hello gateway']);
  t.equal(final(r.events)?.state, 'completed');
});

t.test("a streamed run on slow: each step's progress comes up as it happens", async (t) => {
  const r = await run('gw-slow', userMessage('', { parts: [{ kind: 'data', data: { ms: 300, steps: 3 } }] }), { stream: true });
  t.equal(r.end.t, 'done');
  t.same(texts(r.events), ['chunk 1/3\n', 'chunk 2/3\n', 'chunk 3/3\n']);
  t.ok(r.events.filter((e) => e.type === 'status' && e.state === 'working').length >= 3, 'working steps');
});

t.test('a multi-turn task: input-required, then the follow-up continues the same local task', async (t) => {
  const first = userMessage('hi there');
  const r1 = await run('gw-converse', first, { stream: true });
  t.equal(r1.end.t, 'done');
  const ask = final(r1.events);
  t.equal(ask?.state, 'input-required');
  if (ask?.type !== 'status') return;
  const agentMsg: Message = {
    role: 'agent',
    messageId: 'a1',
    parts: ask.message?.parts ?? [],
    ...(ask.message?.metadata && { metadata: ask.message.metadata }),
  };
  const ref = ask.message?.metadata?.internal_task_id as { taskId?: string } | undefined;
  t.type(ref?.taskId, 'string', "the local task's id rides in the question's metadata");
  const r2 = await run('gw-converse', userMessage('done'), { history: [first, agentMsg] });
  t.equal(r2.end.t, 'done');
  t.equal(final(r2.events)?.state, 'completed');
  await until(async () => (await local.gw.store.tasks.get('ws1', ref?.taskId ?? ''))?.status.state === 'completed', 'the local task completed');
  t.pass('the local task that asked is the one that completed');
});

t.test('cancel aborts the local call: the local slow task ends canceled, the turn fails canceled', async (t) => {
  const before = new Set((await local.gw.store.tasks.listByState(['working', 'canceled'])).map((x) => x.id));
  let sid = -1;
  const done = run('gw-slow', userMessage('', { parts: [{ kind: 'data', data: { ms: 60_000, steps: 600 } }] }), {
    stream: true,
    onSent: (s) => {
      sid = s;
    },
  });
  // the local task is running once its first step came up
  await gw.waitFor((f) => f.t === 'event' && f.sid === sid && f.event.type === 'artifact');
  gw.send({ t: 'cancel', sid });
  const r = await done;
  t.equal(r.end.t, 'fail');
  if (r.end.t === 'fail') t.equal(r.end.reason, 'canceled');
  await until(
    async () => (await local.gw.store.tasks.listByState(['canceled'])).some((x) => x.agentId === 'slow' && !before.has(x.id)),
    'the local task canceled',
  );
  t.pass('the local task ended canceled');
});

t.test('a run for an agent this relay does not serve fails at once; bad frames are logged and survived', async (t) => {
  const r = await run('nobody', userMessage('x'));
  t.equal(r.end.t, 'fail');
  if (r.end.t === 'fail') t.equal(r.end.reason, 'unknown_agent');
  gw.sendRaw(Buffer.from([0xc1, 0xc1, 0xc1]));
  gw.sendRaw(Buffer.from([0x81, 0xa1, 0x74, 0xa3, 0x62, 0x61, 0x64])); // {t: 'bad'}
  await until(() => logs.some((l) => l.startsWith('relay frame is not valid')), 'the invalid frame logged');
  const again = await run('sdk-echo', userMessage('still here'));
  t.equal(again.end.t, 'done', 'the tunnel still serves');
});

t.test('log_level debug logs each frame kind, stream id and size, never a key or a body', async (t) => {
  const frameLogs = logs.filter((l) => l.startsWith('relay frame {'));
  t.ok(frameLogs.some((l) => l.includes('"dir":"in"') && l.includes('"kind":"run"') && l.includes('"sid"') && l.includes('"bytes"')));
  t.ok(frameLogs.some((l) => l.includes('"dir":"out"') && l.includes('"kind":"event"')));
  t.notOk(
    logs.some((l) => l.includes(RELAY_KEY) || l.includes(localKey)),
    'no key in any log line',
  );
  t.notOk(
    logs.some((l) => l.includes('hello sdk') || l.includes('still here')),
    'no message body in any log line',
  );
});

t.test('a local agent slower than local_timeout_seconds: fail local_agent_timeout, the local task canceled', async (t) => {
  const gw2 = await startStandInGateway({ key: RELAY_KEY });
  t.teardown(() => gw2.close());
  const quick = await startRelay({
    config: { ...config({ local_timeout_seconds: 0.5 }), gateway_url: gw2.url },
    log: () => {},
  });
  t.teardown(() => quick.stop());
  await gw2.connected();
  const before = new Set((await local.gw.store.tasks.listByState(['canceled'])).map((x) => x.id));
  gw2.send({
    t: 'run',
    sid: 1,
    agent: 'gw-slow',
    task: task(),
    message: userMessage('', { parts: [{ kind: 'data', data: { ms: 60_000, steps: 1 } }] }),
    stream: true,
  });
  const end = await gw2.waitFor((f) => f.t === 'fail' || f.t === 'done');
  t.equal(end.t, 'fail');
  if (end.t === 'fail') t.equal(end.reason, 'local_agent_timeout');
  await until(
    async () => (await local.gw.store.tasks.listByState(['canceled'])).some((x) => x.agentId === 'slow' && !before.has(x.id)),
    'the local task canceled',
  );
  t.pass('the aborted local call canceled the local task');
});

t.test('LOCAL_AGENT_URL: the one agent is announced from its own card, and serves', async (t) => {
  const gw3 = await startStandInGateway({ key: RELAY_KEY });
  t.teardown(() => gw3.close());
  const lines: string[] = [];
  const one = await startRelay({
    config: parseRelayConfig({ env: { SVC_API_KEY: RELAY_KEY, SVC_WORKSPACE_ID: 'ws1', SVC_GATEWAY_URL: gw3.url, LOCAL_AGENT_URL: sdk.url } }),
    log: (m, f) => lines.push(`${m} ${JSON.stringify(f ?? {})}`),
  });
  t.teardown(() => one.stop());
  await gw3.connected();
  const hello = gw3.frames[0];
  if (hello?.t !== 'hello') return t.fail('hello first');
  t.same(hello.agents, [
    {
      name: 'sdk-echo',
      description: 'Echoes the text it receives (the official SDK server).',
      skills: [{ id: 'echo', name: 'echo', description: 'echo' }],
      streaming: true,
    },
  ]);
  gw3.send({ t: 'run', sid: 7, agent: 'sdk-echo', task: task(), message: userMessage('auto'), stream: false });
  t.equal((await gw3.waitFor((f) => (f.t === 'done' || f.t === 'fail') && f.sid === 7)).t, 'done');

  // a refusal the gateway sends before it closes is logged
  gw3.send({ t: 'error', message: 'unknown agent name in hello' });
  await until(() => lines.some((l) => l.includes('relay refused by the gateway') && l.includes('unknown agent name in hello')), 'the error logged');
  t.pass('the error frame is logged');
});

t.test('the tunnel cut mid-turn: the local call is aborted, so the local task ends canceled', async (t) => {
  const gw4 = await startStandInGateway({ key: RELAY_KEY });
  t.teardown(() => gw4.close());
  const r4 = await startRelay({ config: { ...config(), gateway_url: gw4.url }, log: () => {} });
  t.teardown(() => r4.stop());
  await gw4.connected();
  const before = new Set((await local.gw.store.tasks.listByState(['canceled'])).map((x) => x.id));
  gw4.send({
    t: 'run',
    sid: 1,
    agent: 'gw-slow',
    task: task(),
    message: userMessage('', { parts: [{ kind: 'data', data: { ms: 60_000, steps: 600 } }] }),
    stream: true,
  });
  await gw4.waitFor((f) => f.t === 'event' && f.event.type === 'artifact');
  gw4.drop();
  await until(
    async () => (await local.gw.store.tasks.listByState(['canceled'])).some((x) => x.agentId === 'slow' && !before.has(x.id)),
    'the local task canceled',
  );
  t.pass('the local task was canceled');
});

t.test('an event over the frame bound fails the turn event_too_large (nothing half-sent), the tunnel stays', async (t) => {
  const big: AgentExecutor = {
    async execute(ctx, bus) {
      const base = { taskId: ctx.taskId, contextId: ctx.contextId };
      bus.publish({
        kind: 'task',
        id: ctx.taskId,
        contextId: ctx.contextId,
        status: { state: 'working', timestamp: new Date().toISOString() },
        history: [ctx.userMessage],
      });
      bus.publish({ kind: 'artifact-update', ...base, artifact: { artifactId: 'big', parts: [{ kind: 'text', text: 'x'.repeat(MAX_FRAME_BYTES + 1) }] } });
      bus.publish({ kind: 'status-update', ...base, status: { state: 'completed', timestamp: new Date().toISOString() }, final: true });
      bus.finished();
    },
    async cancelTask() {},
  };
  const bigRemote = await startSdkRemote({ executor: big });
  t.teardown(() => bigRemote.close());
  const gw5 = await startStandInGateway({ key: RELAY_KEY });
  t.teardown(() => gw5.close());
  const r5 = await startRelay({
    config: parseRelayConfig({
      text: JSON.stringify({ workspace_id: 'ws1', api_key: RELAY_KEY, gateway_url: gw5.url, agents: [{ name: 'big', local_url: bigRemote.url }] }),
    }),
    log: () => {},
  });
  t.teardown(() => r5.stop());
  await gw5.connected();
  gw5.send({ t: 'run', sid: 1, agent: 'big', task: task(), message: userMessage('make it big'), stream: true });
  const end = await gw5.waitFor((f) => f.t === 'fail' || f.t === 'done');
  t.equal(end.t, 'fail');
  if (end.t === 'fail') t.equal(end.reason, 'event_too_large');
  t.notOk(
    gw5.frames.some((f) => f.t === 'event' && f.event.type === 'artifact'),
    'the oversized artifact was not sent',
  );
  t.equal(r5.tunnel().state, 'session', 'the tunnel is still up');
});

t.test("a local agent's error goes up as a fixed reason and text; the detail stays in the relay's own log", async (t) => {
  const leaky = 'TypeError: cannot read x of undefined\n    at handler (/srv/agents/bad/app.js:12:5) via http://db.internal.corp:5432/';
  const bad = await cardServer(t);
  bad.route.set('/bad/.well-known/agent-card.json', () => ({
    status: 200,
    body: { name: 'bad', description: '', url: `${bad.url}/bad/rpc`, version: '1', protocolVersion: '0.3.0', capabilities: { streaming: false } },
  }));
  bad.route.set('/bad/rpc', (_h, body) => ({ status: 200, body: { jsonrpc: '2.0', id: JSON.parse(body).id, error: { code: -32603, message: leaky } } }));
  const gw6 = await startStandInGateway({ key: RELAY_KEY });
  t.teardown(() => gw6.close());
  const own: string[] = [];
  const r6 = await startRelay({
    config: parseRelayConfig({
      text: JSON.stringify({ workspace_id: 'ws1', api_key: RELAY_KEY, gateway_url: gw6.url, agents: [{ name: 'bad', local_url: `${bad.url}/bad` }] }),
    }),
    log: (msg, f) => own.push(`${msg} ${JSON.stringify(f ?? {})}`),
  });
  t.teardown(() => r6.stop());
  await gw6.connected();
  gw6.send({ t: 'run', sid: 1, agent: 'bad', task: task(), message: userMessage('go'), stream: false });
  const end = await gw6.waitFor((f) => f.t === 'fail' || f.t === 'done');
  t.match(end, { t: 'fail', reason: 'local_agent_error' });
  if (end.t === 'fail') t.notMatch(end.message, /TypeError|\/srv\/|internal\.corp|-32603|127\.0\.0\.1/, 'the frame carries no local detail');
  t.ok(
    own.some((l) => l.startsWith('relay turn failed') && l.includes('TypeError')),
    "the relay's log keeps the local agent's error",
  );
});
