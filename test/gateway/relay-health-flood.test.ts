// A hostile (or buggy) relay's health frames, against the real gateway: a report may name only the agents its hello
// announced (else the relay is disconnected as a protocol break, before a line is logged of it), and a burst of
// reports costs a bounded number of log lines and broadcasts to the other instances (HEALTH_TELL_MS), while every
// instance still ends up showing the last state reported. The relay is a raw `ws` client speaking the frames.
import { Packr, unpack } from 'msgpackr';
import { createClient } from 'redis';
import t, { type Test } from 'tap';
import { HEALTH_TELL_MS } from '../../src/gateway/relay/health-reports.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { redisChannels } from '../../src/runtime/redis/keys.js';
import { startTestGateway } from '../support/gateway.js';
import { startPair } from '../support/instance-pair.js';
import { REDIS_URL, testPrefix } from '../support/redis.js';
import { registerRelay } from '../support/relay-world.js';
import { connectRelay, type TunnelClient } from '../support/tunnel-client.js';

t.setTimeout(120_000);

const card = (name: string) => ({ name, description: `local ${name}`, skills: [], streaming: false });
const packr = new Packr({ useRecords: false });

const until = async (what: string, check: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
};

/** `p`, or undefined after `ms` (a bound on a wait that fails the test, never a sleep it passes by) */
const within = async <T>(p: Promise<T>, ms = 10_000): Promise<T | undefined> => {
  let bound: NodeJS.Timeout | undefined;
  const r = await Promise.race([p, new Promise<undefined>((res) => (bound = setTimeout(() => res(undefined), ms)))]);
  clearTimeout(bound);
  return r;
};

/** Resolves once the gateway has read every frame sent before: it answers the ping after them. */
const drained = (c: TunnelClient) =>
  new Promise<void>((resolve) => {
    c.ws.once('pong', () => resolve());
    c.ws.ping();
  });

/** Counts the `held` news of relay `relay` on the instances' channel, as every instance hears it (a real subscriber). */
async function heldCounter(t: Test, prefix: string, relay: string) {
  const channel = redisChannels(prefix).instances;
  const sub = createClient({ url: REDIS_URL });
  const pub = createClient({ url: REDIS_URL });
  await Promise.all([sub.connect(), pub.connect()]);
  t.teardown(async () => {
    await sub.close();
    await pub.close();
  });
  let held = 0;
  const markers = new Set<string>();
  await sub.subscribe(
    channel,
    (raw: Buffer) => {
      const env = unpack(raw) as { o?: string; m?: Uint8Array };
      if (env.o === 'test-marker') return void markers.add(String(env.m));
      const m = env.m instanceof Uint8Array ? (unpack(env.m) as { t?: string; relay?: string }) : undefined;
      if (m?.t === 'held' && m.relay === relay) held++;
    },
    true,
  );
  let n = 0;
  return {
    count: () => held,
    /** every news published before this call has been counted (one Redis runs the publishes in order) */
    async settle() {
      const marker = `m${++n}`;
      // the envelope of a message to all; no instance takes it (its message is no mesh message)
      await pub.publish(channel, packr.pack({ o: 'test-marker', m: marker }));
      await until('the marker comes back', () => markers.has(marker));
    },
  };
}

