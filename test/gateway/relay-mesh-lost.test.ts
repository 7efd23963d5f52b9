// A relay turn forwarded between two gateway instances on one Redis whose message is lost (Redis pub/sub is at most
// once: the holder's subscriber was reconnecting). The holder stays alive and keeps renewing its lease, so the lease
// never lapses: the turn still ends, at its agent's deadline plus a grace, and the task is not left working for ever.
import { createClient } from 'redis';
import t from 'tap';
import { FORWARD_GRACE_MS } from '../../src/gateway/relay/mesh.js';
import { HOLD_RENEW_MS } from '../../src/gateway/relay/hub.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { addRelay } from '../../src/runtime/relay-admin.js';
import { msgB } from '../support/gateway.js';
import { startPair } from '../support/instance-pair.js';
import { REDIS_URL, testPrefix } from '../support/redis.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { connectRelay } from '../support/tunnel-client.js';

t.setTimeout(120_000);

/** a relay agent's turn deadline (AgentSpec's default timeoutMs) */
const AGENT_TIMEOUT_MS = 300_000;

const until = async (what: string, check: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
};

t.test('a forwarded turn whose run was lost fails at its deadline though the holder keeps its lease', async (t) => {
  const prefix = testPrefix('relay-lost');
  const redisPort = Number(new URL(REDIS_URL).port || 6379);
  // A reaches Redis through a forwarder the test can cut: its subscriber then misses what is told to it meanwhile
  const proxy = await startTcpProxy(redisPort);
  t.teardown(() => proxy.close()); // after both instances have closed
  const clock = new ManualClock(Date.now());
  const [a, b] = await startPair(t, {
    prefix,
    settings: { streaming: { keyCheckMs: 3_600_000 } },
    clock,
    a: { redisUrl: `redis://127.0.0.1:${proxy.port}` },
  });
  const watcher = createClient({ url: REDIS_URL });
  watcher.on('error', () => {});
  await watcher.connect();
  const listener = watcher.duplicate();
  listener.on('error', () => {});
  await listener.connect();
  let told = 0;
  await listener.subscribe(`${prefix}control:instances`, () => void told++);
  t.teardown(async () => {
    await listener.quit();
    await watcher.quit();
  });
  const instances = async () => (await watcher.pubSubChannels(`${prefix}control:instance:*`)).length;

  const admin = { relays: b.gw.store.relays, keys: b.gw.store.keys, clock };
  const k = await b.key({ workspace: 'ws1', trust: 'execute' });
  await addRelay(admin, { workspace: 'ws1', name: 'home', key: k.id });
  const { client } = await connectRelay({ url: a.url, key: k.key, workspace: 'ws1', agents: [{ name: 'local-echo', description: 'x', skills: [] }] });
  const caller = await b.key({ workspace: 'ws1' });
  const onB = async () => (await b.rpc({ method: 'agents/list', key: caller.key })).json.result.agents.find((x: any) => x.id === 'local-echo');
  await until('B lists the agent online', async () => (await onB())?.online === true);

  proxy.target(undefined);
  proxy.cut();
  await until("A's subscriber is gone", async () => (await instances()) === 1);
  const sent = await b.rpc({
    method: 'message/send',
    key: caller.key,
    params: { ...msgB('lost'), configuration: { blocking: false } },
    path: '/api/a2a/agents/local-echo',
  });
  const id = sent.json.result?.id;
  t.ok(id, JSON.stringify(sent.json).slice(0, 300));
  proxy.target(redisPort);
  await until('A subscribed again', async () => (await instances()) === 2);
  // its publisher too: the renewals below must go out
  await until('A is ready again', async () => (await fetch(`${a.url}/readyz`)).status === 200);
  t.notOk(
    client.frames.some((f) => f.t === 'run'),
    'the run told to A was lost',
  );

  // time passes in lease renewals: A stays the holder (its tunnel answers pings, B hears every renewal). Each
  // instance's beat of a step and its sweep (which judges the other by its last stored beat, against the clock as it
  // then reads) end before the clock moves on: a beat still on its way when the clock jumps a whole step, or a sweep
  // reading the clock a step or two later, made a live instance look silent for longer than deadAfterMs on a loaded
  // machine, and A failed B's task (instance_lost)
  for (let at = 0; at <= AGENT_TIMEOUT_MS + FORWARD_GRACE_MS; at += HOLD_RENEW_MS) {
    const before = told;
    clock.advance(HOLD_RENEW_MS);
    await Promise.all([a.gw.presence?.idle(), b.gw.presence?.idle()]);
    await until('A renews its lease', () => told > before);
    await until('B still lists the agent online', async () => (await onB())?.online === true);
  }
  const got = await b.rpc({ method: 'tasks/get', key: caller.key, params: { id } });
  t.equal(got.json.result?.status?.state, 'failed', 'the task ends');
  t.equal(got.json.result?.status?.message?.metadata?.reason, 'timeout', JSON.stringify(got.json.result?.status).slice(0, 300));
  t.match(got.json.result?.status?.message?.parts?.[0]?.text, /sent no end/, 'saying the holder never answered');
  client.close();
});
