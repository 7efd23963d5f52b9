// A2A 1.0 (3.6.1): a client MAY name its version as the `A2A-Version` request parameter instead of the header. The
// endpoint reads it from the query when no header is sent: the version is then checked and answered as the header's.
import t from 'tap';
import { startTestGateway } from '../support/gateway.js';

t.test('?A2A-Version= on the endpoint reads as the header', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const get = (path: string, headers: Record<string, string> = {}) => gw.rpc({ method: 'tasks/get', params: { id: 'nope' }, key, path, headers });

  const v1 = await get('/api/a2a?A2A-Version=1.0');
  t.equal(v1.json.error?.code, -32001);
  t.ok(Array.isArray(v1.json.error?.data), '1.0 named in the query: 1.0 error shape');
  const perAgent = await get('/api/a2a/agents/echo?A2A-Version=1.0');
  t.ok(Array.isArray(perAgent.json.error?.data), 'on a per-agent path too');

  const unknown = await get('/api/a2a?A2A-Version=7.0');
  t.equal(unknown.json.error?.code, -32009, 'a version the gateway does not speak is refused, as in the header');

  const plain = await get('/api/a2a?other=1');
  t.equal(plain.json.error?.data?.reason, 'TASK_NOT_FOUND', 'no version named: 0.3 shape');
  const header = await get('/api/a2a?A2A-Version=1.0', { 'A2A-Version': '0.3' });
  t.equal(header.json.error?.data?.reason, 'TASK_NOT_FOUND', 'the header wins over the parameter');

  const sent = { message: { kind: 'message', role: 'user', messageId: 'q-1', parts: [{ kind: 'text', text: 'x' }] } };
  t.equal((await gw.rpc({ method: 'message/send', params: sent, key })).json.result?.status.state, 'completed');
  const listed = await gw.rpc({ method: 'tasks/list', params: { status: 'TASK_STATE_WORKING' }, key, path: '/api/a2a?A2A-Version=1.0' });
  t.same(listed.json.result?.tasks, [], "tasks/list reads 1.0's status filter under the parameter");
});

// `A2A-Version: 00.3` (or 0.03) was accepted as 0.3 but picked no dialect for the shared names (its text did not start
// with "0.3"), so tasks/get answered a rev A task in rev A's shape where `0.3` answers it in 0.3's.
t.test('a version written with leading zeros picks the dialect it is accepted as', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const sent = await gw.rpc({ method: 'tasks/send', params: { id: 'rev-a-task', message: { role: 'user', parts: [{ type: 'text', text: 'x' }] } }, key });
  t.equal(sent.json.result?.id, 'rev-a-task');
  for (const version of ['0.3', '00.3', '0.03', '0.3.0', '000.002']) {
    const got = await gw.rpc({ method: 'tasks/get', params: { id: 'rev-a-task' }, key, headers: { 'A2A-Version': version } });
    t.equal(got.json.result?.kind, 'task', `A2A-Version ${version}: answered in 0.3's shape`);
  }
  for (const version of ['0.1', '00.1', '0.01.0']) {
    const got = await gw.rpc({ method: 'tasks/get', params: { id: 'rev-a-task' }, key, headers: { 'A2A-Version': version } });
    t.equal(got.json.result?.kind, undefined, `A2A-Version ${version}: answered in rev A's shape`);
    t.ok(got.json.result?.sessionId, "with rev A's sessionId");
  }
});
