// The relay tunnel, gateway side: a real gateway on port 0 and relays as real WebSocket clients sending msgpack frames.
// Who may open a tunnel, what hello registers, turns carried both ways (both caller dialects, streaming, cancel),
// a tunnel lost mid-turn, an absent relay, a revoked key, and hostile relays that must not disturb another relay.
import { unpack } from 'msgpackr';
import t, { type Test } from 'tap';
import { parseConfig } from '../../src/config/parse.js';
import { MAX_FRAME_BYTES } from '../../src/protocol/tunnel.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { RELAY_SYNC_MS } from '../../src/gateway/relay/hub.js';
import { addRelay, removeRelay, setRelayAgent } from '../../src/runtime/relay-admin.js';
import { msgA, msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { openSse } from '../support/sse.js';
import { connectRelay, echoTurns, openTunnel } from '../support/tunnel-client.js';

t.setTimeout(120_000);

const card = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `local ${name}`,
  skills: [{ id: `${name}-skill`, name: 'Local skill', description: 'a skill of the local agent' }],
  streaming: true,
  ...extra,
});

interface Setup {
  g: TestGateway;
  logs: Array<{ msg: string; fields?: Record<string, unknown> }>;
  /** registers relay `name` in `workspace` with a fresh key; returns the key */
  relay(name: string, workspace?: string): Promise<{ key: string; id: string }>;
  logged(re: RegExp): boolean;
}

async function setup(t: Test): Promise<Setup> {
  const logs: Setup['logs'] = [];
  const g = await startTestGateway({ config: { streaming: { keyCheckMs: 50 } }, log: (msg, fields) => logs.push({ msg, fields }) });
  t.teardown(() => g.close());
  const deps = { relays: g.gw.store.relays, keys: g.gw.store.keys, clock: { now: () => Date.now() } };
  return {
    g,
    logs,
    async relay(name, workspace = 'ws1') {
      const k = await g.key({ workspace, trust: 'execute' });
      await addRelay(deps, { workspace, name, key: k.id });
      return k;
    },
    logged: (re) => logs.some((l) => re.test(`${l.msg} ${JSON.stringify(l.fields ?? {})}`)),
  };
}

const until = async (what: string, check: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
};

t.test('the upgrade is refused for a wrong, foreign, revoked or expired key, and nothing is announced', async (t) => {
  const s = await setup(t);
  const relayKey = await s.relay('home');
  const plain = await s.g.key({ workspace: 'ws1' });
  const wrong = await openTunnel({ url: s.g.url, key: plain.key });
  t.match(wrong, { ok: false, status: 403 }, 'a key of the workspace that is not the relay key');
  if (!wrong.ok) t.match(wrong.body, /not the key of a registered relay/);
  const none = await openTunnel({ url: s.g.url });
  t.match(none, { ok: false, status: 401 }, 'no key');
  const bogus = await openTunnel({ url: s.g.url, key: 'svc_a2a_nope' });
  t.match(bogus, { ok: false, status: 401 }, 'an unknown key');
  // a relay record naming another workspace's key (written past the admin, which refuses it) opens nothing
  const foreign = await s.g.key({ workspace: 'ws2' });
  const now = Date.now();
  await s.g.gw.store.relays.insert({ id: 'relay_x', workspace: 'ws1', name: 'stolen', keyId: foreign.id, agents: {}, createdAt: now, updatedAt: now });
  t.match(await openTunnel({ url: s.g.url, key: foreign.key }), { ok: false, status: 403 }, 'a key of another workspace');
  const expired = await s.g.key({ workspace: 'ws1', expiresAt: Date.now() + 60_000 });
  // it lapses (written to the store as the passing of time would make it)
  await s.g.gw.store.keys.put({ ...(await s.g.gw.store.keys.get(expired.id))!, expiresAt: Date.now() - 1000 });
  await s.g.gw.store.relays.insert({ id: 'relay_e', workspace: 'ws1', name: 'expired', keyId: expired.id, agents: {}, createdAt: now, updatedAt: now });
  t.match(await openTunnel({ url: s.g.url, key: expired.key }), { ok: false, status: 401 }, 'an expired key');
  const rec = await s.g.gw.store.keys.get(relayKey.id);
  await s.g.gw.store.keys.put({ ...rec!, revokedAt: Date.now() });
  const revoked = await openTunnel({ url: s.g.url, key: relayKey.key });
  t.match(revoked, { ok: false, status: 401 }, 'a revoked key');
  if (!revoked.ok) t.match(revoked.body, /revoked/);
  const caller = await s.g.key({ workspace: 'ws1' });
  const list = await s.g.rpc({ method: 'agents/list', key: caller.key });
  t.notOk(
    list.json.result.agents.some((a: any) => a.kind === 'relay'),
    'no relay agent was registered',
  );
});

