// A task whose run ends while Redis is unreachable: its last change cannot be stored, and once Redis answers again the
// task must not stay `working` for good (its owner is alive and beating, so no other instance will ever fail it).
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

t.test('a task that ends during a Redis stall is failed with a reason once Redis is back, not left working', async (t) => {
  const redis = await startPrivateRedis();
  t.teardown(() => redis.stop());
  const clock = new ManualClock(Date.now());
  const lines: Array<{ msg: string; fields: Record<string, unknown> | undefined }> = [];
  const gw = await startTestGateway({
    config: { store: 'redis', redisUrl: redis.url, redisPrefix: 'stuck:', instanceId: 'gw-a', redis: { commandTimeoutMs: 300 } },
    clock,
    timers: clock,
    log: (msg, fields) => void lines.push({ msg, fields }),
  });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const sent = await gw.rpc({ key, method: 'message/send', params: slow(400, 2) });
  t.equal(sent.json.result?.status?.state, 'working', 'the send is acknowledged: the task runs');
  const id: string = sent.json.result.id;

  redis.stall();
  // the run goes on in its worker; its next change meets the stall and is not stored
  await until(() => lines.some((l) => l.msg === 'task change not stored' && l.fields?.task === id), 'a change of the task to be refused by the store');
  redis.resume();
  await until(async () => (await gw.rpc({ key, method: 'tasks/get', params: { id } })).status === 200, 'Redis to answer again');

  // whatever retry timer the gateway keeps runs on the injected clock
  let state: string | undefined;
  await until(
    async () => {
      clock.advance(5_000);
      state = (await gw.rpc({ key, method: 'tasks/get', params: { id } })).json.result?.status?.state;
      return state !== 'working' && state !== 'submitted';
    },
    'the task to leave working',
    10_000,
  ).catch(() => undefined);
  t.equal(state, 'failed', 'the task is failed, not left working for good');
  const task = (await gw.rpc({ key, method: 'tasks/get', params: { id } })).json.result;
  t.equal(task.status.message?.metadata?.reason, 'store_write_failed', 'its status says why');
  const next = await gw.rpc({ key, method: 'message/send', params: slow(10, 1) });
  t.ok(['submitted', 'working'].includes(next.json.result?.status?.state), 'and the gateway takes new work');
});
