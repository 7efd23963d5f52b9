// Relay agents with two gateway instances on one Redis: the relay's tunnel is held by instance A, callers reach its
// agents through instance B as well (send in both dialects, streaming, cancel, health), a tunnel lost mid-turn fails
// B's turn at once, an instance that stops renewing its hold takes its relay's agents offline elsewhere, and a relay
// removed by the admin module closes its tunnel on the running instances.
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { addRelay, removeRelay, setRelayAgent } from '../../src/runtime/relay-admin.js';
import { HEALTH_TELL_MS } from '../../src/gateway/relay/health-reports.js';
import { HOLD_RENEW_MS, HOLD_TTL_MS, RELAY_SYNC_MS } from '../../src/gateway/relay/hub.js';
import { startChildServer } from '../support/child-server.js';
import { msgA, msgB, startTestGateway, TEST_SECRET, type TestGateway } from '../support/gateway.js';
import { onRedis, startPair } from '../support/instance-pair.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { openSse } from '../support/sse.js';
import { connectRelay, echoTurns } from '../support/tunnel-client.js';

t.setTimeout(120_000);

const card = (name: string) => ({ name, description: `local ${name}`, skills: [], streaming: true });

const until = async (what: string, check: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
};

interface Pair {
  a: TestGateway;
  b: TestGateway;
  clock: ManualClock;
  logsA: string[];
  admin: Parameters<typeof addRelay>[0];
}

async function pair(t: Test): Promise<Pair> {
  // one manual clock for both: leases, record syncs and pings move only when the test says so
  const clock = new ManualClock(Date.now());
  const logsA: string[] = [];
  const [a, b] = await startPair(t, {
    name: 'relay-scale',
    settings: { streaming: { keyCheckMs: 3_600_000 } },
    clock,
    a: { log: (msg) => logsA.push(msg) },
  });
  return { a, b, clock, logsA, admin: { relays: a.gw.store.relays, keys: a.gw.store.keys, clock } };
}

const agentOn = async (g: TestGateway, key: string, id: string) =>
  (await g.rpc({ method: 'agents/list', key })).json.result.agents.find((x: any) => x.id === id);

t.test('a relay held by A serves callers of B: both dialects, streaming, cancel, health', async (t) => {
  const { a, b, admin, clock } = await pair(t);
  const k = await a.key({ workspace: 'ws1', trust: 'execute' });
  await addRelay(admin, { workspace: 'ws1', name: 'home', key: k.id });
  await setRelayAgent(admin, { workspace: 'ws1', name: 'home', agent: 'local-slow', trust: 'admin' });
  const { client, answer } = await connectRelay({ url: a.url, key: k.key, workspace: 'ws1', agents: [card('local-echo'), card('local-slow')] });
  t.match(answer, { t: 'welcome' });
  const caller = await a.key({ workspace: 'ws1' });

  await until('B lists the agent online', async () => (await agentOn(b, caller.key, 'local-echo'))?.online === true);
  t.match(await agentOn(b, caller.key, 'local-echo'), { kind: 'relay', online: true }, 'B lists A’s relay agent, online');

  echoTurns(client, 'local-echo');
  const sentB = await b.rpc({ method: 'message/send', key: caller.key, params: msgB('via B'), path: '/api/a2a/agents/local-echo' });
  t.equal(sentB.json.result.status.state, 'completed', JSON.stringify(sentB.json));
  t.equal(sentB.json.result.artifacts[0].parts[0].text, 'echo: via B', 'a rev B caller of B gets the local answer through A’s tunnel');
  const sentA = await b.rpc({ method: 'tasks/send', key: caller.key, params: msgA('rev A via B'), path: '/api/a2a/agents/local-echo' });
  t.equal(sentA.json.result.artifacts[0].parts[0].text, 'echo: rev A via B', 'a rev A caller too');
  const onA = await a.rpc({ method: 'tasks/get', key: caller.key, params: { id: sentB.json.result.id } });
  t.equal(onA.json.result.status.state, 'completed', 'the task is in the shared store');

  // streaming through B: events come live; a cancel sent to A (not B, which runs the task) reaches the relay
  const slowRun = client.next((f) => f.t === 'run' && f.agent === 'local-slow');
  const sse = await openSse({ url: b.url, key: caller.key, method: 'message/stream', params: msgB('long'), path: '/api/a2a/agents/local-slow' });
  const run = await slowRun;
  client.send({ t: 'event', sid: run.sid, event: { type: 'artifact', artifact: { name: 'part', parts: [{ kind: 'text', text: 'partial' }] } } });
  let taskId: string | undefined;
  for (;;) {
    const f = await sse.next();
    if (!f) throw new Error('stream ended early');
    const r = f.data?.result;
    taskId ??= r?.kind === 'task' ? r.id : r?.taskId;
    if (r?.kind === 'artifact-update' || (r?.kind === 'task' && r.artifacts?.length)) break;
  }
  t.pass('the artifact the relay sent on A reached the stream on B');
  const cancelFrame = client.next((f) => f.t === 'cancel');
  const canceled = await a.rpc({ method: 'tasks/cancel', key: caller.key, params: { id: taskId } });
  t.equal(canceled.json.result?.status?.state, 'canceled', JSON.stringify(canceled.json));
  t.equal((await cancelFrame).sid, run.sid, 'the cancel reached the relay for that turn');
  sse.close();

  // health: the relay reports its agent down on A; B shows it and refuses at once
  client.send({ t: 'health', agents: [{ name: 'local-echo', up: false, error: 'connection refused' }] });
  await until('B sees the agent down', async () => (await agentOn(b, caller.key, 'local-echo'))?.health?.up === false);
  const refused = await b.rpc({ method: 'message/send', key: caller.key, params: msgB('down?'), path: '/api/a2a/agents/local-echo' });
  t.equal(refused.json.result.status.state, 'failed');
  t.match(JSON.stringify(refused.json.result.status), /is down: its relay home cannot reach it/);
  client.send({ t: 'health', agents: [{ name: 'local-echo', up: true }] });
  // a change within HEALTH_TELL_MS of the last one told waits for the window's end to be told to B
  clock.advance(HEALTH_TELL_MS);
  await until('B sees it up again', async () => (await agentOn(b, caller.key, 'local-echo'))?.health?.up === true);
  const back = await b.rpc({ method: 'message/send', key: caller.key, params: msgB('up'), path: '/api/a2a/agents/local-echo' });
  t.equal(back.json.result.status.state, 'completed', 'and serves again once up');
  client.close();
});