t.test('hello registers the agents; a send runs over the tunnel in both dialects; streaming; cancel', async (t) => {
  const s = await setup(t);
  const k = await s.relay('home');
  // local-slow may be streamed and canceled (admin); local-echo keeps the default, execute
  await setRelayAgent(
    { relays: s.g.gw.store.relays, keys: s.g.gw.store.keys, clock: { now: () => Date.now() } },
    {
      workspace: 'ws1',
      name: 'home',
      agent: 'local-slow',
      trust: 'admin',
    },
  );
  const { client, answer } = await connectRelay({ url: s.g.url, key: k.key, workspace: 'ws1', agents: [card('local-echo'), card('local-slow')] });
  t.match(answer, {
    t: 'welcome',
    v: 1,
    relay: 'home',
    agents: [
      { name: 'local-echo', trust: 'execute' },
      { name: 'local-slow', trust: 'admin' },
    ],
  });
  const caller = await s.g.key({ workspace: 'ws1' });
  const other = await s.g.key({ workspace: 'ws2' });

  const list = await s.g.rpc({ method: 'agents/list', key: caller.key });
  t.match(
    list.json.result.agents.find((a: any) => a.id === 'local-echo'),
    { id: 'local-echo', description: 'local local-echo', kind: 'relay', online: true, skills: [{ id: 'local-echo-skill' }] },
    'listed, online',
  );
  const ext = await s.g.rpc({ method: 'agent/getAuthenticatedExtendedCard', key: caller.key });
  t.ok(JSON.stringify(ext.json.result).includes('local-echo-skill'), 'the extended card carries its skills');
  const foreign = await s.g.rpc({ method: 'agents/list', key: other.key });
  t.notOk(
    foreign.json.result.agents.some((a: any) => a.id === 'local-echo'),
    'another workspace does not see it',
  );
  t.equal((await s.g.rpc({ method: 'message/send', key: other.key, params: msgB('x'), path: '/api/a2a/agents/local-echo' })).json.error?.code, -32005);

  // dialect B: the relay sees a run frame and answers with events and done
  const runB = client.next((f) => f.t === 'run');
  const sendB = s.g.rpc({ method: 'message/send', key: caller.key, params: msgB('hello B'), path: '/api/a2a/agents/local-echo' });
  const run = await runB;
  t.match(run, { t: 'run', agent: 'local-echo', message: { parts: [{ kind: 'text', text: 'hello B' }] }, stream: true });
  t.type(run.sid, 'number');
  t.match(run.task, { id: String, contextId: String, history: Array });
  client.send({ t: 'event', sid: run.sid, event: { type: 'artifact', artifact: { name: 'out', parts: [{ kind: 'text', text: 'from local B' }] } } });
  client.send({ t: 'event', sid: run.sid, event: { type: 'status', state: 'completed' } });
  client.send({ t: 'done', sid: run.sid });
  const b = (await sendB).json.result;
  t.equal(b.status.state, 'completed');
  t.equal(b.artifacts[0].parts[0].text, 'from local B', 'the caller gets what the local agent produced');

  echoTurns(client, 'local-echo');
  // dialect A
  const a = await s.g.rpc({ method: 'tasks/send', key: caller.key, params: msgA('hello A', { id: 'task-a-1' }), path: '/api/a2a/agents/local-echo' });
  t.equal(a.json.result.status.state, 'completed');
  t.equal(a.json.result.artifacts[0].parts[0].text, 'echo: hello A', 'rev A caller gets the completed task');

  // the default trust (execute) caps callers: send and get, no stream, no cancel
  const capped = await openSse({ url: s.g.url, key: caller.key, method: 'message/stream', params: msgB('nope'), path: '/api/a2a/agents/local-echo' });
  t.match(JSON.stringify(capped.json ?? (await capped.all())), /trust level does not allow tasks\.stream/, 'streaming an execute agent is refused');
  const cancelA = await s.g.rpc({ method: 'tasks/cancel', key: caller.key, params: { id: 'task-a-1' } });
  t.match(cancelA.json.error?.message, /trust level does not allow tasks\.cancel/, 'so is canceling its task');

  // a streaming caller gets the events live, each as the relay sends it
  const slowRun = client.next((f) => f.t === 'run' && f.agent === 'local-slow');
  const sse = await openSse({ url: s.g.url, key: caller.key, method: 'message/stream', params: msgB('long'), path: '/api/a2a/agents/local-slow' });
  const sr = await slowRun;
  const states: string[] = [];
  let taskId: string | undefined;
  const readUntil = async (pred: (r: any) => boolean) => {
    for (;;) {
      const f = await sse.next();
      if (!f) throw new Error('stream ended');
      const r = f.data?.result;
      if (!r) continue;
      taskId ??= r.kind === 'task' ? r.id : r.taskId;
      if (r.status?.state) states.push(r.status.state);
      if (pred(r)) return r;
    }
  };
  client.send({ t: 'event', sid: sr.sid, event: { type: 'status', state: 'working', message: { parts: [{ kind: 'text', text: 'step 1' }] } } });
  await readUntil((r) => r.status?.state === 'working' && JSON.stringify(r).includes('step 1'));
  t.pass('the working event reached the caller while the turn runs');
  client.send({ t: 'event', sid: sr.sid, event: { type: 'artifact', artifact: { name: 'part', parts: [{ kind: 'text', text: 'partial' }] } } });
  const art = await readUntil((r) => r.kind === 'artifact-update');
  t.equal(art.artifact.parts[0].text, 'partial', 'the artifact event too, live');

  // cancel: the relay gets a cancel frame for the turn's sid, the task ends canceled
  const cancelFrame = client.next((f) => f.t === 'cancel');
  const canceled = await s.g.rpc({ method: 'tasks/cancel', key: caller.key, params: { id: taskId } });
  t.equal((await cancelFrame).sid, sr.sid, 'cancel names the turn');
  t.equal(canceled.json.result?.status?.state, 'canceled');
  sse.close();
  client.close();
});

