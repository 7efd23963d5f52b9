// The 1.0 error shape is chosen per call the same way everywhere: a 1.0 method, or any call under `A2A-Version: 1.0`,
// reads its error as 1.0's (data a list of ErrorInfo), including the refusal of a streaming method inside a batch.
import t from 'tap';
import { startTestGateway } from '../support/gateway.js';

t.test('a batch under A2A-Version 1.0: a streaming 0.3 method refused in it reads in 1.0 shape like the rest', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const message = { kind: 'message', messageId: 'b-1', role: 'user', parts: [{ kind: 'text', text: 'x' }] };
  const body = JSON.stringify([
    { jsonrpc: '2.0', id: 1, method: 'message/stream', params: { message } },
    { jsonrpc: '2.0', id: 2, method: 'NoSuchMethod', params: {} },
    { jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { id: 'none' } },
  ]);
  const r = await gw.rpc({ body, key, headers: { 'A2A-Version': '1.0' } });
  t.equal(r.status, 200);
  const [stream, unknown, missing] = r.json;
  t.equal(unknown.error.code, -32601);
  t.ok(Array.isArray(unknown.error.data), 'an unknown method: 1.0 shape (the header)');
  t.ok(Array.isArray(missing.error.data), 'a 0.x method under the header: 1.0 shape');
  t.equal(stream.error.code, -32600);
  t.ok(Array.isArray(stream.error.data), 'the streaming method refused in a batch: 1.0 shape too');
  t.equal(stream.error.data[0]?.reason, 'INVALID_REQUEST');

  const plain = await gw.rpc({ body, key });
  t.notOk(Array.isArray(plain.json[0].error.data), 'without the header a 0.3 method reads in 0.3 shape');
  t.equal(plain.json[0].error.data.reason, 'INVALID_REQUEST');
});

t.test('ListTasks: a field of the wrong kind is refused saying what it takes, not "Invalid input"', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const list = (params: unknown) => gw.rpc({ method: 'ListTasks', params, key, headers: { 'A2A-Version': '1.0' } });
  for (const [params, path, says] of [
    [{ status: 3 }, 'params.status', /TASK_STATE_COMPLETED/],
    [{ status: 'completed' }, 'params.status', /TASK_STATE_COMPLETED/],
    [{ pageToken: 2 }, 'params.pageToken', /page token/],
    [{ contextId: 5 }, 'params.contextId', /context id/],
  ] as const) {
    const r = await list(params);
    t.equal(r.json.error?.code, -32602, JSON.stringify(params));
    t.equal(r.json.error?.data[0].metadata.path, path);
    t.match(r.json.error?.message, says, `${JSON.stringify(params)}: says what it takes`);
  }
  const long = await list({ contextId: 'x'.repeat(300) });
  t.match(long.json.error?.message, /at most 256 characters/, "a string's own bound still speaks");
});
