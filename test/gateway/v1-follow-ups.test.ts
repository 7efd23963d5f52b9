// A2A 1.0's rules for messages to an existing task and for subscribing to one, over real HTTP against the real server:
// a message naming another context than its task's is refused (and changes nothing), a message to a terminal task and
// a SubscribeToTask of one are 1.0's UnsupportedOperationError (-32004), as the spec and the SDK 1.x server answer.
import t from 'tap';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { openSse } from '../support/sse.js';

const V1 = { 'A2A-Version': '1.0' };
let n = 0;
const msg = (text: string, extra: Record<string, unknown> = {}) => ({ messageId: `fu-${++n}`, role: 'ROLE_USER', parts: [{ text }], ...extra });

let gw: TestGateway;
let key: string;
const call = (method: string, params: unknown, headers: Record<string, string> = V1) => gw.rpc({ method, params, key, headers });

t.before(async () => {
  gw = await startTestGateway();
  key = (await gw.key({ workspace: 'ws-follow' })).key;
});
t.teardown(() => gw.close());

t.test("a follow-up whose contextId is not its task's is refused naming the field, and the task is unchanged", async (t) => {
  const first = await call('SendMessage', { message: msg('hi', { metadata: { agentId: 'converse' } }) });
  const task = first.json.result.task;
  t.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
  const before = await call('GetTask', { id: task.id });

  const r = await call('SendMessage', { message: msg('more', { taskId: task.id, contextId: 'another-context' }) });
  t.equal(r.json.error?.code, -32602, 'InvalidParams');
  t.equal(r.json.error?.data[0].metadata.path, 'params.message.contextId', 'naming the field');
  t.match(r.json.error?.message, /another-context/);
  const after = await call('GetTask', { id: task.id });
  t.same(after.json.result, before.json.result, 'nothing was delivered to the task');

  const b = await gw.rpc({
    method: 'message/send',
    key,
    params: { message: { kind: 'message', messageId: `fu-${++n}`, role: 'user', parts: [{ kind: 'text', text: 'x' }], taskId: task.id, contextId: 'other' } },
  });
  t.equal(b.json.error?.code, -32602, 'the same in 0.3');
  t.equal(b.json.error?.data.path, 'params.message.contextId');

  const ok = await call('SendMessage', { message: msg('done', { taskId: task.id, contextId: task.contextId }) });
  t.equal(ok.json.result.task.status.state, 'TASK_STATE_COMPLETED', 'the right contextId (or none) still continues the task');
});

t.test('a message to a terminal task: UnsupportedOperationError (-32004) in 1.0, still -32602 in 0.x', async (t) => {
  const done = (await call('SendMessage', { message: msg('once', { metadata: { agentId: 'echo' } }) })).json.result.task;
  t.equal(done.status.state, 'TASK_STATE_COMPLETED');

  const r = await call('SendMessage', { message: msg('again', { taskId: done.id }) });
  t.equal(r.json.error?.code, -32004, 'UnsupportedOperationError');
  t.equal(r.json.error?.data[0].reason, 'UNSUPPORTED_OPERATION');
  t.equal(r.json.error?.data[0].domain, 'a2a-protocol.org');

  const s = await openSse({ url: gw.url, key, method: 'SendStreamingMessage', params: { message: msg('again', { taskId: done.id }) }, headers: V1 });
  const err = (await s.all()).find((f) => f.data?.error)?.data ?? s.json;
  t.equal(err.error.code, -32004, 'the same for a streaming send');

  const b = (
    await gw.rpc({
      method: 'message/send',
      key,
      params: { message: { kind: 'message', messageId: `fu-${++n}`, role: 'user', parts: [{ kind: 'text', text: 'x' }] } },
    })
  ).json.result;
  const again = await gw.rpc({
    method: 'message/send',
    key,
    params: { message: { kind: 'message', messageId: `fu-${++n}`, role: 'user', parts: [{ kind: 'text', text: 'y' }], taskId: b.id } },
  });
  t.equal(again.json.error?.code, -32602, "0.x keeps -32602 (the spec's -32004 is the rate limit)");
});

t.test('SubscribeToTask of a terminal task: UnsupportedOperationError; with Last-Event-ID the missed events are replayed', async (t) => {
  const done = (await call('SendMessage', { message: msg('once', { metadata: { agentId: 'echo' } }) })).json.result.task;
  const s = await openSse({ url: gw.url, key, method: 'SubscribeToTask', params: { id: done.id }, headers: V1 });
  const frames = await s.all();
  const err = frames.find((f) => f.data?.error)?.data ?? s.json;
  t.equal(err?.error?.code, -32004, 'UnsupportedOperationError');
  t.equal(err?.error?.data[0].reason, 'UNSUPPORTED_OPERATION');
  t.notOk(
    frames.some((f) => f.data?.result),
    'no event',
  );

  const replay = await openSse({ url: gw.url, key, method: 'SubscribeToTask', params: { id: done.id }, headers: { ...V1, 'Last-Event-ID': '0' } });
  const events = (await replay.all()).filter((f) => f.data?.result).map((f) => f.data.result);
  t.equal(events[events.length - 1]?.statusUpdate?.status.state, 'TASK_STATE_COMPLETED', 'a client that missed the end still gets it');
});
