// A push config whose delivery queue name would not fit a store key is refused up front, naming the config id, and
// nothing is stored: before, it was stored, and every later write of its task failed (a job key over LMDB's limit).
import t from 'tap';
import { msgA, startTestGateway } from '../support/gateway.js';

/** 256 characters (the id bound) that JSON writes as 6 bytes each: a task id and a config id of them name a ~3 KB queue. */
const CONTROL = (c: string) => c.repeat(256);
const URL = 'http://127.0.0.1:9/hook';

t.test('a config id that makes the queue name too long is refused, and the task goes on', async (t) => {
  const tg = await startTestGateway({ config: { push: { allowlist: ['127.0.0.1'] } } });
  t.teardown(() => tg.close());
  const { key } = await tg.key();
  const id = CONTROL('\u0001');
  const first = await tg.rpc({ method: 'tasks/send', key, params: { id, ...msgA('first point', { metadata: { agentId: 'converse' } }) } });
  t.equal(first.json.result?.status?.state, 'input-required', JSON.stringify(first.json.error));

  const set = await tg.rpc({ method: 'tasks/pushNotificationConfig/set', key, params: { id, pushNotificationConfig: { id: CONTROL('\u0002'), url: URL } } });
  t.equal(set.json.error?.code, -32602);
  t.equal(set.json.error?.data?.path, 'params.pushNotificationConfig.id');
  t.match(set.json.error?.message, /too long/);
  const list = await tg.rpc({ method: 'tasks/pushNotificationConfig/list', key, params: { id } });
  t.same(list.json.result, [], 'no config stored');

  const next = await tg.rpc({ method: 'tasks/send', key, params: { id, ...msgA('done') } });
  t.equal(next.json.result?.status?.state, 'completed', `the task's next write goes through: ${JSON.stringify(next.json.error)}`);
});

t.test('an inline config of a new task with such an id is refused, and no task is made', async (t) => {
  const tg = await startTestGateway({ config: { push: { allowlist: ['127.0.0.1'] } } });
  t.teardown(() => tg.close());
  const { key } = await tg.key();
  const id = CONTROL('\u0003');
  const sent = await tg.rpc({
    method: 'tasks/send',
    key,
    params: { id, ...msgA('first point', { metadata: { agentId: 'converse' } }), pushNotification: { id: CONTROL('\u0004'), url: URL } },
  });
  t.equal(sent.json.error?.code, -32602);
  t.equal(sent.json.error?.data?.path, 'params.pushNotification.id');
  const got = await tg.rpc({ method: 'tasks/get', key, params: { id } });
  t.ok(got.json.error, 'no task stored');
});

t.test('ids that fit are taken as before (an ordinary config id on a long ordinary task id)', async (t) => {
  const tg = await startTestGateway({ config: { push: { allowlist: ['127.0.0.1'] } } });
  t.teardown(() => tg.close());
  const { key } = await tg.key();
  const id = 'é'.repeat(256);
  await tg.rpc({ method: 'tasks/send', key, params: { id, ...msgA('first point', { metadata: { agentId: 'converse' } }) } });
  const set = await tg.rpc({ method: 'tasks/pushNotificationConfig/set', key, params: { id, pushNotificationConfig: { id: 'ü'.repeat(256), url: URL } } });
  t.notOk(set.json.error, JSON.stringify(set.json.error));
});