t.test('a tunnel lost mid-turn fails the turn with relay_disconnected; then the agents are offline and refuse at once', async (t) => {
  const s = await setup(t);
  const k = await s.relay('home');
  const { client } = await connectRelay({ url: s.g.url, key: k.key, workspace: 'ws1', agents: [card('local-echo')] });
  const caller = await s.g.key({ workspace: 'ws1' });
  const run = client.next((f) => f.t === 'run');
  const send = s.g.rpc({ method: 'message/send', key: caller.key, params: msgB('never answered'), path: '/api/a2a/agents/local-echo' });
  await run;
  client.ws.terminate();
  const r = (await send).json.result;
  t.equal(r.status.state, 'failed');
  t.match(JSON.stringify(r.status), /relay_disconnected|tunnel closed/, 'the failure names the lost tunnel');

  await until('offline', async () => {
    const l = await s.g.rpc({ method: 'agents/list', key: caller.key });
    return l.json.result.agents.some((a: any) => a.id === 'local-echo' && a.online === false);
  });
  t.pass('the agent stays listed, offline');
  const refused = await s.g.rpc({ method: 'message/send', key: caller.key, params: msgB('anyone there?'), path: '/api/a2a/agents/local-echo' });
  t.equal(refused.json.result.status.state, 'failed', 'refused at once, no hang');
  t.match(JSON.stringify(refused.json.result.status), /offline: its relay home is not connected/);

  // back again: trust set meanwhile is kept; the same agent takes turns again
  await setRelayAgent(
    { relays: s.g.gw.store.relays, keys: s.g.gw.store.keys, clock: { now: () => Date.now() } },
    {
      workspace: 'ws1',
      name: 'home',
      agent: 'local-echo',
      trust: 'admin',
    },
  );
  const again = await connectRelay({ url: s.g.url, key: k.key, workspace: 'ws1', agents: [card('local-echo')] });
  t.match(again.answer, { t: 'welcome', agents: [{ name: 'local-echo', trust: 'admin' }] }, 'trust kept across reconnects');
  echoTurns(again.client);
  const ok = await s.g.rpc({ method: 'message/send', key: caller.key, params: msgB('back'), path: '/api/a2a/agents/local-echo' });
  t.equal(ok.json.result.status.state, 'completed');
  again.client.close();
});

