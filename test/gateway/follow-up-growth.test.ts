// A caller's messages count toward `tasks.maxTaskBytes` as the agent's output does: follow-ups to a task waiting for
// input (message/send with its taskId) could otherwise grow one task record, rewritten whole on every write, forever.
// A message that would pass the limit is refused (-32602, naming the limit) and changes nothing.
import t from 'tap';
import { msgB, startTestGateway } from '../support/gateway.js';

const LIMIT = 64 * 1024;
/** a data part: the converse agent echoes text parts only, so its own replies stay small and the caller's bytes are what grow */
const blob = (kb: number, taskId?: string) => ({
  message: {
    kind: 'message',
    role: 'user',
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    parts: [{ kind: 'data', data: { blob: 'x'.repeat(kb * 1024) } }],
    metadata: { agentId: 'converse' },
    ...(taskId !== undefined && { taskId }),
  },
});

t.test('follow-ups that would pass tasks.maxTaskBytes are refused naming the limit; the task is unchanged and goes on', async (t) => {
  const gw = await startTestGateway({ config: { tasks: { maxTaskBytes: LIMIT } } });
  t.teardown(() => gw.close());
  const { key } = await gw.key();

  const first = await gw.rpc({ key, method: 'message/send', params: msgB('hi', { metadata: { agentId: 'converse' } }) });
  const id = first.json.result?.id;
  t.equal(first.json.result?.status?.state, 'input-required', JSON.stringify(first.json).slice(0, 300));

  // 15 KiB a message: the fifth would pass 64 KiB. A gateway without the bound takes all eight
  let refused: { code?: number; message?: string; data?: Record<string, unknown> } | undefined;
  let accepted = 0;
  for (let i = 0; i < 8 && !refused; i++) {
    const before = await gw.gw.store.tasks.get('ws1', id);
    const r = await gw.rpc({ key, method: 'message/send', params: blob(15, id) });
    if (r.json.error) {
      refused = r.json.error;
      const after = await gw.gw.store.tasks.get('ws1', id);
      t.equal(after?.seq, before?.seq, 'the refused message stored nothing');
      t.equal(after?.history.length, before?.history.length, 'the history is as it was');
      t.equal(after?.status.state, 'input-required', 'the task still waits for input');
    } else {
      t.equal(r.json.result?.status?.state, 'input-required', `follow-up ${i + 1} is taken`);
      accepted++;
    }
  }
  t.ok(refused, `a follow-up is refused before the task passes the limit (${accepted} taken)`);
  t.equal(refused?.code, -32602, 'invalid params');
  t.match(refused?.message, /tasks\.maxTaskBytes/, 'the message names the setting');
  t.match(refused?.message, /65536/, 'and the limit');
  t.match(refused?.data, { path: 'params.message', limit: LIMIT });
  t.ok(accepted >= 3, 'the follow-ups within the limit were taken');

  const stored = await gw.gw.store.tasks.get('ws1', id);
  t.ok(Buffer.byteLength(JSON.stringify(stored)) < LIMIT + 16 * 1024, 'the stored record stays bounded by the limit');

  const streamed = await fetch(`${gw.url}/api/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 's', method: 'message/stream', params: blob(15, id) }),
  });
  const events = (await streamed.text())
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)));
  t.equal(events.length, 1, 'a streaming follow-up gets one event');
  t.equal(events[0]?.error?.code, -32602, 'refused the same way: nothing of the task streams');
  t.equal((await gw.gw.store.tasks.get('ws1', id))?.history.length, stored?.history.length, 'and nothing was stored');

  const done = await gw.rpc({ key, method: 'message/send', params: msgB('done', { taskId: id }) });
  t.equal(done.json.result?.status?.state, 'completed', 'a message that fits is still taken: the task goes on');
});

t.test("a new task's first message past tasks.maxTaskBytes is refused the same way, and no task is made", async (t) => {
  const gw = await startTestGateway({ config: { tasks: { maxTaskBytes: LIMIT } } });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const r = await gw.rpc({ key, method: 'message/send', params: blob(80) });
  t.equal(r.json.error?.code, -32602, JSON.stringify(r.json).slice(0, 300));
  t.match(r.json.error?.message, /tasks\.maxTaskBytes/);
  const listed = await gw.rpc({ key, method: 'tasks/list', params: {} });
  t.same(listed.json.result?.tasks ?? [], [], 'no task was stored');
});
