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