t.test('agent-level permissions: only the listed keys reach the agent', async (t) => {
  const s = await setup(t);
  const k = await s.relay('home');
  const allowed = await s.g.key({ workspace: 'ws1' });
  const barred = await s.g.key({ workspace: 'ws1' });
  await setRelayAgent(
    { relays: s.g.gw.store.relays, keys: s.g.gw.store.keys, clock: { now: () => Date.now() } },
    {
      workspace: 'ws1',
      name: 'home',
      agent: 'local-echo',
      keys: [allowed.id],
    },
  );
  const { client } = await connectRelay({ url: s.g.url, key: k.key, workspace: 'ws1', agents: [card('local-echo')] });
  echoTurns(client);
  t.equal(
    (await s.g.rpc({ method: 'message/send', key: allowed.key, params: msgB('hi'), path: '/api/a2a/agents/local-echo' })).json.result.status.state,
    'completed',
  );
  const no = await s.g.rpc({ method: 'message/send', key: barred.key, params: msgB('hi'), path: '/api/a2a/agents/local-echo' });
  t.equal(no.json.error?.code, -32005, 'another key of the workspace does not reach it');
  client.close();
});

t.test("agent-level permissions hold for the agent's tasks too: a barred key cannot read, list, continue, cancel or watch them", async (t) => {
  const s = await setup(t);
  const k = await s.relay('home');
  const allowed = await s.g.key({ workspace: 'ws1' });
  const barred = await s.g.key({ workspace: 'ws1' });
  const deps = { relays: s.g.gw.store.relays, keys: s.g.gw.store.keys, clock: { now: () => Date.now() } };
  // admin trust, so that only the permissions (not the agent's trust cap) can stop the barred key
  await setRelayAgent(deps, { workspace: 'ws1', name: 'home', agent: 'local-ask', keys: [allowed.id], trust: 'admin' });
  const { client } = await connectRelay({ url: s.g.url, key: k.key, workspace: 'ws1', agents: [card('local-ask')] });
  // every turn asks a question that quotes what it was told
  client.ws.on('message', (data: Buffer) => {
    const f = unpack(data);
    if (f.t !== 'run') return;
    const text = f.message.parts.map((p: any) => p.text ?? '').join('');
    client.send({ t: 'event', sid: f.sid, event: { type: 'status', state: 'input-required', message: { parts: [{ kind: 'text', text: `about ${text}?` }] } } });
    client.send({ t: 'done', sid: f.sid });
  });
  const own = await s.g.rpc({ method: 'message/send', key: allowed.key, params: msgB('private plans'), path: '/api/a2a/agents/local-ask' });
  const id: string = own.json.result.id;
  t.equal(own.json.result.status.state, 'input-required');
  const runsBefore = client.frames.filter((f) => f.t === 'run').length;

  const calls: Array<[string, unknown]> = [
    ['tasks/get', { id }],
    ['GetTask', { id }],
    ['message/send', msgB('barred words', { taskId: id })],
    ['tasks/pushNotificationConfig/set', { taskId: id, pushNotificationConfig: { url: 'https://hooks.example.com/x' } }],
    ['tasks/pushNotificationConfig/list', { taskId: id }],
    ['tasks/cancel', { id }],
    ['CancelTask', { id }],
  ];
  for (const [method, params] of calls) {
    const r = await s.g.rpc({ method, key: barred.key, params });
    t.equal(r.json.error?.code, -32001, `${method}: not found for the barred key`);
    t.notMatch(JSON.stringify(r.json), 'private plans', `${method}: nothing of the task leaks`);
  }
  for (const method of ['tasks/resubscribe', 'SubscribeToTask']) {
    const sse = await openSse({ url: s.g.url, key: barred.key, method, params: { id } });
    const body = JSON.stringify(sse.json ?? (await sse.all()));
    t.match(body, /-32001/, `${method}: not found for the barred key`);
    t.notMatch(body, 'private plans', `${method}: nothing of the task leaks`);
  }
  for (const method of ['tasks/list', 'ListTasks']) {
    const r = await s.g.rpc({ method, key: barred.key, params: {} });
    t.same(r.json.result?.tasks, [], `${method}: the barred key lists none of the agent's tasks`);
  }

  const mine = await s.g.rpc({ method: 'tasks/get', key: allowed.key, params: { id } });
  t.equal(mine.json.result.status.state, 'input-required', 'the task is still waiting: the barred cancel did nothing');
  t.equal(mine.json.result.history.filter((m: any) => m.role === 'user').length, 1, 'and the barred follow-up did not reach it');
  t.equal(client.frames.filter((f) => f.t === 'run').length, runsBefore, 'the relay agent ran no turn for the barred key');
  t.equal((await s.g.rpc({ method: 'tasks/pushNotificationConfig/list', key: allowed.key, params: { taskId: id } })).json.result.length, 0, 'no push config');
  client.close();
});

