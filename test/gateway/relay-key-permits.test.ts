// A relay agent's permitted keys over a key's life, and what a relay may tell callers: a rotated key keeps its place
// on the lists (the revoked one leaves them), a key taken off a list loses its open streams and webhooks on that
// agent's tasks, and a turn's failure reaches callers as a fixed reason, never the relay's local error text.
import { unpack } from 'msgpackr';
import t, { type Test } from 'tap';
import { RELAY_SYNC_MS } from '../../src/gateway/relay/hub.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { revokeKey, rotateKey } from '../../src/runtime/key-admin.js';
import { addRelay, setRelayAgent, showRelay } from '../../src/runtime/relay-admin.js';
import { msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { openSse, type SseClient, type SseFrame } from '../support/sse.js';
import { connectRelay, echoTurns, type TunnelClient } from '../support/tunnel-client.js';
import { drive, startReceiver } from '../support/webhooks.js';

t.setTimeout(120_000);

const card = (name: string) => ({ name, description: `local ${name}`, skills: [], streaming: true });
const PUSH = { allowlist: ['127.0.0.1'], timeoutMs: 5_000, maxAttempts: 3, backoffBaseMs: 1_000, backoffMaxMs: 2_000 };

interface World {
  g: TestGateway;
  clock: ManualClock;
  deps: { relays: TestGateway['gw']['store']['relays']; keys: TestGateway['gw']['store']['keys']; secret: Buffer; clock: ManualClock };
  relayKey: { key: string; id: string };
  /** moves the clock past one record sync and waits until `done` holds */
  synced(what: string, done: () => boolean | Promise<boolean>): Promise<void>;
}

async function world(t: Test): Promise<World> {
  const clock = new ManualClock(Date.now());
  const g = await startTestGateway({ clock, timers: clock, config: { push: PUSH, streaming: { keyCheckMs: 1_000 } } });
  t.teardown(() => g.close());
  const deps = { relays: g.gw.store.relays, keys: g.gw.store.keys, secret: g.gw.secret, clock };
  const relayKey = await g.key({ workspace: 'ws1', trust: 'execute' });
  await addRelay(deps, { workspace: 'ws1', name: 'home', key: relayKey.id });
  return {
    g,
    clock,
    deps,
    relayKey,
    async synced(what, done) {
      clock.advance(RELAY_SYNC_MS);
      for (let i = 0; i < 200; i++) {
        if (await done()) return;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`timed out waiting for ${what}`);
    },
  };
}

const keysOf = async (w: World, agent: string) => (await showRelay(w.deps, { workspace: 'ws1', name: 'home' })).agents.find((a) => a.name === agent)?.keys;
const sendTo = (w: World, key: string, agent: string, text: string) =>
  w.g.rpc({ method: 'message/send', key, params: msgB(text), path: `/api/a2a/agents/${agent}` });

t.test('a rotated key keeps its place on relay agents: the new key reaches them, the revoked one leaves the lists', async (t) => {
  const w = await world(t);
  const allowed = await w.g.key({ workspace: 'ws1' });
  const solo = await w.g.key({ workspace: 'ws1' });
  const other = await w.g.key({ workspace: 'ws1' });
  await setRelayAgent(w.deps, { workspace: 'ws1', name: 'home', agent: 'local-echo', keys: [allowed.id, other.id] });
  await setRelayAgent(w.deps, { workspace: 'ws1', name: 'home', agent: 'local-solo', keys: [solo.id] });
  const { client } = await connectRelay({ url: w.g.url, key: w.relayKey.key, workspace: 'ws1', agents: [card('local-echo'), card('local-solo')] });
  t.teardown(() => client.close());
  echoTurns(client);
  t.equal((await sendTo(w, allowed.key, 'local-echo', 'before')).json.result?.status?.state, 'completed', 'the key reaches the agent');

  const rotated = await rotateKey(w.deps, allowed.id);
  t.same(await keysOf(w, 'local-echo'), [allowed.id, other.id, rotated.record.id], 'the new key joins every list the old one is on');
  t.same(await keysOf(w, 'local-solo'), [solo.id], 'a list without the old key is untouched');
  await w.synced('the new key reaching the agent', () => w.g.gw.agents.canReach(rotated.record, 'local-echo'));
  t.equal((await sendTo(w, rotated.key, 'local-echo', 'rotated')).json.result?.status?.state, 'completed', 'the rotated key reaches it');
  t.equal((await sendTo(w, allowed.key, 'local-echo', 'overlap')).json.result?.status?.state, 'completed', 'the old key too, until revoked');

  await revokeKey(w.deps, allowed.id);
  t.same(await keysOf(w, 'local-echo'), [other.id, rotated.record.id], 'the revoked id leaves the list');
  t.equal((await sendTo(w, allowed.key, 'local-echo', 'old')).status, 401, 'the old key has no access');
  t.equal((await sendTo(w, rotated.key, 'local-echo', 'after')).json.result?.status?.state, 'completed', 'the rotated key keeps it');

  // a list whose only key is revoked keeps it: an empty list would let every key of the workspace in
  await revokeKey(w.deps, solo.id);
  t.same(await keysOf(w, 'local-solo'), [solo.id], 'the last id of a list stays');
  w.clock.advance(RELAY_SYNC_MS);
  t.equal((await sendTo(w, other.key, 'local-solo', 'me?')).json.error?.code, -32005, 'no other key reaches the agent');
});

/** The next frame with data (comments skipped). */
async function nextData(s: SseClient): Promise<SseFrame | undefined> {
  for (;;) {
    const f = await s.next();
    if (!f || f.data !== undefined) return f;
  }
}
const within = <T>(p: Promise<T>, ms = 3_000) => Promise.race([p, new Promise<'still open'>((r) => setTimeout(() => r('still open'), ms))]);

/** Holds each run open (a working event) until the test answers it. */
function holdTurns(c: TunnelClient): Array<{ sid: number }> {
  const runs: Array<{ sid: number }> = [];
  c.ws.on('message', (data: Buffer) => {
    const f = unpack(data);
    if (f.t !== 'run') return;
    runs.push({ sid: f.sid });
    c.send({ t: 'event', sid: f.sid, event: { type: 'status', state: 'working', message: { parts: [{ kind: 'text', text: 'thinking' }] } } });
  });
  return runs;
}

t.test("a key taken off a relay agent's list loses its open streams and webhooks on that agent's tasks", async (t) => {
  const w = await world(t);
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const doomed = await w.g.key({ workspace: 'ws1' });
  const kept = await w.g.key({ workspace: 'ws1' });
  await setRelayAgent(w.deps, { workspace: 'ws1', name: 'home', agent: 'local-slow', keys: [doomed.id, kept.id], trust: 'admin' });
  const { client } = await connectRelay({ url: w.g.url, key: w.relayKey.key, workspace: 'ws1', agents: [card('local-slow')] });
  t.teardown(() => client.close());
  const runs = holdTurns(client);

  const stream = await openSse({ url: w.g.url, key: doomed.key, method: 'message/stream', params: msgB('long job'), path: '/api/a2a/agents/local-slow' });
  const first = await nextData(stream);
  const id: string = first?.data?.result?.id;
  t.ok(id, 'the stream is open on the task');
  const resub = await openSse({ url: w.g.url, key: doomed.key, method: 'tasks/resubscribe', params: { id } });
  t.equal((await nextData(resub))?.data?.result?.id, id, 'a resubscription too');
  const watcher = await openSse({ url: w.g.url, key: kept.key, method: 'tasks/resubscribe', params: { id } });
  t.equal((await nextData(watcher))?.data?.result?.id, id, "and another key's");
  for (const [key, tag] of [
    [doomed.key, 'doomed'],
    [kept.key, 'kept'],
  ] as const) {
    const set = await w.g.rpc({ method: 'tasks/pushNotificationConfig/set', key, params: { taskId: id, pushNotificationConfig: { url: `${rx.url}?${tag}` } } });
    t.ok(set.json.result, `${tag}: push config set`);
  }

  await setRelayAgent(w.deps, { workspace: 'ws1', name: 'home', agent: 'local-slow', keys: [kept.id] });
  const doomedRec = (await w.g.gw.store.keys.get(doomed.id))!;
  await w.synced('the key taken off the list', () => !w.g.gw.agents.permits(doomedRec, 'local-slow'));

  for (const [name, s] of [
    ['message/stream', stream],
    ['tasks/resubscribe', resub],
  ] as const) {
    const rest = await within(s.all());
    t.not(rest, 'still open', `${name}: the stream ended`);
    if (rest !== 'still open') t.equal(rest.at(-1)?.data?.error?.code, -32001, `${name}: with -32001, as its next request would get`);
  }

  // the turn goes on: the key still on the list sees it end and is notified; the one taken off is not
  client.send({ t: 'event', sid: runs[0]!.sid, event: { type: 'artifact', artifact: { name: 'out', parts: [{ kind: 'text', text: 'result' }] } } });
  client.send({ t: 'event', sid: runs[0]!.sid, event: { type: 'status', state: 'completed' } });
  client.send({ t: 'done', sid: runs[0]!.sid });
  const seen = await within(watcher.untilFinal());
  t.not(seen, 'still open', "the other key's stream runs to the end");
  const hooks = (tag: string) => rx.deliveries.filter((d) => d.path.endsWith(`?${tag}`));
  t.ok(
    await drive({ gw: w.g.gw, clock: w.clock, stepMs: 1_000, done: () => hooks('kept').some((d) => d.json?.status?.state === 'completed') }),
    'kept: notified',
  );
  t.equal(hooks('doomed').filter((d) => d.json?.status?.state === 'completed').length, 0, 'the key taken off the list gets no webhook for the update after');
  t.notMatch(JSON.stringify(hooks('doomed')), 'result', 'nor any of its results');
  watcher.close();
});

t.test("a relay's failure reaches callers as a fixed reason: no local error text, stack, URL or host", async (t) => {
  const w = await world(t);
  const caller = await w.g.key({ workspace: 'ws1' });
  const { client } = await connectRelay({ url: w.g.url, key: w.relayKey.key, workspace: 'ws1', agents: [card('local-bad')] });
  t.teardown(() => client.close());
  const leaky = 'TypeError: cannot read x of undefined\n    at handler (/srv/agents/bad/app.js:12:5)\n    at http://db.internal.corp:5432/ via 10.1.2.3';
  const answers: Array<{ reason: string; message: string }> = [
    { reason: 'local_agent_error', message: `the remote answered message/send with error -32603: ${leaky}` },
    { reason: 'local_agent_unreachable', message: 'fetch failed: connect ECONNREFUSED 10.1.2.3:8001 (http://db.internal.corp:8001/a2a)' },
    { reason: `weird ${leaky}`.slice(0, 100), message: leaky },
  ];
  const want = ['local_agent_error', 'local_agent_unreachable', 'local_agent_error'];
  client.ws.on('message', (data: Buffer) => {
    const f = unpack(data);
    if (f.t === 'run') client.send({ t: 'fail', sid: f.sid, ...answers.shift()! });
  });
  for (const reason of want) {
    const r = await sendTo(w, caller.key, 'local-bad', 'go');
    const body = JSON.stringify(r.json);
    t.equal(r.json.result?.status?.state, 'failed', `${reason}: the task failed`);
    t.equal(r.json.result?.status?.message?.metadata?.reason, reason, `${reason}: the reason is a fixed one`);
    t.notMatch(body, /TypeError|\/srv\/|app\.js|internal\.corp|10\.1\.2\.3|ECONNREFUSED|weird/, `${reason}: no local detail reaches the caller`);
    const got = await w.g.rpc({ method: 'tasks/get', key: caller.key, params: { id: r.json.result.id } });
    t.notMatch(JSON.stringify(got.json), /TypeError|\/srv\/|internal\.corp|10\.1\.2\.3/, `${reason}: nor tasks/get`);
  }

  // a local agent reported down: the send fails at once, without the relay's own error text
  client.send({ t: 'health', agents: [{ name: 'local-bad', up: false, error: 'connect ECONNREFUSED 10.1.2.3:8001 (http://db.internal.corp:8001/)' }] });
  for (let i = 0; i < 200 && w.g.gw.agents.health('ws1', 'local-bad')?.up !== false; i++) await new Promise((r) => setTimeout(r, 10));
  const down = await sendTo(w, caller.key, 'local-bad', 'down?');
  t.equal(down.json.result?.status?.message?.metadata?.reason, 'relay_agent_down');
  t.notMatch(JSON.stringify(down.json), /ECONNREFUSED|10\.1\.2\.3|internal\.corp/, 'relay_agent_down names no local detail');
});
