// A damaged waiting webhook delivery of a task the retention sweep deletes does not stop the sweep: the task goes, the
// damaged job goes with it and is named in the log once, and the other swept tasks' jobs go too. Both engines, the
// real gateway on port 0, the injected clock.
import t, { type Test } from 'tap';
import type { ConfigInput } from '../../src/config/schema.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { queueOf } from '../../src/runtime/store/push-queues.js';
import { msgB, startTestGateway } from '../support/gateway.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { samplePushJob } from '../support/store-records.js';

const TTL = 3_600_000;
const INTERVAL = 60_000;

async function check(t: Test, config: ConfigInput): Promise<void> {
  const clock = new ManualClock(Date.now());
  const lines: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
  const gw = await startTestGateway({
    clock,
    timers: clock,
    log: (msg, fields) => lines.push({ msg, fields }),
    config: { ...config, retention: { taskTtlMs: TTL, sweepIntervalMs: INTERVAL } },
  });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const ids: string[] = [];
  for (const text of ['one', 'two']) {
    const done = (await gw.rpc({ key, method: 'message/send', params: msgB(text) })).json.result;
    t.equal(done.status.state, 'completed');
    ids.push(done.id);
  }
  // a waiting job of each task, due long after the sweep (the worker leaves them be); the first one damaged
  const job = (id: string, seq: number) => {
    const taskKey = `ws1/${id}`;
    return { ...samplePushJob({ queue: queueOf(taskKey, 'cfg'), seq, dueAt: clock.now() + 100 * TTL }), taskKey, workspaceId: 'ws1' };
  };
  await gw.gw.store.pushJobs.enqueue([{ ...job(ids[0]!, 1), attempts: 'many' } as never, job(ids[0]!, 2), job(ids[1]!, 1)]);

  clock.advance(TTL); // sweeps run meanwhile, none yet past the age
  await gw.gw.retention.idle();
  clock.advance(INTERVAL);
  t.equal(await gw.gw.retention.idle(), 2, 'the scheduled sweep deleted both tasks');
  t.notOk(
    lines.some((l) => l.msg.includes('retention sweep failed')),
    'the sweep did not fail',
  );
  for (const id of ids) {
    const got = await gw.rpc({ key, method: 'tasks/get', params: { id } });
    t.equal(got.json.error?.code, -32001, 'the task is gone');
  }
  t.strictSame(await gw.gw.store.pushJobs.list(), [], 'every job of theirs is gone, the damaged one too');
  const reported = lines.filter((l) => l.msg.startsWith('damaged stored record') && l.fields?.record === 'push-job');
  t.ok(reported.length <= 1, 'the damaged job is named at most once');
  if (config.store !== 'redis') t.equal(reported.length, 1, 'on LMDB the sweep read it, and named it');
}

t.test('lmdb: a damaged job of a swept task does not stop the sweep', (t) => check(t, {}));

t.test('redis: a damaged job of a swept task does not stop the sweep', (t) => {
  const prefix = testPrefix('retention-damaged');
  t.teardown(() => cleanupPrefix(REDIS_URL, prefix));
  return check(t, { store: 'redis', redisUrl: REDIS_URL, redisPrefix: prefix });
});