t.test('revoking the relay key closes its live tunnel', async (t) => {
  const s = await setup(t);
  const k = await s.relay('home');
  const { client } = await connectRelay({ url: s.g.url, key: k.key, workspace: 'ws1', agents: [card('local-echo')] });
  const rec = await s.g.gw.store.keys.get(k.id);
  await s.g.gw.store.keys.put({ ...rec!, revokedAt: Date.now() });
  const closed = await client.closed;
  t.equal(closed.code, 4001, 'closed by the gateway');
  t.match(closed.reason, /key revoked/);
  t.ok(s.logged(/its key lapsed/));
});

t.test('a relay registered again under another key: the tunnel of the old key closes at the next record sync', async (t) => {
  const clock = new ManualClock(Date.now());
  const g = await startTestGateway({ clock, timers: clock });
  t.teardown(() => g.close());
  const admin = { relays: g.gw.store.relays, keys: g.gw.store.keys, clock };
  const oldKey = await g.key({ workspace: 'ws1', trust: 'execute' });
  await addRelay(admin, { workspace: 'ws1', name: 'home', key: oldKey.id });
  const old = await connectRelay({ url: g.url, key: oldKey.key, workspace: 'ws1', agents: [card('local-echo')] });
  echoTurns(old.client);
  const caller = await g.key({ workspace: 'ws1' });
  t.equal(
    (await g.rpc({ method: 'message/send', key: caller.key, params: msgB('hi'), path: '/api/a2a/agents/local-echo' })).json.result.status.state,
    'completed',
  );

  // the operator moves the relay to a new key (remove, then add under the same name) without revoking the old key
  await removeRelay(admin, { workspace: 'ws1', name: 'home' });
  const newKey = await g.key({ workspace: 'ws1', trust: 'execute' });
  await addRelay(admin, { workspace: 'ws1', name: 'home', key: newKey.id });
  clock.advance(RELAY_SYNC_MS);
  const closed = await Promise.race([old.client.closed, new Promise<'open'>((r) => setTimeout(() => r('open'), 3_000))]);
  t.match(closed, { code: 1008, reason: /relay key changed/ }, "the old key's tunnel is closed");
  const r = await g.rpc({ method: 'message/send', key: caller.key, params: msgB('for the old relay?'), path: '/api/a2a/agents/local-echo' });
  // the new record has announced no agent yet: the agent is gone until the new key's relay announces it
  t.equal(r.json.error?.code, -32005, 'the send finds no agent to run on');
  t.equal(old.client.frames.filter((f) => f.t === 'run').length, 1, 'the old relay got only the turn from before');

  const fresh = await connectRelay({ url: g.url, key: newKey.key, workspace: 'ws1', agents: [card('local-echo')] });
  t.equal(fresh.answer.t, 'welcome', 'the relay of the new key connects');
  echoTurns(fresh.client);
  t.equal(
    (await g.rpc({ method: 'message/send', key: caller.key, params: msgB('hi'), path: '/api/a2a/agents/local-echo' })).json.result.status.state,
    'completed',
  );
  fresh.client.close();
  old.client.close();
});

