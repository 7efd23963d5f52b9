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
