// A number past a double's range (`1e400`) in params is refused with -32602 naming its path, in every dialect, and
// nothing is stored or run. JSON.parse reads it as Infinity: the echo agent was handed Infinity while the answer,
// tasks/get and every webhook read null, so the caller's value was changed without a word. Large finite numbers pass.
import t from 'tap';
import { startTestGateway } from '../support/gateway.js';
import { storedTasks } from '../support/tasks.js';

const envelope = (method: string, params: string) => `{"jsonrpc":"2.0","id":1,"method":"${method}","params":${params}}`;
const messageB = (fields: string) => `{"message":{"kind":"message","role":"user","messageId":"m-${Math.random()}",${fields}}}`;

t.test('1e400 in a data part, metadata or a list is -32602 naming the path; nothing is stored', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const before = await storedTasks(gw);
  const cases = [
    { method: 'message/send', params: messageB('"parts":[{"kind":"data","data":{"n":1e400}}]'), path: 'params.message.parts.0.data.n' },
    { method: 'message/send', params: messageB('"parts":[{"kind":"data","data":{"m":[1,-1e999]}}]'), path: 'params.message.parts.0.data.m.1' },
    { method: 'message/send', params: messageB('"parts":[{"kind":"text","text":"x"}],"metadata":{"x":1e400}'), path: 'params.message.metadata.x' },
    { method: 'tasks/send', params: '{"message":{"role":"user","parts":[{"type":"text","text":"x"}]},"metadata":{"y":-1e400}}', path: 'params.metadata.y' },
    {
      method: 'SendMessage',
      params: '{"message":{"role":"ROLE_USER","messageId":"m1","parts":[{"data":{"data":{"z":1e400}}}]}}',
      path: 'params.message.parts.0.data.data.z',
      headers: { 'A2A-Version': '1.0' },
    },
  ];
  for (const c of cases) {
    const r = await gw.rpc({ key, body: envelope(c.method, c.params), ...(c.headers && { headers: c.headers }) });
    t.equal(r.json.error?.code, -32602, `${c.method} ${c.path}: -32602`);
    const path = Array.isArray(r.json.error?.data) ? r.json.error.data[0].metadata.path : r.json.error?.data?.path;
    t.equal(path, c.path, `${c.method}: names ${c.path}`);
    t.match(r.json.error?.message, /past the range of a double/, 'and says why');
  }
  t.same(await storedTasks(gw), before, 'nothing stored');

  const big = await gw.rpc({ key, body: envelope('message/send', messageB('"parts":[{"kind":"data","data":{"n":1e308,"m":-1.5e300}}]')) });
  t.same(big.json.result?.artifacts?.[0]?.parts?.[0]?.data, { n: 1e308, m: -1.5e300 }, 'large finite numbers are taken and echoed as sent');
});