t.test('a relay removed between its upgrade and its hello is refused, and its record stays removed', async (t) => {
  const s = await setup(t);
  const k = await s.relay('home');
  const up = await openTunnel({ url: s.g.url, key: k.key });
  if (!up.ok) throw new Error('upgrade');
  await removeRelay({ relays: s.g.gw.store.relays, keys: s.g.gw.store.keys, clock: { now: () => Date.now() } }, { workspace: 'ws1', name: 'home' });
  up.client.send({ t: 'hello', v: 1, workspace: 'ws1', agents: [card('local-echo')] });
  const answer = await up.client.next((f) => f.t === 'welcome' || f.t === 'error');
  t.equal(answer?.t, 'error', 'no welcome');
  const closed = await Promise.race([up.client.closed, new Promise<'open'>((r) => setTimeout(() => r('open'), 3_000))]);
  t.match(closed, { code: 1008 }, 'the tunnel is closed');
  up.client.close();
  t.equal(await s.g.gw.store.relays.get('ws1', 'home'), undefined, 'the removed record is not written back');
  const caller = await s.g.key({ workspace: 'ws1' });
  const r = await s.g.rpc({ method: 'message/send', key: caller.key, params: msgB('hi'), path: '/api/a2a/agents/local-echo' });
  t.equal(r.json.error?.code, -32005, 'its agent was not registered');
});

