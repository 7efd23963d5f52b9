// Tasks whose changes meet a Redis stall: once Redis answers again none may stay `working` for good (its owner is
// alive and beating, so no other instance would ever fail it). One that finished during the stall keeps its end; one
// whose run was cut off by the refused write is failed with a reason.
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { until } from '../support/a2a-client.js';
import { startTestGateway } from '../support/gateway.js';
import { startPrivateRedis } from '../support/private-redis.js';

t.setTimeout(120_000);

const slow = (ms: number, steps: number) => ({
  message: { kind: 'message', role: 'user', messageId: `m-${Math.random()}`, parts: [{ kind: 'data', data: { ms, steps } }], metadata: { agentId: 'slow' } },
  configuration: { blocking: false },
});

t.test('after a Redis stall a task that ended during it is stored as it ended, one cut off is failed; none stays working', async (t) => {
  const redis = await startPrivateRedis();
  t.teardown(() => redis.stop());
  const clock = new ManualClock(Date.now());
  const lines: Array<{ msg: string; fields: Record<string, unknown> | undefined }> = [];
  const gw = await startTestGateway({
    config: { store: 'redis', redisUrl: redis.url, redisPrefix: 'stuck:', instanceId: 'gw-a', redis: { commandTimeoutMs: 1_000 } },
    clock,
    timers: clock,
    log: (msg, fields) => void lines.push({ msg, fields }),
  });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const get = async (id: string) => (await gw.rpc({ key, method: 'tasks/get', params: { id } })).json.result;
  const ends = await gw.rpc({ key, method: 'message/send', params: slow(400, 2) });
  const long = await gw.rpc({ key, method: 'message/send', params: slow(60_000, 600) });
  t.equal(ends.json.result?.status?.state, 'working', 'both sends are acknowledged: the tasks run');
  t.equal(long.json.result?.status?.state, 'working', 'the long one too');
  const endsId: string = ends.json.result.id;
  const longId: string = long.json.result.id;

  redis.stall();
  // the runs go on in their workers; their next changes meet the stall and are not stored
  const refused = (id: string) => lines.some((l) => l.msg === 'task change not stored' && l.fields?.task === id);
  await until(() => refused(endsId) && refused(longId), 'a change of each task to be refused by the store');
  redis.resume();
  await until(async () => (await gw.rpc({ key, method: 'tasks/get', params: { id: endsId } })).status === 200, 'Redis to answer again');

  // whatever retry timer the gateway keeps runs on the injected clock
  const running = (task: { status: { state: string } } | undefined) => ['submitted', 'working'].includes(task?.status.state ?? 'working');
  await until(
    async () => {
      clock.advance(5_000);
      return !running(await get(endsId)) && !running(await get(longId));
    },
    'both tasks to leave working',
    10_000,
  ).catch(() => undefined);
  const ended = await get(endsId);
  t.equal(ended.status.state, 'completed', 'the task that finished during the stall is stored completed');
  t.match(ended.artifacts?.[0]?.parts?.map((p: { text: string }) => p.text).join(''), /chunk 1\/2\n.*chunk 2\/2/s, 'with all its output');
  const cut = await get(longId);
  t.equal(cut.status.state, 'failed', 'the task whose run was cut off is failed, not left working for good');
  t.equal(cut.status.message?.metadata?.reason, 'store_write_failed', 'its status says why');
  const next = await gw.rpc({ key, method: 'message/send', params: slow(10, 1) });
  // a 10 ms turn may already have ended when the non-blocking answer is read (a loaded machine): any state of a task
  // that was taken, not an error
  t.ok(
    ['submitted', 'working', 'completed'].includes(next.json.result?.status?.state),
    `and the gateway takes new work (${JSON.stringify(next.json).slice(0, 200)})`,
  );
});