t.test('a burst of health reports: a bounded count of log lines and broadcasts; both instances show the last state', async (t) => {
  const prefix = testPrefix('relay-health-flood');
  const clock = new ManualClock(Date.now());
  const logsA: string[] = [];
  const [a, b] = await startPair(t, { prefix, clock, a: { log: (msg, f) => logsA.push(`${msg} ${JSON.stringify(f ?? {})}`) } });
  const { relayKey, key } = await registerRelay(a, { workspace: 'ws1', name: 'home', agents: ['local-echo', 'local-two'] });
  const health = async (g: typeof a, id: string) =>
    (await g.rpc({ method: 'agents/list', key, params: {} })).json.result.agents.find((x: { id: string }) => x.id === id)?.health;
  const counter = await heldCounter(t, prefix, 'home');

  const { client, answer } = await connectRelay({ url: a.url, key: relayKey.key, workspace: 'ws1', agents: [card('local-echo'), card('local-two')] });
  t.teardown(() => client.close());
  t.match(answer, { t: 'welcome' });
  client.send({
    t: 'health',
    agents: [
      { name: 'local-echo', up: true },
      { name: 'local-two', up: true },
    ],
  });
  await until('B shows the agent up', async () => (await health(b, 'local-echo'))?.up === true);
  // past the window of that first report: the burst's first change is told at once
  clock.advance(HEALTH_TELL_MS);
  await counter.settle();
  const heldBefore = counter.count();
  const linesBefore = logsA.filter((l) => l.startsWith('relay health')).length;

  // 1000 reports flapping local-echo (down, up, down, ... up), every one a change, as fast as the socket takes them
  for (let i = 0; i < 1000; i++) client.send({ t: 'health', agents: [{ name: 'local-echo', up: i % 2 === 1, ...(i % 2 === 0 && { error: 'ECONNREFUSED' }) }] });
  await drained(client);
  t.equal(client.ws.readyState, client.ws.OPEN, 'reports of announced agents are taken: the tunnel stays');
  // the window after the first change: the last state goes out
  clock.advance(HEALTH_TELL_MS);
  await until('B shows the last state reported', async () => (await health(b, 'local-echo'))?.up === true);
  await counter.settle();

  const held = counter.count() - heldBefore;
  const lines = logsA.filter((l) => l.startsWith('relay health')).slice(linesBefore);
  t.ok(held >= 1 && held <= 2, `the burst cost ${held} broadcasts (at most one per ${HEALTH_TELL_MS} ms), not 1000`);
  t.ok(lines.length >= 1 && lines.length <= 2, `and ${lines.length} log lines, not 1000: ${lines.join(' | ').slice(0, 300)}`);
  t.ok(
    lines.every((l) => !/local-two/.test(l)),
    'a line names only the agents that changed',
  );
  t.equal((await health(a, 'local-echo'))?.up, true, 'A shows the last state too');
  t.equal((await health(a, 'local-two'))?.up, true, 'and the other agent as it was');

  // a report that repeats the state is no change: nothing is told, and the state keeps the time it began
  const since = (await health(a, 'local-two'))?.checkedAt;
  clock.advance(HEALTH_TELL_MS);
  const heldNow = counter.count();
  const linesNow = logsA.filter((l) => l.startsWith('relay health')).length;
  for (let i = 0; i < 100; i++) client.send({ t: 'health', agents: [{ name: 'local-two', up: true }] });
  await drained(client);
  await counter.settle();
  t.equal(counter.count(), heldNow, 'a repeated state is not broadcast');
  t.equal(logsA.filter((l) => l.startsWith('relay health')).length, linesNow, 'nor logged');
  t.equal((await health(a, 'local-two'))?.checkedAt, since, 'its time is when it began');
});

