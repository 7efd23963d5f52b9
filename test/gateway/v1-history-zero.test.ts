// A2A 1.0 (3.2.4): `historyLength: 0` asks for no history, and the `history` field SHOULD then be omitted (proto-JSON
// leaves an empty list out too). 1.0 answers leave it out; the revisions keep their empty list.
import t from 'tap';
import { startTestGateway } from '../support/gateway.js';

t.test('historyLength 0: 1.0 answers have no history field; 0.3 keeps []', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const headers = { 'A2A-Version': '1.0' };
  const message = { messageId: 'h-1', role: 'ROLE_USER', parts: [{ text: 'x' }] };
  const sent = await gw.rpc({ method: 'SendMessage', params: { message, configuration: { historyLength: 0 } }, key, headers });
  const task = sent.json.result.task;
  t.notOk('history' in task, 'SendMessage');
  t.notOk('history' in (await gw.rpc({ method: 'GetTask', params: { id: task.id, historyLength: 0 }, key, headers })).json.result, 'GetTask');
  const listed = await gw.rpc({ method: 'ListTasks', params: { historyLength: 0 }, key, headers });
  t.notOk('history' in listed.json.result.tasks[0], 'ListTasks');
  t.equal(
    (await gw.rpc({ method: 'GetTask', params: { id: task.id, historyLength: 1 }, key, headers })).json.result.history.length,
    1,
    'historyLength 1: one message',
  );

  const old = await gw.rpc({ method: 'tasks/get', params: { id: task.id, historyLength: 0 }, key, headers: { 'A2A-Version': '0.3' } });
  t.same(old.json.result.history, [], '0.3: an empty list, as before');
});