t.test('a tunnel lost mid-turn fails the turn B forwarded; B then lists the agent offline and refuses at once', async (t) => {
  const { a, b, admin } = await pair(t);
  const k = await a.key({ workspace: 'ws1', trust: 'execute' });
  await addRelay(admin, { workspace: 'ws1', name: 'home', key: k.id });
  const { client } = await connectRelay({ url: a.url, key: k.key, workspace: 'ws1', agents: [card('local-echo')] });
  const caller = await a.key({ workspace: 'ws1' });
  await until('B lists the agent online', async () => (await agentOn(b, caller.key, 'local-echo'))?.online === true);
  const run = client.next((f) => f.t === 'run');
  const send = b.rpc({ method: 'message/send', key: caller.key, params: msgB('never answered'), path: '/api/a2a/agents/local-echo' });
  await run;
  client.ws.terminate();
  const r = (await send).json.result;
  t.equal(r.status.state, 'failed');
  t.match(JSON.stringify(r.status), /tunnel closed during the turn/, 'the caller of B is told the tunnel was lost');
  await until('B lists it offline', async () => (await agentOn(b, caller.key, 'local-echo'))?.online === false);
  const refused = await b.rpc({ method: 'message/send', key: caller.key, params: msgB('anyone?'), path: '/api/a2a/agents/local-echo' });
  t.match(JSON.stringify(refused.json.result.status), /offline: its relay home is not connected/, 'refused at once');
});

