// The Redis store's command deadline: it fails calls on a connection that answers nothing, never calls that wait their
// turn behind a burst on a Redis that keeps answering (a bulk write under load once failed "no answer within 2000 ms").
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { openRedisStore } from '../../src/runtime/store/redis/index.js';
import { until } from '../support/a2a-client.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { startRedisStep } from '../support/redis-step.js';

const MS = 50;

/** a promise with its outcome readable at any time */
function watched<T>(p: Promise<T>) {
  const w: { p: Promise<T>; outcome?: 'resolved' | 'rejected' } = { p };
  p.then(
    () => (w.outcome = 'resolved'),
    () => (w.outcome = 'rejected'),
  );
  return w;
}

/** lets every timer the clock fired make its decision (the store decides one I/O turn after its timer) */
const turns = async () => {
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  await new Promise((r) => setTimeout(r, 0));
};

t.test('calls queued behind others on a Redis that keeps answering succeed, each in turn; a silent one fails at the deadline', async (t) => {
  const prefix = testPrefix('store-deadline');
  const step = await startRedisStep({ redisUrl: REDIS_URL });
  const clock = new ManualClock();
  const s = await openRedisStore({ url: step.url, prefix, commandTimeoutMs: MS, deadlineClock: clock });
  t.teardown(async () => {
    // a close waits for the replies of the commands the forwarder still holds
    step.flow();
    await s.close();
    await step.close();
    await cleanupPrefix(REDIS_URL, prefix);
  });
  // seeded through a store of its own, straight to Redis
  const seed = await openRedisStore({ url: REDIS_URL, prefix });
  for (const k of ['a', 'b', 'c', 'd']) await seed.meta.put(k, `value ${k}`);
  await seed.close();

  // three reads queued on one connection at one instant of the clock (each its own chunk, so Redis can get them one
  // at a time, as a busy Redis works through a burst)
  step.hold();
  const calls: Array<{ k: string; w: ReturnType<typeof watched<unknown>> }> = [];
  for (const k of ['a', 'b', 'c']) {
    calls.push({ k, w: watched(s.meta.get(k)) });
    await until(() => step.waiting() === calls.length, `read ${k} reached the forwarder`);
  }

  for (const c of calls) {
    // less than the deadline since the previous answer, but past it since the call began for all but the first
    clock.advance(MS - 10);
    // a wall-clock deadline of that length would have run out meanwhile too (setup, not a measurement)
    await new Promise((r) => setTimeout(r, 2 * MS));
    await turns();
    t.equal(c.w.outcome, undefined, `read ${c.k}: still waiting its turn, not failed`);
    step.release();
    t.equal(await c.w.p, `value ${c.k}`, `read ${c.k}: answered`);
  }

  // now Redis answers nothing: the next call fails once the connection has been silent for the deadline
  const silent = watched(s.meta.get('d'));
  await until(() => step.waiting() >= 1, 'read d reached the forwarder');
  clock.advance(MS - 1);
  await turns();
  t.equal(silent.outcome, undefined, 'not failed before the deadline');
  clock.advance(1);
  await t.rejects(silent.p, { name: 'TimeoutError', message: `redis store.get: no answer within ${MS} ms` }, 'failed at the deadline, naming the call');
});
