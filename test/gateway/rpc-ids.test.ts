// Request ids the answer cannot echo: a numeric id JSON.parse reads as Infinity (`1e400`) is refused with -32600
// naming `id`, alone and inside a batch, and nothing runs; a large finite id is echoed as it was sent.
import t from 'tap';
import { startTestGateway } from '../support/gateway.js';
import { storedTasks } from '../support/tasks.js';

t.test('a non-finite numeric id is -32600 naming id, and the call does not run', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const before = await storedTasks(gw);
  const send = (id: string) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tasks/send","params":{"id":"inf-${id.length}","message":{"role":"user","parts":[{"type":"text","text":"hi"}]}}}`;

  for (const id of ['1e400', '-1e400']) {
    const r = await gw.rpc({ key, body: send(id) });
    t.equal(r.json.error?.code, -32600, `${id}: -32600`);
    t.equal(r.json.error?.data?.field, 'id', `${id}: names id`);
    t.match(r.json.error?.message, /\bid\b/);
    t.equal(r.json.id, null);
  }
  const batch = await gw.rpc({ key, body: `[${send('1e400')},{"jsonrpc":"2.0","id":7,"method":"agents/list","params":{}}]` });
  t.equal(batch.json[0].error?.code, -32600, 'in a batch, the element is refused');
  t.equal(batch.json[0].error?.data?.field, 'id');
  t.equal(batch.json[1].id, 7, 'and the others run');
  t.ok(batch.json[1].result);
  t.same(await storedTasks(gw), before, 'no task was stored');

  const big = await gw.rpc({ key, body: '{"jsonrpc":"2.0","id":1e300,"method":"agents/list","params":{}}' });
  t.equal(big.json.id, 1e300, 'a large finite id is echoed');
  t.ok(big.json.result);
});
