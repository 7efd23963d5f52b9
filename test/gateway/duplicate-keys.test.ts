// A key given twice in one object of a request (`"method":"tasks/get","method":"message/send"`) is refused with
// -32600 naming it, and nothing runs: JSON.parse kept the last, so a proxy or firewall in front of the gateway that
// reads the first saw another call than the one run. Every dialect; in a batch, only the call holding it.
import t from 'tap';
import { startTestGateway } from '../support/gateway.js';
import { storedTasks } from '../support/tasks.js';

const text = (s: string) => `{"message":{"kind":"message","role":"user","messageId":"m-${Math.random()}","parts":[{"kind":"text","text":"${s}"}]}}`;

t.test('a key given twice is -32600 naming its path; nothing runs or is stored', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const before = await storedTasks(gw);
  const cases = [
    { body: `{"jsonrpc":"2.0","id":7,"method":"tasks/get","method":"message/send","params":${text('a')}}`, field: 'method', id: 7 },
    {
      body: `{"jsonrpc":"2.0","id":8,"method":"message/send","params":{"message":{"kind":"message","role":"agent","role":"user","messageId":"m-x","parts":[{"kind":"text","text":"b"}]}}}`,
      field: 'params.message.role',
      id: 8,
    },
    // the same key however it is escaped
    {
      body: `{"jsonrpc":"2.0","id":9,"method":"message/send","params":${text('c').replace('"role":"user"', '"role":"user","\\u0072ole":"agent"')}}`,
      field: 'params.message.role',
      id: 9,
    },
    { body: `{"jsonrpc":"2.0","id":"a","id":"b","method":"message/send","params":${text('d')}}`, field: 'id', id: null },
    {
      body: `{"jsonrpc":"2.0","id":10,"method":"message/send","params":${text('e').replace('"parts":[', '"parts":[{"kind":"text","text":"x","text":"y"},')}}`,
      field: 'params.message.parts.0.text',
      id: 10,
    },
  ];
  for (const c of cases) {
    const r = await gw.rpc({ key, body: c.body });
    t.equal(r.json.error?.code, -32600, `${c.field}: -32600`);
    t.equal(r.json.error?.data?.field, c.field, `names ${c.field}`);
    t.match(r.json.error?.message, /is given twice/);
    t.equal(r.json.id, c.id, `answered with id ${String(c.id)}`);
  }
  t.same(await storedTasks(gw), before, 'nothing stored');

  const v1 = await gw.rpc({
    key,
    headers: { 'A2A-Version': '1.0' },
    body: '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"m1","messageId":"m2","parts":[{"text":"x"}]}}}',
  });
  t.equal(v1.json.error?.code, -32600, '1.0: -32600');
  t.equal(v1.json.error?.data?.[0]?.metadata?.field, 'params.message.messageId', "1.0: named in the ErrorInfo's metadata");

  const batch = await gw.rpc({
    key,
    body: `[{"jsonrpc":"2.0","id":1,"method":"agents/list"},{"jsonrpc":"2.0","id":2,"method":"agents/list","params":{"a":1,"a":2}}]`,
  });
  t.ok(batch.json[0]?.result, 'in a batch, the other call runs');
  t.equal(batch.json[1]?.error?.code, -32600, 'the call holding the key twice is refused');
  t.equal(batch.json[1]?.error?.data?.field, 'params.a');

  const long = 'k'.repeat(300_000);
  const big = await gw.rpc({ key, body: `{"jsonrpc":"2.0","id":4,"method":"agents/list","params":{"${long}":1,"${long}":2}}` });
  t.equal(big.json.error?.code, -32600, 'a long key given twice');
  t.ok(JSON.stringify(big.json).length < 2_000, 'is named cut to a bound, not repeated whole');

  const fine = await gw.rpc({
    key,
    body: `{"jsonrpc":"2.0","id":3,"method":"message/send","params":${text('f').replace('"parts":[', '"parts":[{"kind":"text","text":"x"},')}}`,
  });
  t.equal(fine.json.result?.status?.state, 'completed', 'the same key in two objects is fine');
});
