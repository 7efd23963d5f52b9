// One task holds at most push.maxConfigsPerTask push configs (each is a webhook per change): past it a set is refused
// with -32602 naming the field and the limit, nothing is stored, in every dialect, in a batch and inline on a send.
import t from 'tap';
import { startTestGateway, msgB, type TestGateway } from '../support/gateway.js';

const LIMIT = 3;
const HOOK = 'http://127.0.0.1:9/hook';
const V1 = { 'A2A-Version': '1.0' };

let gw: TestGateway;
let key: string;
t.before(async () => {
  gw = await startTestGateway({ config: { push: { allowlist: ['127.0.0.1'], maxConfigsPerTask: LIMIT } } });
  key = (await gw.key()).key;
});
t.teardown(() => gw.close());

/** a task waiting for input (the converse agent), so follow-ups are accepted */
async function newTask(): Promise<string> {
  const r = await gw.rpc({ method: 'message/send', key, params: msgB('first point', { metadata: { agentId: 'converse' } }) });
  if (r.json.result?.status.state !== 'input-required') throw new Error(`no waiting task: ${JSON.stringify(r.json)}`);
  return r.json.result.id;
}
const setB = (taskId: string, config: Record<string, unknown> = {}) =>
  gw.rpc({ method: 'tasks/pushNotificationConfig/set', key, params: { taskId, pushNotificationConfig: { url: HOOK, ...config } } });
const listed = async (taskId: string) =>
  (await gw.rpc({ method: 'tasks/pushNotificationConfig/list', key, params: { id: taskId } })).json.result as Array<{
    pushNotificationConfig: { id: string };
  }>;

t.test('rev B: the config past the limit is refused naming field and limit; nothing is stored; a delete makes room', async (t) => {
  const id = await newTask();
  for (let i = 0; i < LIMIT; i++) t.equal((await setB(id, { id: `c${i}` })).json.result.pushNotificationConfig.id, `c${i}`);
  const refused = await setB(id, { id: 'one-too-many' });
  t.equal(refused.json.error.code, -32602);
  t.match(
    refused.json.error.message,
    /params\.pushNotificationConfig: task .* already has 3 push notification configs, the limit \(push\.maxConfigsPerTask = 3\)/,
  );
  t.match(refused.json.error.data, { path: 'params.pushNotificationConfig', limit: LIMIT, setting: 'push.maxConfigsPerTask' });
  t.same((await listed(id)).map((c) => c.pushNotificationConfig.id).sort(), ['c0', 'c1', 'c2'], 'nothing stored');
  t.equal((await setB(id)).json.error?.code, -32602, 'a config without an id is refused too');
  const replaced = await setB(id, { id: 'c1', token: 'new' });
  t.equal(replaced.json.result?.pushNotificationConfig.id, 'c1', 'setting an id the task holds replaces it: no new config');
  t.equal((await listed(id)).length, LIMIT);
  await gw.rpc({ method: 'tasks/pushNotificationConfig/delete', key, params: { id, pushNotificationConfigId: 'c0' } });
  t.equal((await setB(id, { id: 'c3' })).json.result?.pushNotificationConfig.id, 'c3', 'a deleted config frees its place');
});

t.test('rev A and 1.0 names are bound alike', async (t) => {
  const id = await newTask();
  for (let i = 0; i < LIMIT; i++) {
    const r = await gw.rpc({ method: 'tasks/pushNotification/set', key, params: { id, pushNotificationConfig: { url: HOOK } } });
    t.notOk(r.json.error, `rev A set ${i + 1}`);
  }
  const a = await gw.rpc({ method: 'tasks/pushNotification/set', key, params: { id, pushNotificationConfig: { url: HOOK } } });
  t.equal(a.json.error.code, -32602);
  t.equal(a.json.error.data.limit, LIMIT);
  const v1 = await gw.rpc({ method: 'CreateTaskPushNotificationConfig', key, params: { taskId: id, url: HOOK }, headers: V1 });
  t.equal(v1.json.error.code, -32602);
  t.match(v1.json.error.data[0].metadata, { path: 'params', limit: String(LIMIT), setting: 'push.maxConfigsPerTask' });
  t.equal((await listed(id)).length, LIMIT);
});

t.test('a batch of sets on one task stores no more than the limit', async (t) => {
  const id = await newTask();
  const body = JSON.stringify(
    Array.from({ length: 20 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'tasks/pushNotificationConfig/set',
      params: { taskId: id, pushNotificationConfig: { url: HOOK } },
    })),
  );
  const r = await gw.rpc({ body, key });
  const answers = r.json as Array<{ result?: unknown; error?: { code: number } }>;
  t.equal(answers.filter((a) => a.result).length, LIMIT, 'as many accepted as the limit');
  t.ok(answers.filter((a) => !a.result).every((a) => a.error?.code === -32602));
  t.equal((await listed(id)).length, LIMIT, 'and no more stored');
});

t.test('a follow-up with an inline config on a full task is refused before its message is delivered', async (t) => {
  const id = await newTask();
  for (let i = 0; i < LIMIT; i++) await setB(id);
  const before = (await gw.rpc({ method: 'tasks/get', key, params: { id } })).json.result;
  const r = await gw.rpc({
    method: 'message/send',
    key,
    params: { ...msgB('second point', { taskId: id }), configuration: { pushNotificationConfig: { url: HOOK } } },
  });
  t.equal(r.json.error?.code, -32602);
  t.match(r.json.error.data, { path: 'params.configuration.pushNotificationConfig', limit: LIMIT });
  const after = (await gw.rpc({ method: 'tasks/get', key, params: { id } })).json.result;
  t.equal(after.history.length, before.history.length, 'the message was not delivered');
  t.equal(after.status.state, 'input-required');
  t.equal((await listed(id)).length, LIMIT, 'nothing stored');
});
