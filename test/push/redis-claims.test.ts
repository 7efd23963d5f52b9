// Redis claims across instances: a workspace's share of delivery attempts counts every instance's leases (and stops
// counting a crashed one's when it lapses), and a claim reaches every due queue however many it passes over first.
//
// The real Redis under a prefix of this test's own; two store handles stand for two instances (one connection each).
import t, { type Test } from 'tap';
import type { PushJob } from '../../src/protocol/records.js';
import { connectRedis } from '../../src/runtime/redis/connect.js';
import { redisKeys } from '../../src/runtime/redis/keys.js';
import { queueOf } from '../../src/runtime/store/push-queues.js';
import { binary } from '../../src/runtime/store/redis/client.js';
import { redisPushJobStore } from '../../src/runtime/store/redis/push-jobs.js';
import { scriptRunner } from '../../src/runtime/store/redis/scripts.js';
import { openRedisStore } from '../../src/runtime/store/redis/index.js';
import { taskKey, type Store } from '../../src/runtime/store/types.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { samplePushJob } from '../support/store-records.js';

const T = Date.UTC(2026, 0, 1);
const lease = { leaseMs: 60_000 };

const job = (ws: string, task: string, dueAt: number): PushJob => {
  const key = taskKey(ws, task);
  return { ...samplePushJob({ queue: queueOf(key, 'cfg'), seq: 1, dueAt }), id: `msg_${ws}_${task}`, taskKey: key, workspaceId: ws };
};

async function twoInstances(t: Test, name: string): Promise<{ prefix: string; one: Store; two: Store }> {
  const prefix = testPrefix(name);
  const one = await openRedisStore({ url: REDIS_URL, prefix });
  const two = await openRedisStore({ url: REDIS_URL, prefix });
  t.teardown(async () => {
    await one.close();
    await two.close();
    await cleanupPrefix(REDIS_URL, prefix);
  });
  return { prefix, one, two };
}

t.test("a workspace's share counts the other instance's leases, and a crashed instance's until they lapse", async (t) => {
  const { one, two } = await twoInstances(t, 'push-share');
  await one.pushJobs.enqueue([job('A', 'a1', T), job('A', 'a2', T + 1), job('A', 'a3', T + 2), job('B', 'b1', T + 3)]);
  const cap = (held: Array<[string, number]> = []) => ({ max: 2, held: new Map(held) });
  const mine = await one.pushJobs.claim({ now: T + 10, ...lease, limit: 2, perWorkspace: cap() });
  t.strictSame(
    mine.map((c) => c.job.id),
    ['msg_A_a1', 'msg_A_a2'],
    "instance one takes A's share",
  );
  // instance two holds none of A's attempts itself, but A's share is taken: only B's head
  const theirs = await two.pushJobs.claim({ now: T + 10, ...lease, limit: 10, perWorkspace: cap() });
  t.strictSame(
    theirs.map((c) => c.job.id),
    ['msg_B_b1'],
    "instance two passes over A's head: A holds its share on instance one",
  );
  t.ok(await two.pushJobs.complete(theirs[0]!), "B's webhook delivered");
  t.equal(await two.pushJobs.nextDueAt({ passOver: cap(), now: T + 10 }), undefined, "A's heads are left out of two's wake-up too: nothing else waits");
  t.equal(await two.pushJobs.nextDueAt({ passOver: cap() }), T + 2, 'without a clock only its own attempts count (none)');
  t.ok(await one.pushJobs.complete(mine[0]!), "one of A's attempts ends: its slot is free for any instance");

  const next = await two.pushJobs.claim({ now: T + 20, ...lease, limit: 10, perWorkspace: cap() });
  t.strictSame(
    next.map((c) => c.job.id),
    ['msg_A_a3'],
    'a slot freed on instance one is taken on instance two',
  );
  t.strictSame(await two.pushJobs.claim({ now: T + 20, ...lease, limit: 10, perWorkspace: cap() }), [], 'A holds its share again (one on each instance)');

  // instance one dies holding msg_A_a2: its lease stops counting when it lapses, not before
  await one.pushJobs.enqueue([job('A', 'a4', T + 30)]);
  t.strictSame(await two.pushJobs.claim({ now: T + 10 + lease.leaseMs - 1, ...lease, limit: 10, perWorkspace: cap() }), [], 'not while the lease runs');
  const after = await two.pushJobs.claim({ now: T + 10 + lease.leaseMs, ...lease, limit: 10, perWorkspace: cap([['A', 1]]) });
  t.strictSame(
    after.map((c) => c.job.id),
    ['msg_A_a4'],
    "the lapsed lease frees its slot (two holds a3 itself); A's oldest claimable head goes: a4 (due T + 30) before the lapsed a2",
  );
});

