// Issue 6, item 18: terminal tasks are deleted after `retention.taskTtlMs` (injected clock), with their events and push configs.
import t from 'tap';
import { createClient } from 'redis';
import type { ConfigInput } from '../../src/config/schema.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { redisKeys } from '../../src/runtime/redis/keys.js';
import { startTestGateway, msgB } from '../support/gateway.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { ALL_STATES } from '../support/tasks.js';

const TTL = 3_600_000;
const INTERVAL = 60_000;

/** Redis key names under `prefix` that name `needle` (nothing for LMDB: its raw layout is checked by the store contract). */
async function redisKeysNaming(prefix: string, needle: string): Promise<string[]> {
  const c = createClient({ url: REDIS_URL });
  c.on('error', () => {});
  await c.connect();
  const out: string[] = [];
  for await (const batch of c.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) out.push(...batch.filter((k) => k.includes(needle)));
  for (const state of ALL_STATES) if ((await c.sIsMember(redisKeys(prefix).tasksInState(state), `ws1/${needle}`)) === 1) out.push(`in the ${state} index`);
  await c.close();
  return out;
}

for (const engine of ['lmdb', 'redis'] as const) {
  t.test(`item 18: a completed task is deleted after the retention age, with its events and push configs (${engine})`, async (t) => {
    const clock = new ManualClock(Date.now());
    const prefix = testPrefix('retention');
    const config: ConfigInput = {
      retention: { taskTtlMs: TTL, sweepIntervalMs: INTERVAL },
      push: { allowlist: ['127.0.0.1'] },
      ...(engine === 'redis' && { store: 'redis' as const, redisUrl: REDIS_URL, redisPrefix: prefix }),
    };
    const gw = await startTestGateway({ config, clock, timers: clock });
    t.teardown(async () => {
      await gw.close();
      if (engine === 'redis') await cleanupPrefix(REDIS_URL, prefix);
    });
    const { key } = await gw.key();
    const done = (await gw.rpc({ key, method: 'message/send', params: msgB('hello') })).json.result;
    t.equal(done.status.state, 'completed');
    const set = await gw.rpc({
      key,
      method: 'tasks/pushNotificationConfig/set',
      params: { taskId: done.id, pushNotificationConfig: { id: 'cfg', url: 'http://127.0.0.1:9/hook' } },
    });
    t.ok(set.json.result, 'a push config on the finished task');
    const waiting = (await gw.rpc({ key, method: 'message/send', params: msgB('hi', { metadata: { agentId: 'converse' } }) })).json.result;
    t.equal(waiting.status.state, 'input-required');
    const running = (
      await gw.rpc({
        key,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            role: 'user',
            messageId: 'm-slow',
            parts: [{ kind: 'data', data: { ms: 120_000, steps: 2 } }],
            metadata: { agentId: 'slow' },
          },
          configuration: { blocking: false },
        },
      })
    ).json.result;
    t.equal(running.status.state, 'working');
    const store = gw.gw.store;
    const doneKey = `ws1/${done.id}`;
    t.ok((await store.events.after(doneKey, 0)).length > 0, 'its events are kept meanwhile');

    clock.advance(TTL - 1); // sweeps run meanwhile (the interval's timer), and one more right now
    await gw.gw.retention.idle();
    t.equal(await gw.gw.retention.sweep(), 0, 'a sweep just before the age deletes nothing');
    const before = await gw.rpc({ key, method: 'tasks/get', params: { id: done.id } });
    t.equal(before.json.result?.status.state, 'completed', 'still readable 1 ms before its retention age');

    clock.advance(INTERVAL); // the next scheduled sweep runs past the age
    t.equal(await gw.gw.retention.idle(), 1, 'the scheduled sweep deleted one task');
    const after = await gw.rpc({ key, method: 'tasks/get', params: { id: done.id } });
    t.equal(after.json.error?.code, -32001, 'gone: tasks/get answers task not found');
    t.strictSame(await store.events.after(doneKey, 0), [], 'its events are gone');
    t.strictSame(await store.pushConfigs.list(doneKey), [], 'its push configs are gone');
    t.notOk(
      (await store.tasks.listByState(ALL_STATES)).some((x) => x.id === done.id),
      'no state index lists it',
    );
    if (engine === 'redis') t.strictSame(await redisKeysNaming(prefix, done.id), [], 'no Redis key or index entry names it');

    clock.advance(30 * TTL);
    await gw.gw.retention.idle();
    for (const live of [waiting, running]) {
      const got = await gw.rpc({ key, method: 'tasks/get', params: { id: live.id } });
      t.equal(got.json.result?.status.state, live.status.state, `a ${live.status.state} task is never deleted`);
    }
  });
}

t.test('item 18: retention settings are validated and default to 7 days', async (t) => {
  const { parseConfig } = await import('../../src/config/parse.js');
  t.strictSame(parseConfig({}).retention, { taskTtlMs: 7 * 86_400_000, sweepIntervalMs: 600_000 });
  t.throws(() => parseConfig({ retention: { taskTtlMs: -1 } }), /retention\.taskTtlMs/);
  t.throws(() => parseConfig({ retention: { sweepIntervalMs: 0 } }), /retention\.sweepIntervalMs/);
});
