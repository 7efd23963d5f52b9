// A task write reads the task's push configs only once it is known to hold one: a task without any costs no config
// read per write, and a config set anywhere else (another instance, another handle on the store) is still found by
// the write's own atomic check, so its webhooks go out.
//
// Real gateways (port 0) on the real Redis (two instances) and on LMDB; the Redis commands are watched with MONITOR on
// a connection of the test's own, which also lists the commands scripts run.
import t, { type Test } from 'tap';
import { createClient } from 'redis';
import { ManualClock } from '../../src/runtime/clock.js';
import { msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startPair } from '../support/instance-pair.js';
import { REDIS_URL, testPrefix } from '../support/redis.js';
import { runs, startReceiver, type Delivery } from '../support/webhooks.js';

const PUSH = { allowlist: ['127.0.0.1'], timeoutMs: 5_000, maxAttempts: 6, backoffBaseMs: 1_000, backoffMaxMs: 4_000 };
const states = (ds: Delivery[]) => ds.map((d) => d.json?.status?.state as string);

/** A task of the `converse` agent, waiting for input after its first turn, on `gw`; its id. */
async function waitingTask(t: Test, gw: TestGateway, key: string): Promise<string> {
  const r = await gw.rpc({ method: 'message/send', key, params: msgB('hello', { metadata: { agentId: 'converse' } }) });
  t.equal(r.json?.result?.status?.state, 'input-required', 'the task waits for input');
  return r.json.result.id as string;
}

/** Delivers every waiting job (the clock moves only while some wait). */
async function drain(gws: TestGateway[], clock: ManualClock): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await Promise.all(gws.map((g) => g.gw.push.idle()));
    if ((await gws[0]!.gw.store.pushJobs.list()).length === 0) return;
    clock.advance(1_000);
  }
}

t.test('Redis: no config read for a task without one; a config set on instance A for a task running on B gets its webhooks', async (t) => {
  const clock = new ManualClock();
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const prefix = testPrefix('push-read-skip');
  const [a, b] = await startPair(t, { prefix, settings: { push: PUSH }, clock });
  const { key } = await a.key();

  // every command touching a push config hash, by whoever sends it (the gateways, or their scripts)
  const watcher = createClient({ url: REDIS_URL });
  await watcher.connect();
  t.teardown(() => watcher.destroy());
  const seen: string[] = [];
  await watcher.monitor((line) => {
    if (line.includes(`"${prefix}push:`)) seen.push(line);
  });
  const reads = () => seen.filter((l) => /"hgetall"/i.test(l));
  const checks = () => seen.filter((l) => /\[\d+ lua\] "exists"/i.test(l));

  const taskId = await waitingTask(t, b, key);
  await drain([a, b], clock);
  t.same(reads(), [], "the task's writes on B read no push config (it holds none)");
  // its id was made on B at random: until its create is stored no one else can name it, so no config can be held
  t.same(checks(), [], 'nor does its create look for one in its script');

  const set = await a.rpc({ method: 'tasks/pushNotificationConfig/set', key, params: { taskId, pushNotificationConfig: { url: rx.url } } });
  t.equal(set.json?.result?.taskId, taskId, 'the config is set through instance A');
  const done = await b.rpc({ method: 'message/send', key, params: msgB('done', { taskId }) });
  t.equal(done.json?.result?.status?.state, 'completed', 'the follow-up runs on B, where the task lives');
  await drain([a, b], clock);
  t.same(runs(states(rx.deliveries)), ['working', 'completed'], 'every change after the config was set is delivered');
  t.ok(
    rx.deliveries.every((d) => d.json?.id === taskId),
    'for that task',
  );
  t.ok(checks().length > 0, 'the write after the config was set checked, in its own script, for one');
  t.ok(reads().length > 0, 'once the task was found holding a config, its writes read them');
});

t.test('LMDB: a config set on a task whose writes read none is found by the next write', async (t) => {
  const clock = new ManualClock();
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const gw = await startTestGateway({ clock, timers: clock, config: { push: PUSH } });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const taskId = await waitingTask(t, gw, key);
  const set = await gw.rpc({ method: 'tasks/pushNotificationConfig/set', key, params: { taskId, pushNotificationConfig: { url: rx.url } } });
  t.equal(set.json?.result?.taskId, taskId);
  const done = await gw.rpc({ method: 'message/send', key, params: msgB('done', { taskId }) });
  t.equal(done.json?.result?.status?.state, 'completed');
  await drain([gw], clock);
  t.same(runs(states(rx.deliveries)), ['working', 'completed'], 'every change after the config was set is delivered');
});

t.test('a send with an inline config: every change is delivered, from the first', async (t) => {
  const clock = new ManualClock();
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const gw = await startTestGateway({ clock, timers: clock, config: { push: PUSH } });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const r = await gw.rpc({
    method: 'message/send',
    key,
    params: { ...msgB('hello', { metadata: { agentId: 'converse' } }), configuration: { pushNotificationConfig: { url: rx.url } } },
  });
  t.equal(r.json?.result?.status?.state, 'input-required');
  await drain([gw], clock);
  t.same(runs(states(rx.deliveries)), ['submitted', 'working', 'input-required'], 'its first update included');
});
