// Live events of a task on another instance travel over Redis pub/sub, which keeps nothing for a subscriber that is
// cut off: a stream must catch up from the store, not miss the final event and stay open for good.
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { until } from '../support/a2a-client.js';
import { slowB } from '../support/gateway.js';
import { startPair } from '../support/instance-pair.js';
import { REDIS_URL } from '../support/redis.js';
import { openSse, type SseFrame } from '../support/sse.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

t.setTimeout(120_000);

t.test('a stream on B of a task on A gets the events it missed while B was cut off from Redis, to the final one', async (t) => {
  // B reaches Redis through a forwarder the test can cut; A reaches it directly
  const proxy = await startTcpProxy(Number(new URL(REDIS_URL).port || 6379));
  t.teardown(() => proxy.close()); // after both instances have closed
  const clockB = new ManualClock(Date.now());
  const [a, b] = await startPair(t, {
    name: 'bus-gap',
    // long enough for a loaded machine's start-up reads; B's calls while cut off still give up well within the test
    settings: { redis: { commandTimeoutMs: 2_000 } },
    b: { redisUrl: `redis://127.0.0.1:${proxy.port}`, clock: clockB },
  });
  const { key } = await a.key();

  const running = await a.rpc({ key, method: 'message/send', params: slowB({ ms: 600, steps: 3, blocking: false }) });
  const id: string = running.json.result.id;
  const s = await openSse({ url: b.url, key, method: 'tasks/resubscribe', params: { id } });
  let head = await s.next();
  while (head && !head.data) head = await s.next(); // the opening comment
  t.equal(head?.data?.result?.kind, 'task', 'B opens the stream with the task as it stands');

  proxy.target(undefined);
  proxy.cut();
  await until(async () => (await a.rpc({ key, method: 'tasks/get', params: { id } })).json.result?.status?.state === 'completed', 'the task to complete on A');
  proxy.target(Number(new URL(REDIS_URL).port || 6379));
  await until(async () => (await fetch(`${b.url}/readyz`)).status === 200, "B's Redis connections to be back");

  // B's stream timers run on its clock: a quiet stream's ping interval passes
  const rest: SseFrame[] = [];
  let ended = false;
  void (async () => {
    for (let f = await s.next(); f; f = await s.next()) if (f.data) rest.push(f);
    ended = true;
  })();
  await until(
    () => {
      clockB.advance(15_000);
      return ended;
    },
    'the stream on B to end',
    8_000,
  ).catch(() => undefined);
  s.close();
  t.ok(ended, 'the stream ends');
  const last = rest[rest.length - 1]?.data?.result;
  t.equal(last?.status?.state, 'completed', 'with the final event it missed');
  const ids = [Number(head!.id), ...rest.map((f) => Number(f.id))];
  t.strictSame(
    ids,
    ids.map((_, i) => ids[0]! + i),
    `every event once, in order: ${ids.join(',')}`,
  );
});