t.test('a holder killed mid-turn: B fails the turn it forwarded once the lease lapses and lists the agents offline', async (t) => {
  const prefix = testPrefix('relay-kill');
  const clock = new ManualClock(Date.now());
  // A is a real process, killed with SIGKILL: it says nothing on the way out
  const a = await startChildServer({ env: { A2A_STORE: 'redis', REDIS_URL, A2A_REDIS_PREFIX: prefix, A2A_SECRET: TEST_SECRET } });
  t.teardown(() => a.kill('SIGKILL'));
  const b = await startTestGateway({ config: onRedis({ prefix, id: 'gw-b' }), clock, timers: clock });
  t.teardown(async () => {
    await b.close();
    await cleanupPrefix(REDIS_URL, prefix);
  });
  const k = await b.key({ workspace: 'ws1', trust: 'execute' });
  await addRelay({ relays: b.gw.store.relays, keys: b.gw.store.keys, clock }, { workspace: 'ws1', name: 'home', key: k.id });
  const { client } = await connectRelay({ url: a.url, key: k.key, workspace: 'ws1', agents: [card('local-echo')] });
  const caller = await b.key({ workspace: 'ws1' });
  // B read the records before the relay was added: it learns of it from A's word, reading the record then
  await until('B lists the agent online', async () => (await agentOn(b, caller.key, 'local-echo'))?.online === true);
  const run = client.next((f) => f.t === 'run');
  const send = b.rpc({ method: 'message/send', key: caller.key, params: msgB('held up'), path: '/api/a2a/agents/local-echo' });
  await run;
  await a.kill('SIGKILL');
  clock.advance(HOLD_TTL_MS / 2);
  t.equal((await agentOn(b, caller.key, 'local-echo'))?.online, true, 'within the lease B still lists it online');
  // renewals come every HOLD_RENEW_MS: B checks its leases as often, and none came for longer than HOLD_TTL_MS
  clock.advance(HOLD_TTL_MS / 2 + HOLD_RENEW_MS);
  const r = (await send).json.result;
  t.equal(r.status.state, 'failed', 'the turn B forwarded does not hang');
  t.match(JSON.stringify(r.status), /stopped answering/);
  t.equal((await agentOn(b, caller.key, 'local-echo'))?.online, false, 'B lists the agent offline');
  client.ws.terminate();
});

t.test('a relay removed by the admin module: its tunnel closes and its agents go, on every running instance', async (t) => {
  const { a, b, clock, admin, logsA } = await pair(t);
  const k = await a.key({ workspace: 'ws1', trust: 'execute' });
  await addRelay(admin, { workspace: 'ws1', name: 'home', key: k.id });
  const { client } = await connectRelay({ url: a.url, key: k.key, workspace: 'ws1', agents: [card('local-echo')] });
  echoTurns(client);
  const caller = await a.key({ workspace: 'ws1' });
  await until('B lists the agent online', async () => (await agentOn(b, caller.key, 'local-echo'))?.online === true);

  // trust changed while it runs: both instances take it at the next record sync (stream needs admin)
  await setRelayAgent(admin, { workspace: 'ws1', name: 'home', agent: 'local-echo', trust: 'read_only' });
  clock.advance(RELAY_SYNC_MS);
  await until('B applies the new trust', async () => {
    const r = await b.rpc({ method: 'message/send', key: caller.key, params: msgB('x'), path: '/api/a2a/agents/local-echo' });
    return /trust level does not allow/.test(JSON.stringify(r.json));
  });
  t.pass('a trust level set by the admin module applies on a running instance');

  await removeRelay(admin, { workspace: 'ws1', name: 'home' });
  clock.advance(RELAY_SYNC_MS);
  const closed = await client.closed;
  t.equal(closed.code, 1008, 'the holder closes the tunnel of a removed relay');
  t.ok(logsA.includes('relay removed: its agents are gone'));
  await until('B drops the agent', async () => (await agentOn(b, caller.key, 'local-echo')) === undefined);
  t.equal(await agentOn(a, caller.key, 'local-echo'), undefined, 'A lists it no more');
  const gone = await b.rpc({ method: 'message/send', key: caller.key, params: msgB('x'), path: '/api/a2a/agents/local-echo' });
  t.ok(gone.json.error, 'a send to it is refused');
});

t.test('the relay opens a new tunnel on the other instance: the older one is closed and turns follow the new one', async (t) => {
  const { a, b, clock, admin } = await pair(t);
  const k = await a.key({ workspace: 'ws1', trust: 'execute' });
  await addRelay(admin, { workspace: 'ws1', name: 'home', key: k.id });
  const first = await connectRelay({ url: a.url, key: k.key, workspace: 'ws1', agents: [card('local-echo')] });
  const caller = await a.key({ workspace: 'ws1' });
  await until('B lists the agent online', async () => (await agentOn(b, caller.key, 'local-echo'))?.online === true);
  // the relay's network blinked: it reconnects through the other instance while A has not yet seen its old tunnel die
  clock.advance(1_000);
  const second = await connectRelay({ url: b.url, key: k.key, workspace: 'ws1', agents: [card('local-echo')] });
  t.match(second.answer, { t: 'welcome' });
  t.equal((await first.client.closed).code, 4000, 'A closes the older tunnel as replaced');
  echoTurns(second.client);
  const viaA = await a.rpc({ method: 'message/send', key: caller.key, params: msgB('to the new tunnel'), path: '/api/a2a/agents/local-echo' });
  t.equal(viaA.json.result.artifacts?.[0]?.parts[0].text, 'echo: to the new tunnel', JSON.stringify(viaA.json));
  second.client.close();
});
