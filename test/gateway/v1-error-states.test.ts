// A2A 1.0 callers read a task's state in an error's ErrorInfo metadata in 1.0's enum names (TASK_STATE_COMPLETED),
// as their Task carries it; the revisions' callers keep the 0.x names ("completed") in `data.state`.
import t from 'tap';
import { startTestGateway, msgB } from '../support/gateway.js';
import { openSse } from '../support/sse.js';

const V1 = { 'A2A-Version': '1.0' };
const text = (s: string, extra: Record<string, unknown> = {}) => ({ message: { messageId: `m-${s}`, role: 'ROLE_USER', parts: [{ text: s }], ...extra } });

t.test("ErrorInfo metadata names the task's state as 1.0 does", async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const call = (method: string, params: unknown, headers: Record<string, string> = V1) => gw.rpc({ method, params, key, headers });

  const sent = await call('SendMessage', text('hi'));
  const task = sent.json.result.task;
  t.equal(task.status.state, 'TASK_STATE_COMPLETED');

  const cancel = await call('CancelTask', { id: task.id });
  t.equal(cancel.json.error?.data?.[0]?.reason, 'TASK_NOT_CANCELABLE');
  t.equal(cancel.json.error?.data?.[0]?.metadata?.state, 'TASK_STATE_COMPLETED', 'a refused CancelTask');

  const more = await call('SendMessage', text('more', { taskId: task.id, contextId: task.contextId }));
  t.equal(more.json.error?.code, -32004);
  t.equal(more.json.error?.data?.[0]?.metadata?.state, 'TASK_STATE_COMPLETED', 'a message to a terminal task');

  const sub = await openSse({ url: gw.url, key, method: 'SubscribeToTask', params: { id: task.id }, headers: V1 });
  const frames = sub.json ? [{ data: sub.json }] : await sub.all();
  t.equal(frames[0]?.data?.error?.data?.[0]?.metadata?.state, 'TASK_STATE_COMPLETED', 'a SubscribeToTask of a terminal task');

  const shared = await call('tasks/cancel', { id: task.id });
  t.equal(shared.json.error?.data?.[0]?.metadata?.state, 'TASK_STATE_COMPLETED', 'tasks/cancel under A2A-Version: 1.0');

  const b = await gw.rpc({ method: 'message/send', params: msgB('b'), key });
  const old = await gw.rpc({ method: 'tasks/cancel', params: { id: b.json.result.id }, key });
  t.equal(old.json.error?.data?.state, 'completed', "0.3 callers keep the revisions' names");
});

t.test('the message of a 1.0 error names task states as 1.0 does; 0.3 keeps its words', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const call = (method: string, params: unknown, headers: Record<string, string> = V1, path?: string) => gw.rpc({ method, params, key, headers, path });
  const task = (await call('SendMessage', text('hi'))).json.result.task;

  const cancel = await call('CancelTask', { id: task.id });
  t.equal(cancel.json.error?.message, `Task ${task.id} is TASK_STATE_COMPLETED and cannot be canceled`, 'a refused CancelTask');
  const more = await call('SendMessage', text('more', { taskId: task.id, contextId: task.contextId }));
  t.equal(more.json.error?.message, `Task ${task.id} is TASK_STATE_COMPLETED; a terminal task takes no more messages`, 'a message to a terminal task');
  const sub = await openSse({ url: gw.url, key, method: 'SubscribeToTask', params: { id: task.id }, headers: V1 });
  const frames = sub.json ? [{ data: sub.json }] : await sub.all();
  t.match(
    frames[0]?.data?.error?.message,
    new RegExp(`^Task ${task.id} is TASK_STATE_COMPLETED: a terminal task cannot be subscribed to`),
    'a SubscribeToTask',
  );
  const shared = await call('tasks/cancel', { id: task.id });
  t.equal(shared.json.error?.message, `Task ${task.id} is TASK_STATE_COMPLETED and cannot be canceled`, 'tasks/cancel under A2A-Version: 1.0');

  // a working task (the slow agent, a step of days) takes a message only when it asks for one
  const slow = { messageId: 'm-slow', role: 'ROLE_USER', parts: [{ data: { data: { ms: 2 ** 33, steps: 2 } } }] };
  const working = (await call('SendMessage', { message: slow, configuration: { returnImmediately: true } }, V1, '/api/a2a/agents/slow')).json.result.task;
  t.equal(working?.status?.state, 'TASK_STATE_WORKING');
  const early = await call('SendMessage', text('early', { taskId: working.id, contextId: working.contextId }), V1, '/api/a2a/agents/slow');
  t.equal(
    early.json.error?.message,
    `Task ${working.id} is TASK_STATE_WORKING; it takes a message only in TASK_STATE_INPUT_REQUIRED`,
    'a message to a working task',
  );
  const earlyB = await gw.rpc({
    method: 'message/send',
    params: { message: { ...msgB('early').message, taskId: working.id, contextId: working.contextId } },
    key,
    path: '/api/a2a/agents/slow',
  });
  t.equal(earlyB.json.error?.message, `Task ${working.id} is working; it takes a message only in input-required`, '0.3 keeps its names');
  t.equal((await call('CancelTask', { id: working.id })).json.result?.status?.state, 'TASK_STATE_CANCELED');

  const b = await gw.rpc({ method: 'message/send', params: msgB('b'), key });
  const old = await gw.rpc({ method: 'tasks/cancel', params: { id: b.json.result.id }, key });
  t.equal(old.json.error?.message, `Task ${b.json.result.id} is completed and cannot be canceled`, "0.3 callers keep the revisions' names");
});