// An integer written past ±(2^53 − 1) was rounded by JSON.parse: 12345678901234567890 reached the agent and came back
// as 12345678901234567000. The same rule as a numeric request id: -32602 naming the path, nothing stored or run.
t.test('an integer past ±(2^53 − 1) in params is -32602 naming the path; nothing is stored', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const before = await storedTasks(gw);
  const cases = [
    { method: 'message/send', params: messageB('"parts":[{"kind":"data","data":{"n":12345678901234567890}}]'), path: 'params.message.parts.0.data.n' },
    { method: 'message/send', params: messageB('"parts":[{"kind":"data","data":{"m":[1, -9007199254740992]}}]'), path: 'params.message.parts.0.data.m.1' },
    { method: 'message/send', params: messageB('"parts":[{"kind":"text","text":"x"}],"metadata":{"x":9007199254740993}'), path: 'params.message.metadata.x' },
    {
      method: 'tasks/send',
      params: '{"message":{"role":"user","parts":[{"type":"text","text":"x"}]},"metadata":{"y":123456789012345678901234567890}}',
      path: 'params.metadata.y',
    },
    {
      method: 'SendMessage',
      params: '{"message":{"role":"ROLE_USER","messageId":"m1","parts":[{"data":{"data":{"z":18446744073709551615}}}]}}',
      path: 'params.message.parts.0.data.data.z',
      headers: { 'A2A-Version': '1.0' },
    },
  ];
  for (const c of cases) {
    const r = await gw.rpc({ key, body: envelope(c.method, c.params), ...(c.headers && { headers: c.headers }) });
    t.equal(r.json.error?.code, -32602, `${c.method} ${c.path}: -32602`);
    const path = Array.isArray(r.json.error?.data) ? r.json.error.data[0].metadata.path : r.json.error?.data?.path;
    t.equal(path, c.path, `${c.method}: names ${c.path}`);
    t.match(r.json.error?.message, /integer past ±9007199254740991 \(2\^53 − 1\).*send it as a string/, 'and says why and what to do');
  }
  const v1 = await gw.rpc({ key, body: envelope('SendMessage', cases[4]!.params), headers: { 'A2A-Version': '1.0' } });
  t.match(v1.json.error?.data?.[1]?.fieldViolations, [{ field: 'message.parts[0].data.data.z' }], "1.0's BadRequest names the field");

  const batch = await gw.rpc({
    key,
    body: `[{"jsonrpc":"2.0","id":1,"method":"message/send","params":${messageB('"parts":[{"kind":"data","data":{"n":12345678901234567890}}]')}},{"jsonrpc":"2.0","id":2,"method":"agents/list"}]`,
  });
  t.equal(batch.json[0]?.error?.code, -32602, 'in a batch, the call holding it is refused');
  t.equal(batch.json[0]?.error?.data?.path, 'params.message.parts.0.data.n', 'naming the path within its own params');
  t.ok(batch.json[1]?.result, 'the other call runs');
  t.same(await storedTasks(gw), before, 'nothing stored');

  const kept = await gw.rpc({
    key,
    body: envelope(
      'message/send',
      messageB('"parts":[{"kind":"data","data":{"max":9007199254740991,"min":-9007199254740991,"exp":1e20,"frac":-0.000125,"text":"12345678901234567890"}}]'),
    ),
  });
  t.same(
    kept.json.result?.artifacts?.[0]?.parts?.[0]?.data,
    { max: 9007199254740991, min: -9007199254740991, exp: 1e20, frac: -0.000125, text: '12345678901234567890' },
    'integers within the bound, exponent and fraction forms, and digits in a string are taken',
  );
});

// The path these refusals name holds the caller's keys: a 500,000-character key holding 1e400 made an answer (and a
// log line) of a megabyte. A refused integer nested past the depth limit is refused for its depth, as parseParams does.
t.test('the path a refusal names is cut to a bound; depth is reported before a deep integer', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const long = 'k'.repeat(500_000);
  for (const value of ['1e400', '12345678901234567890']) {
    const r = await gw.rpc({ key, body: envelope('message/send', messageB(`"parts":[{"kind":"data","data":{"${long}":${value}}}]`)) });
    t.equal(r.json.error?.code, -32602, `${value}: -32602`);
    t.ok(JSON.stringify(r.json).length < 2_000, `${value}: the answer stays small (${JSON.stringify(r.json).length} characters)`);
    t.match(r.json.error?.data?.path, /^params\.message\.parts\.0\.data\.kkk+…$/, `${value}: the path is cut, and says so`);
  }
  const deep = `{"a":${'{"b":'.repeat(100)}12345678901234567890${'}'.repeat(100)}}`;
  const r = await gw.rpc({ key, body: envelope('message/send', messageB(`"parts":[{"kind":"data","data":${deep}}]`)) });
  t.match(r.json.error?.message, /nests deeper than 64 levels/, 'a deep integer is refused for its depth');
  t.equal(r.json.error?.data?.limit, 64);
});
