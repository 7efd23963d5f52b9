// tasks/list answers one listing in one dialect: the one A2A-Version names (0.1, 0.2/0.3, 1.0), else 0.3; under
// `A2A-Version: 1.0` it is 1.0's ListTasks, its params read as 1.0's (`status` as a TaskState name) and every task in
// 1.0's shape, whatever dialect each task was created in.
import t from 'tap';
import { msgA, msgB, startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
let key: string;
const ids: Record<string, string> = {};

t.before(async () => {
  gw = await startTestGateway();
  key = (await gw.key({ workspace: 'ws-list-dialect' })).key;
  // one completed task per dialect, and one 1.0 task waiting for input
  ids.a = (await gw.rpc({ method: 'tasks/send', key, params: { id: 'list-a', ...msgA('a') } })).json.result.id;
  ids.b = (await gw.rpc({ method: 'message/send', key, params: msgB('b') })).json.result.id;
  const v1 = (agentId: string) => ({ message: { messageId: `m-${agentId}`, role: 'ROLE_USER', parts: [{ text: 'v1' }], metadata: { agentId } } });
  const headers = { 'A2A-Version': '1.0' };
  ids.v1 = (await gw.rpc({ method: 'SendMessage', key, params: v1('echo'), headers })).json.result.task.id;
  ids.waiting = (await gw.rpc({ method: 'SendMessage', key, params: v1('converse'), headers })).json.result.task.id;
});
t.teardown(() => gw.close());

const list = (params: unknown, version?: string) =>
  gw.rpc({ method: 'tasks/list', key, params, ...(version !== undefined && { headers: { 'A2A-Version': version } }) });
const idsOf = (r: { json: any }) => (r.json.result.tasks as { id: string }[]).map((x) => x.id).sort();

t.test('under A2A-Version 1.0: the 1.0 status filter applies and every task reads in 1.0 shape', async (t) => {
  const r = await list({ status: 'TASK_STATE_COMPLETED' }, '1.0');
  t.notOk(r.json.error, 'no error');
  t.same(idsOf(r), [ids.a, ids.b, ids.v1].sort(), 'only the completed tasks, of every dialect');
  t.equal(r.json.result.totalSize, 3);
  for (const task of r.json.result.tasks) {
    t.equal(task.status.state, 'TASK_STATE_COMPLETED', `${task.id}: a 1.0 state`);
    t.type(task.contextId, 'string', `${task.id}: 1.0's contextId`);
    t.notOk('kind' in task || 'sessionId' in task, `${task.id}: no 0.x field`);
  }
  const waiting = await list({ status: 'TASK_STATE_INPUT_REQUIRED' }, '1.0');
  t.same(idsOf(waiting), [ids.waiting]);
  const bad = await list({ status: 'completed' }, '1.0');
  t.equal(bad.json.error?.code, -32602, "a 0.x state name is not one of 1.0's");
  t.ok(Array.isArray(bad.json.error?.data), 'in 1.0 error shape');
  t.equal(bad.json.error?.data[0].metadata.path, 'params.status');
});

t.test('without a header: one shape, 0.3 (as 1.0 reads an absent header), whatever dialect a task was made in', async (t) => {
  const r = await list({});
  t.equal(r.json.result.totalSize, 4);
  for (const task of r.json.result.tasks) {
    t.equal(task.kind, 'task', `${task.id}: a 0.3 task`);
    t.notOk(String(task.status.state).startsWith('TASK_STATE_'), `${task.id}: a 0.3 state`);
  }
  const done = await list({ state: 'completed' });
  t.same(idsOf(done), [ids.a, ids.b, ids.v1].sort(), "0.3's state filter");
});

t.test('under A2A-Version 0.1: every task in rev A shape', async (t) => {
  const r = await list({}, '0.1');
  t.equal(r.json.result.totalSize, 4);
  for (const task of r.json.result.tasks) {
    t.type(task.sessionId, 'string', `${task.id}: rev A's sessionId`);
    t.notOk('kind' in task, `${task.id}: no kind`);
  }
});

t.test('1.0 ListTasks omits artifacts unless includeArtifacts (1.0 3.1.4: not even an empty list)', async (t) => {
  const headers = { 'A2A-Version': '1.0' };
  for (const method of ['ListTasks', 'tasks/list']) {
    const without = await gw.rpc({ method, key, params: { status: 'TASK_STATE_COMPLETED' }, headers });
    for (const task of without.json.result.tasks) t.notOk('artifacts' in task, `${method} ${task.id}: no artifacts field`);
    const withThem = await gw.rpc({ method, key, params: { status: 'TASK_STATE_COMPLETED', includeArtifacts: true }, headers });
    for (const task of withThem.json.result.tasks) t.ok(task.artifacts.length > 0, `${method} ${task.id}: its artifacts when asked`);
  }
  const old = await list({ state: 'completed' }, '0.3');
  for (const task of old.json.result.tasks) t.same(task.artifacts, [], `0.3 ${task.id}: an empty list, as before`);
});