t.test('a health report naming agents the relay never announced: disconnected as a protocol break, nothing logged of the names', async (t) => {
  const logs: string[] = [];
  const gw = await startTestGateway({ log: (msg, f) => logs.push(`${msg} ${JSON.stringify(f ?? {})}`) });
  t.teardown(() => gw.close());
  const { relayKey, key } = await registerRelay(gw, { workspace: 'ws1', name: 'home', agents: ['local-echo'] });
  const online = async () =>
    (await gw.rpc({ method: 'agents/list', key, params: {} })).json.result.agents.find((x: { id: string }) => x.id === 'local-echo')?.online;

  const many = Array.from({ length: 100_000 }, (_, i) => ({ name: `agent-${i}`, up: true }));
  const cases: Array<{ what: string; agents: unknown[]; why: RegExp }> = [
    { what: 'a name never announced', agents: [{ name: 'ghost', up: false }], why: /agent ghost, which its hello did not announce/ },
    {
      what: 'more reports than agents announced',
      agents: [
        { name: 'local-echo', up: true },
        { name: 'local-echo', up: false },
      ],
      why: /2 agents, more than the 1/,
    },
    { what: '100,000 names', agents: many, why: /invalid frame: agents/ },
  ];
  for (const c of cases) {
    const { client, answer } = await connectRelay({ url: gw.url, key: relayKey.key, workspace: 'ws1', agents: [card('local-echo')] });
    t.match(answer, { t: 'welcome' }, c.what);
    const from = logs.length;
    client.send({ t: 'health', agents: c.agents });
    const error = await within(client.next((f) => f.t === 'error'));
    t.match(error?.message, c.why, `${c.what}: the relay is told why`);
    t.equal((await within(client.closed))?.code, 1002, `${c.what}: the tunnel is closed as a protocol break`);
    const logged = logs.slice(from);
    t.ok(
      logged.some((l) => l.startsWith('relay disconnected: protocol broken') && c.why.test(l)),
      `${c.what}: with a logged reason`,
    );
    t.ok(
      logged.every((l) => l.length < 2_000),
      `${c.what}: no log line lists the names (longest ${Math.max(...logged.map((l) => l.length))})`,
    );
    t.notOk(
      logged.some((l) => l.startsWith('relay health')),
      `${c.what}: no health is logged`,
    );
    client.ws.terminate();
    await until('the agent is offline', async () => (await online()) === false);
  }
});

t.test('an agent that stays down with a new error: every instance shows the latest error, within the same one-a-second budget', async (t) => {
  const prefix = testPrefix('relay-health-error');
  const clock = new ManualClock(Date.now());
  const [a, b] = await startPair(t, { prefix, clock });
  const { relayKey, key } = await registerRelay(a, { workspace: 'ws1', name: 'home', agents: ['local-echo'] });
  const health = async (g: typeof a) =>
    (await g.rpc({ method: 'agents/list', key, params: {} })).json.result.agents.find((x: { id: string }) => x.id === 'local-echo')?.health;
  const admin = await a.key({ workspace: 'ws1', trust: 'admin' });
  const detail = async (g: typeof a) => {
    const dash = (await (await fetch(`${g.url}/api/admin/agents`, { headers: { Authorization: `Bearer ${admin.key}` } })).json()) as {
      agents: Array<{ id: string; health: { error?: string } | null }>;
    };
    return dash.agents.find((x) => x.id === 'local-echo')?.health?.error;
  };
  const counter = await heldCounter(t, prefix, 'home');

  const { client, answer } = await connectRelay({ url: a.url, key: relayKey.key, workspace: 'ws1', agents: [card('local-echo')] });
  t.teardown(() => client.close());
  t.match(answer, { t: 'welcome' });
  client.send({ t: 'health', agents: [{ name: 'local-echo', up: false, error: 'http://10.0.0.5:8080 cannot be reached (ECONNREFUSED)' }] });
  await until('B shows the agent down', async () => (await health(b))?.error === 'unreachable');
  const downSince = (await health(a))?.checkedAt;
  clock.advance(HEALTH_TELL_MS);
  await counter.settle();
  const heldBefore = counter.count();

  // still down, now answering badly: a burst of changing texts, ending with the HTTP 500
  for (let i = 0; i < 100; i++)
    client.send({ t: 'health', agents: [{ name: 'local-echo', up: false, error: i % 2 === 0 ? 'card: HTTP 404' : 'card: HTTP 500' }] });
  await drained(client);
  t.equal((await health(a))?.error, 'bad_response', 'the instance holding the tunnel shows the latest error at once');
  t.equal(await detail(a), 'card: HTTP 500', "and its operator reads the relay's latest text");
  t.equal((await health(a))?.checkedAt, downSince, 'its time stays when the agent went down');
  clock.advance(HEALTH_TELL_MS);
  await until('B shows the latest error', async () => (await detail(b)) === 'card: HTTP 500');
  t.equal((await health(b))?.error, 'bad_response', "B's callers read the latest kind");
  await counter.settle();
  const held = counter.count() - heldBefore;
  t.ok(held >= 1 && held <= 2, `the changing texts cost ${held} broadcasts (at most one per ${HEALTH_TELL_MS} ms), not 100`);
});
