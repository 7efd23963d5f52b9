// Webhook delivery with several instances on one Redis: leases keep two instances off one job, a crashed claim lapses.
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { silentLog } from '../../src/runtime/log.js';
import { jobsFor } from '../../src/runtime/push/jobs.js';
import { createPushRuntime } from '../../src/runtime/push/push.js';
import { openRedisStore } from '../../src/runtime/store/redis/index.js';
import { msgB, TEST_SECRET } from '../support/gateway.js';
import { startPair } from '../support/instance-pair.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { sampleTask } from '../support/store-records.js';
import { runs, startReceiver, verifySignature, type Delivery } from '../support/webhooks.js';

const PUSH = { allowlist: ['127.0.0.1'], timeoutMs: 5_000, maxAttempts: 6, backoffBaseMs: 1_000, backoffMaxMs: 4_000 };
const states = (ds: Delivery[]) => ds.map((d) => d.json?.status?.state as string);

t.test('two gateways on one Redis: each update delivered once, in order per task, whichever instance claims it', async (t) => {
  const clock = new ManualClock();
  const rx = await startReceiver();
  t.teardown(() => rx.close()); // after both instances have closed
  const [a, b] = await startPair(t, { name: 'push-pair', settings: { push: PUSH }, clock });
  const { key } = await a.key();
  const secret = await b.gw.push.secrets.rotate('ws1');

  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const [first, second] = i % 2 === 0 ? [a, b] : [b, a];
    const r = await first.rpc({
      method: 'message/send',
      key,
      params: { ...msgB(`t${i}`, { metadata: { agentId: 'converse' } }), configuration: { pushNotificationConfig: { url: `${rx.url}?task=${i}` } } },
    });
    ids.push(r.json.result.id);
    await second.rpc({ method: 'message/send', key, params: msgB('done', { taskId: r.json.result.id }) });
  }
  for (let i = 0; i < 20; i++) {
    await Promise.all([a.gw.push.idle(), b.gw.push.idle()]);
    if ((await a.gw.store.pushJobs.list()).length === 0) break;
    clock.advance(1_000);
  }
  t.same(await a.gw.store.pushJobs.list(), [], 'every job delivered');
  const byId = new Map<string, number>();
  for (const d of rx.deliveries) byId.set(String(d.headers['webhook-id']), (byId.get(String(d.headers['webhook-id'])) ?? 0) + 1);
  t.same(
    [...byId.values()].filter((n) => n > 1),
    [],
    'no job went out twice',
  );
  ids.forEach((id, i) => {
    const mine = rx.deliveries.filter((d) => d.path.endsWith(`task=${i}`));
    t.ok(mine.every((d) => d.json.id === id));
    t.same(runs(states(mine)), ['submitted', 'working', 'input-required', 'working', 'completed'], `task ${i}: in order across both instances`);
  });
  t.ok(
    rx.deliveries.every((d) => verifySignature({ secret, headers: d.headers, body: d.body })),
    'one workspace secret, shared through the store',
  );
});

t.test('a job claimed by an instance that died is delivered by another once the lease lapses, and only then', async (t) => {
  const prefix = testPrefix('push-lease');
  const clock = new ManualClock();
  const dead = await openRedisStore({ url: REDIS_URL, prefix });
  const live = await openRedisStore({ url: REDIS_URL, prefix });
  const rx = await startReceiver();
  const runtime = createPushRuntime({ store: live, secret: Buffer.from(TEST_SECRET), clock, timers: clock, log: silentLog, settings: PUSH });
  t.teardown(async () => {
    await runtime.stop();
    await rx.close();
    await dead.close();
    await live.close();
    await cleanupPrefix(REDIS_URL, prefix);
  });

  const task = { ...sampleTask({ id: 't-lease', state: 'working' }), seq: 3 };
  const cfg = { id: 'c1', taskId: 'ws-a/t-lease', url: rx.url, createdAt: clock.now(), disabled: false };
  await live.pushConfigs.put(cfg);
  // the other instance queued two updates, claimed the first, and died without finishing it
  await dead.pushJobs.enqueue([
    ...jobsFor({ task, configs: [{ config: cfg, view: { results: true, files: true } }], now: clock.now() }),
    ...jobsFor({
      task: { ...task, status: { ...task.status, state: 'completed' }, seq: 4 },
      configs: [{ config: cfg, view: { results: true, files: true } }],
      now: clock.now(),
    }),
  ]);
  const [stolen, ...more] = await dead.pushJobs.claim({ now: clock.now(), leaseMs: 60_000, limit: 10 });
  t.ok(stolen, 'the dead instance holds the lease of the first job');
  t.same(more, [], 'the second waits behind it');
  runtime.start();
  await runtime.idle();
  t.equal(rx.deliveries.length, 0, 'nothing goes out while the lease runs, not even the job behind it');
  clock.advance(59_000);
  await runtime.idle();
  t.equal(rx.deliveries.length, 0);
  clock.advance(1_000);
  await runtime.idle();
  t.same(runs(states(rx.deliveries)), ['working', 'completed'], 'taken over when the lease lapsed, then the next, in order');
  t.equal(rx.deliveries[0]!.headers['webhook-id'], stolen!.job.id);
  t.equal(await dead.pushJobs.complete(stolen!), false, "the dead instance's lease is void");
  t.same(await live.pushJobs.list(), []);
});