t.test('hostile relays are refused or disconnected with a logged reason; another relay keeps working', async (t) => {
  const s = await setup(t);
  const goodKey = await s.relay('good');
  const good = await connectRelay({ url: s.g.url, key: goodKey.key, workspace: 'ws1', agents: [card('good-echo')] });
  echoTurns(good.client);
  const caller = await s.g.key({ workspace: 'ws1' });
  const stillWorks = async (what: string) => {
    const r = await s.g.rpc({ method: 'message/send', key: caller.key, params: msgB(what), path: '/api/a2a/agents/good-echo' });
    t.equal(r.json.result?.status?.state, 'completed', `the other relay still works after ${what}`);
  };

  const garbageKey = await s.relay('garbage');
  const g1 = await openTunnel({ url: s.g.url, key: garbageKey.key });
  if (!g1.ok) throw new Error('upgrade');
  g1.client.raw(Buffer.from([0xc1, 0xff, 0x00, 0x13]));
  t.equal((await g1.client.closed).code, 1002, 'garbage bytes: disconnected');
  t.ok(s.logged(/protocol broken.*(undecodable|invalid frame)/), 'with a logged reason');
  await stillWorks('garbage');

  const bigKey = await s.relay('big');
  const g2 = await connectRelay({ url: s.g.url, key: bigKey.key, workspace: 'ws1', agents: [card('big-echo')] });
  g2.client.raw(Buffer.alloc(MAX_FRAME_BYTES + 1024, 1));
  t.equal((await g2.client.closed).code, 1009, 'oversize frame: disconnected');
  t.ok(s.logged(/protocol broken.*a frame of \d+ bytes \(the bound is/), 'logged with its size');
  await stillWorks('an oversize frame');

  const sidKey = await s.relay('sid');
  const g3 = await connectRelay({ url: s.g.url, key: sidKey.key, workspace: 'ws1', agents: [card('sid-echo')] });
  g3.client.send({ t: 'event', sid: 999, event: { type: 'status', state: 'completed' } });
  t.equal((await g3.client.closed).code, 1002, 'a stream it was never given: disconnected');
  t.ok(s.logged(/stream 999, which it was never given/));
  await stillWorks('an unknown sid');

  const wsKey = await s.relay('elsewhere');
  const g4 = await connectRelay({ url: s.g.url, key: wsKey.key, workspace: 'ws2', agents: [card('ws2-echo')] });
  t.match(g4.answer, { t: 'error', message: /serves workspace ws1, not ws2/ }, 'another workspace in hello');
  t.equal((await g4.client.closed).code, 1008);
  const l2 = await s.g.rpc({ method: 'agents/list', key: (await s.g.key({ workspace: 'ws2' })).key });
  t.notOk(
    l2.json.result.agents.some((a: any) => a.id === 'ws2-echo'),
    'nothing announced in ws2',
  );
  t.ok(s.logged(/hello names another workspace/));

  const shadowKey = await s.relay('shadow');
  const g5 = await connectRelay({ url: s.g.url, key: shadowKey.key, workspace: 'ws1', agents: [card('echo'), card('good-echo'), card('shadow-own')] });
  t.match(g5.answer, { t: 'welcome', agents: [{ name: 'shadow-own' }] }, 'only its own agent is registered');
  t.equal(g5.answer.agents.length, 1);
  t.ok(s.logged(/would shadow another agent.*"agent":"echo"/), 'the configured agent is not shadowed, logged');
  t.ok(s.logged(/would shadow another agent.*"agent":"good-echo"/), "another relay's agent is not taken over");
  const echo = await s.g.rpc({ method: 'message/send', key: caller.key, params: msgB('configured'), path: '/api/a2a/agents/echo' });
  t.equal(echo.json.result.status.state, 'completed', 'the configured echo agent still answers');
  t.notOk(
    g5.client.frames.some((f) => f.t === 'run'),
    'and its turn never reached the hostile relay',
  );
  await stillWorks('a shadowing announcement');
  g5.client.close();
  good.client.close();
});

t.test('the config cannot declare an agent of kind relay (only a relay announces one)', async (t) => {
  t.throws(() => parseConfig({ agents: [{ id: 'x', name: 'X', kind: 'relay' }] }), /agents\[0\]\.kind|agents\.0\.kind|relay agents are announced by a relay/);
});

t.test('liveness: pings every 15 s; a relay silent for 45 s is disconnected and its turn fails', async (t) => {
  const clock = new ManualClock(Date.now());
  const logs: string[] = [];
  const g = await startTestGateway({ clock, timers: clock, log: (msg) => logs.push(msg), config: { streaming: { keyCheckMs: 3_600_000 } } });
  t.teardown(() => g.close());
  const k = await g.key({ workspace: 'ws1', trust: 'execute' });
  await addRelay({ relays: g.gw.store.relays, keys: g.gw.store.keys, clock }, { workspace: 'ws1', name: 'home', key: k.id });
  const { client } = await connectRelay({ url: g.url, key: k.key, workspace: 'ws1', agents: [card('local-echo')] });
  // the ws client answers pings by itself: pings arrive every 15 s and the tunnel holds (a pong may lag a tick: the
  // bound is three of them)
  let pings = 0;
  client.ws.on('ping', () => pings++);
  for (let i = 0; i < 4; i++) {
    clock.advance(15_000);
    await until(`ping ${i + 1}`, () => pings >= i + 1);
  }
  t.equal(client.ws.readyState, client.ws.OPEN, 'a relay that answers pings stays connected past 45 s');
  // now it goes silent: no pongs (a paused socket reads nothing)
  const caller = await g.key({ workspace: 'ws1' });
  const run = client.next((f) => f.t === 'run');
  const send = g.rpc({ method: 'message/send', key: caller.key, params: msgB('hello?'), path: '/api/a2a/agents/local-echo' });
  await run;
  client.ws.pause();
  for (let i = 0; i < 4; i++) clock.advance(15_000);
  const r = (await send).json.result;
  t.equal(r.status.state, 'failed', 'the turn in flight fails');
  t.match(JSON.stringify(r.status), /relay_disconnected|no pong/);
  t.ok(logs.includes('relay tunnel silent: disconnected'));
});
