// Strings and keys the stores could not keep as sent (a lone UTF-16 surrogate, a `__proto__` key) are refused with
// -32602 naming the field, in every dialect, and nothing is stored. On Redis such a string was stored as U+FFFD: the
// task read back differed from the one answered, and two task ids differing only there named one task.
import t from 'tap';
import { msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { storedTasks } from '../support/tasks.js';

const prefix = testPrefix('unkept-text');
let gw: TestGateway;
let key: string;
t.before(async () => {
  gw = await startTestGateway({ config: { store: 'redis', redisUrl: REDIS_URL, redisPrefix: prefix } });
  key = (await gw.key()).key;
});
t.teardown(async () => {
  await gw.close();
  await cleanupPrefix(REDIS_URL, prefix);
});

const V1 = { 'A2A-Version': '1.0' };
const textA = (text: string) => ({ role: 'user', parts: [{ type: 'text', text }] });

t.test('a task id with a lone surrogate is refused; the id that differs only there stays a task of its own', async (t) => {
  const before = await storedTasks(gw);
  const bad = await gw.rpc({ key, method: 'tasks/send', params: { id: 'job-\ud800', message: textA('first') } });
  t.equal(bad.json.error?.code, -32602);
  t.equal(bad.json.error?.data?.path, 'params.id');
  t.match(bad.json.error?.message, /params\.id is not well-formed Unicode/);
  t.same(await storedTasks(gw), before, 'nothing stored');
  const other = await gw.rpc({ key, method: 'tasks/send', params: { id: 'job-\ufffd', message: textA('second') } });
  t.equal(other.json.result?.status.state, 'completed', 'a well-formed id is a new task, not a follow-up of another');
  t.equal(other.json.result?.id, 'job-\ufffd');
  const got = await gw.rpc({ key, method: 'tasks/get', params: { id: 'job-\udc00' } });
  t.equal(got.json.error?.code, -32602, 'a read by such an id is refused too, never answered with another task');
});

t.test('text, metadata keys and values, context ids: each named by its path, in every dialect', async (t) => {
  const before = await storedTasks(gw);
  const cases: Array<{ method: string; params: unknown; path: string; headers?: Record<string, string> }> = [
    { method: 'message/send', params: msgB('a\ud800b'), path: 'params.message.parts.0.text' },
    { method: 'message/send', params: msgB('x', { contextId: '\udfff' }), path: 'params.message.contextId' },
    { method: 'message/send', params: { ...msgB('x'), metadata: { 'k\udbff': 1 } }, path: 'params.metadata.k\udbff' },
    { method: 'tasks/send', params: { message: textA('x'), metadata: { note: ['ok', 'tail\ud83d'] } }, path: 'params.metadata.note.1' },
    {
      method: 'SendMessage',
      params: { message: { role: 'ROLE_USER', messageId: 'm1', parts: [{ text: 'hi \udead' }] } },
      path: 'params.message.parts.0.text',
      headers: V1,
    },
  ];
  for (const c of cases) {
    const r = await gw.rpc({ key, method: c.method, params: c.params, ...(c.headers && { headers: c.headers }) });
    t.equal(r.json.error?.code, -32602, `${c.method} ${c.path}: -32602`);
    const path = Array.isArray(r.json.error?.data) ? r.json.error.data[0].metadata.path : r.json.error?.data?.path;
    t.equal(path, c.path, `${c.method}: names ${c.path}`);
  }
  t.same(await storedTasks(gw), before, 'nothing stored');
});

t.test('a "__proto__" key is refused naming it, not silently dropped', async (t) => {
  const before = await storedTasks(gw);
  // JSON.parse keeps "__proto__" as an own key; the param schemas would drop it
  const body = (params: string) => `{"jsonrpc":"2.0","id":1,"method":"message/send","params":${params}}`;
  const data = await gw.rpc({
    key,
    body: body('{"message":{"role":"user","messageId":"m1","parts":[{"kind":"data","data":{"__proto__":{"x":1},"y":2}}]}}'),
  });
  t.equal(data.json.error?.code, -32602);
  t.equal(data.json.error?.data?.path, 'params.message.parts.0.data.__proto__');
  const meta = await gw.rpc({
    key,
    body: body('{"metadata":{"__proto__":{"agentId":"converse"}},"message":{"role":"user","messageId":"m2","parts":[{"kind":"text","text":"hi"}]}}'),
  });
  t.equal(meta.json.error?.data?.path, 'params.metadata.__proto__');
  t.same(await storedTasks(gw), before, 'nothing stored');
});

t.test('well-formed text outside the BMP (an escaped surrogate pair) is kept as sent', async (t) => {
  const text = 'smile \ud83d\ude00 and \u{10ffff}';
  const sent = await gw.rpc({
    key,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: msgB(text) }).replace('\ud83d\ude00', '\\ud83d\\ude00'),
  });
  t.equal(sent.json.result?.status.state, 'completed');
  const got = await gw.rpc({ key, method: 'tasks/get', params: { id: sent.json.result.id } });
  t.equal(got.json.result.history[0].parts[0].text, text, 'read back from Redis unchanged');
  t.equal(got.json.result.artifacts[0].parts[0].text, text);
});