t.test('a claim reaches a due head behind more than 10,000 queues it passes over', async (t) => {
  const { one } = await twoInstances(t, 'push-reach');
  // workspace A: 10,100 due queues, all older than B's one; A is at its share once two of them are leased, and 10,098
  // wait before B's (the claim used to read at most 10,016 of them: a first page of its limit, then 20 of 500)
  const many = Array.from({ length: 10_100 }, (_, i) => job('A', `t${i}`, T + i));
  for (let i = 0; i < many.length; i += 1_000) await one.pushJobs.enqueue(many.slice(i, i + 1_000));
  await one.pushJobs.enqueue([job('B', 'b', T + 20_000)]);
  const cap = { max: 2, held: new Map<string, number>() };
  const now = T + 30_000;
  t.equal((await one.pushJobs.claim({ now, ...lease, limit: 2, perWorkspace: cap })).length, 2, "A's share");
  const full = { max: 2, held: new Map([['A', 2]]) };
  t.equal(await one.pushJobs.nextDueAt({ passOver: full, now }), T + 20_000, "the wake-up looks past A's 10,000 waiting queues: B's due time");
  const claimed = await one.pushJobs.claim({ now, ...lease, limit: 16, perWorkspace: full });
  t.strictSame(
    claimed.map((c) => c.job.id),
    ['msg_B_b'],
    "B's head, past 10,000 of A's",
  );
});

t.test('with a small bound per script, a claim goes on script after script, in order', async (t) => {
  const prefix = testPrefix('push-bound');
  const client = await connectRedis({ url: REDIS_URL, name: 'a2a-gateway:test', commandTimeoutMs: 2_000 });
  t.teardown(async () => {
    client.destroy();
    await cleanupPrefix(REDIS_URL, prefix);
  });
  const jobs = redisPushJobStore({ client, keys: redisKeys(prefix), run: scriptRunner(binary(client)), scanPerScript: 3 });
  await jobs.enqueue([
    ...Array.from({ length: 7 }, (_, i) => job('A', `t${i}`, T + i)),
    job('B', 'b1', T + 10),
    job('A', 'late', T + 11),
    job('B', 'b2', T + 12),
  ]);
  const full = { max: 2, held: new Map([['A', 2]]) };
  t.equal(await jobs.nextDueAt({ passOver: full, now: T }), T + 10, "B's first head, past two scripts' worth of A's");
  const claimed = await jobs.claim({ now: T + 100, ...lease, limit: 5, perWorkspace: full });
  t.strictSame(
    claimed.map((c) => c.job.id),
    ['msg_B_b1', 'msg_B_b2'],
    "B's heads, oldest first, each past A's",
  );
  const rest = await jobs.claim({ now: T + 100, ...lease, limit: 100 });
  t.strictSame(
    rest.map((c) => c.job.id),
    [...Array.from({ length: 7 }, (_, i) => `msg_A_t${i}`), 'msg_A_late'],
    "without a cap, every one of A's, oldest first, over several scripts",
  );
});
