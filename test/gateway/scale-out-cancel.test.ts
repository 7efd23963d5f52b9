// Scale-out cancels: a cancel sent to one instance of a task running on another goes over the Redis bus as an ask
// with its own id and the caller's request id, and is answered; when no answer comes in time (the ask lost, its owner
// gone or silent) the caller's instance judges the task again from the store and its owner's beat.
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { createRedisBus } from '../../src/runtime/events/bus.js';
import { until } from '../support/a2a-client.js';
import { slowB } from '../support/gateway.js';
import { startPair } from '../support/instance-pair.js';
import { REDIS_URL, testPrefix } from '../support/redis.js';

t.test('two cancels of one task running on A, both sent to B at once: one cancels it, the other is told it is not cancelable', async (t) => {
  const [a, b] = await startPair(t, { name: 'cancel-race' });
  const { key } = await a.key();
  for (let round = 0; round < 4; round++) {
    const running = await a.rpc({ key, method: 'message/send', params: slowB({ ms: 600_000, steps: 2, blocking: false }) });
    t.equal(running.json.result.status.state, 'working');
    const id = running.json.result.id;
    const ids = [`cancel-one-${round}`, `cancel-two-${round}`];
    const replies = await Promise.all(ids.map((rid) => b.rpc({ key, method: 'tasks/cancel', params: { id }, headers: { 'X-Request-Id': rid } })));
    const won = replies.flatMap((r, i) => (r.json.result?.status.state === 'canceled' ? [ids[i]!] : []));
    t.equal(won.length, 1, `round ${round}: one cancel is answered canceled (${JSON.stringify(replies.map((r) => r.json.error?.message ?? 'ok'))})`);
    for (const r of replies.filter((r) => r.json.error)) {
      t.equal(r.json.error.code, -32002, 'the other is told the task is not cancelable');
      t.equal(r.json.error.data.state, 'canceled', 'naming its state');
    }
    const last = (await b.gw.store.events.after(`ws1/${id}`, 0)).at(-1);
    t.match(last, { kind: 'status', status: { state: 'canceled' } }, 'the task ends canceled');
    t.equal(last?.requestId, won[0], 'its canceled status carries the request id of the cancel answered canceled');
  }
});

t.test('a cancel whose ask is lost (its owner A stopped): a clear error while A still reads alive, canceled on B once A reads dead', async (t) => {
  const clock = new ManualClock(Date.now());
  const prefix = testPrefix('cancel-lost');
  const [a, b] = await startPair(t, { prefix, settings: { instances: { heartbeatMs: 5_000, deadAfterMs: 20_000 } }, clock });
  // hears B's asks as any instance does: B arms its wait before it asks
  const bus = await createRedisBus({ url: REDIS_URL, prefix });
  t.teardown(() => bus.close());
  let asks = 0;
  bus.onCancelRequest(() => asks++);
  const { key } = await a.key();
  const running = await a.rpc({ key, method: 'message/send', params: slowB({ ms: 600_000, steps: 2, blocking: false }) });
  const id = running.json.result.id;
  t.equal(running.json.result.status.state, 'working');
  await a.gw.close(); // A hears no more asks; its task stays stored as working, and its last beat is still fresh

  /** sends a cancel to B, and once B asked over the bus (its wait armed) moves the clock by `ms` */
  const cancelAfter = async (ms: number, requestId: string) => {
    const before = asks;
    const reply = b.rpc({ key, method: 'tasks/cancel', params: { id }, headers: { 'X-Request-Id': requestId } });
    await until(() => asks > before, 'B asks over the bus');
    clock.advance(ms);
    return reply;
  };

  const silent = await cancelAfter(10_001, 'cancel-silent'); // past the 10 s wait; A's beat is 10 s old: alive
  t.equal(silent.json.error?.code, -32603, `an error (${JSON.stringify(silent.json)})`);
  t.equal(silent.json.error?.data?.detail, 'cancel_unanswered', 'saying the instance running the task did not answer');
  t.match(silent.json.error?.message, /did not answer the cancel in time; the task is still running; retry/);
  t.equal(silent.headers.get('retry-after'), '1', 'with a Retry-After');
  t.equal((await b.rpc({ key, method: 'tasks/get', params: { id } })).json.result.status.state, 'working', 'the task is left as it was');

  const late = await cancelAfter(15_000, 'cancel-late'); // A's beat is now 25 s old: past deadAfterMs, A reads dead
  t.equal(late.json.result?.status.state, 'canceled', `canceled here after the wait (${JSON.stringify(late.json.error ?? '')})`);
  t.equal((await b.rpc({ key, method: 'tasks/get', params: { id } })).json.result.status.state, 'canceled', 'and stored so');
  const last = (await b.gw.store.events.after(`ws1/${id}`, 0)).at(-1);
  t.equal(last?.requestId, 'cancel-late', 'its canceled status carries the request id of the cancel');
});
