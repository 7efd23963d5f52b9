// Two running gateway processes given one instance id (an A2A_INSTANCE_ID copied to every replica): each start fails
// the tasks the other runs, and neither is ever judged dead. They now say so in the log, naming the id and the fix.
// Real Redis, injected clock.
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { startTestGateway } from '../support/gateway.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';

const TWIN = /another running gateway process uses this instance id/;

t.test('two live processes beating under one instance id are told in the log; distinct ids and a restart are not', async (t) => {
  const prefix = testPrefix('instance-twins');
  const clock = new ManualClock(Date.now());
  const config = (id: string) => ({
    store: 'redis' as const,
    redisUrl: REDIS_URL,
    redisPrefix: prefix,
    instanceId: id,
    instances: { heartbeatMs: 5_000, deadAfterMs: 20_000 },
  });
  const lines: Array<{ gw: string; msg: string; fields?: Record<string, unknown> }> = [];
  const start = (name: string, id: string) =>
    startTestGateway({ config: config(id), clock, timers: clock, log: (msg, fields) => void lines.push({ gw: name, msg, fields }) });
  const beats = async (n: number) => {
    for (let i = 0; i < n; i++) {
      clock.advance(5_000);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const twinLines = () => lines.filter((l) => TWIN.test(l.msg));

  const a = await start('a', 'gw-one');
  t.teardown(() => a.close());
  const other = await start('other', 'gw-other');
  t.teardown(() => other.close());
  await beats(3);
  t.same(twinLines(), [], 'instances with their own ids: nothing said');

  await a.gw.close();
  const restarted = await start('restarted', 'gw-one');
  t.teardown(() => restarted.close());
  await beats(3);
  t.same(twinLines(), [], 'a restart under the same id, the old process gone: nothing said');

  const twin = await start('twin', 'gw-one');
  t.teardown(() => twin.close());
  t.teardown(() => cleanupPrefix(REDIS_URL, prefix)); // after every gateway above has closed
  await beats(3);
  const told = twinLines();
  t.ok(told.length > 0, 'a second live process under the id: told');
  t.equal(told[0]?.fields?.instance, 'gw-one', 'naming the id');
  t.match(String(told[0]?.fields?.fix), /A2A_INSTANCE_ID/, 'and the fix');
  const before = told.length;
  await beats(2);
  t.ok(twinLines().length - before <= 2, 'not at every beat');
});
