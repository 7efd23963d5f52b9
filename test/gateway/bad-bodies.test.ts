// Bad requests change nothing: after each refused send, the store holds exactly what it held, and the id used is unknown.
import t, { type Test } from 'tap';
import { msgA, msgB, startTestGateway, type RpcResult, type TestGateway } from '../support/gateway.js';
import { storedTasks } from '../support/tasks.js';

let gw: TestGateway;
let key: string;
let before: string[];

t.before(async () => {
  // the push configs below point at 127.0.0.1, which the SSRF guard refuses unless the allowlist admits it
  gw = await startTestGateway({ config: { push: { allowlist: ['127.0.0.1'] } } });
  key = (await gw.key()).key;
  // something to be left alone: a completed task and one waiting for input
  await gw.rpc({ method: 'tasks/send', key, params: msgA('good', { id: 'good-1' }) });
  const conv = await gw.rpc({ method: 'tasks/send', key, params: msgA('first', { id: 'conv-1', metadata: { agentId: 'converse' } }) });
  if (conv.json.result.status.state !== 'input-required') throw new Error('setup: converse did not wait for input');
  before = await storedTasks(gw);
});
t.teardown(() => gw.close());

const sendBody = (id: string, message: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id: `r-${id}`, method: 'tasks/send', params: { id, message, ...extra } });
const text = (s: string) => ({ role: 'user', parts: [{ type: 'text', text: s }] });

/** The store is as it was, the rev A id is unknown to tasks/get, and no push config was kept for it. */
async function nothingStored(t: Test, id: string) {
  t.same(await storedTasks(gw), before, 'the store holds exactly the tasks it held');
  const g = await gw.rpc({ method: 'tasks/get', key, params: { id } });
  t.equal(g.json.error?.code, -32001, `tasks/get ${id}: -32001`);
  t.same(await gw.gw.store.pushConfigs.list(`ws1/${id}`), [], 'no push config kept');
}

async function postChunked(body: string, k: string): Promise<RpcResult> {
  const bytes = new TextEncoder().encode(body);
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < bytes.length; i += 64 * 1024) c.enqueue(bytes.subarray(i, i + 64 * 1024));
      c.close();
    },
  });
  const init: RequestInit & { duplex: 'half' } = {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${k}` },
    body: stream,
    duplex: 'half',
  };
  const res = await fetch(`${gw.url}/api/a2a`, init);
  const raw = await res.text();
  return { status: res.status, headers: res.headers, json: raw ? JSON.parse(raw) : undefined };
}

const HUGE = 'x'.repeat(1024 * 1024 + 10);

const cases: Array<{ name: string; id: string; code: number; status?: number; send: (id: string) => Promise<RpcResult> }> = [
  { name: 'not JSON', id: 'bad-notjson', code: -32700, send: (id) => gw.rpc({ key, body: sendBody(id, text('x')).slice(0, -1) }) },
  {
    name: 'wrong types (text a number)',
    id: 'bad-types',
    code: -32602,
    send: (id) => gw.rpc({ key, body: sendBody(id, { role: 'user', parts: [{ type: 'text', text: 5 }] }) }),
  },
  {
    name: 'wrong types (sessionId an object)',
    id: 'bad-session',
    code: -32602,
    send: (id) => gw.rpc({ key, body: sendBody(id, text('x'), { sessionId: { s: 1 } }) }),
  },
  { name: 'huge, with Content-Length', id: 'bad-huge', code: -32600, status: 413, send: (id) => gw.rpc({ key, body: sendBody(id, text(HUGE)) }) },
  { name: 'huge, chunked', id: 'bad-huge-chunked', code: -32600, status: 413, send: (id) => postChunked(sendBody(id, text(HUGE)), key) },
  { name: 'empty parts', id: 'bad-empty-parts', code: -32602, send: (id) => gw.rpc({ key, body: sendBody(id, { role: 'user', parts: [] }) }) },
  {
    name: 'unknown part type',
    id: 'bad-part-type',
    code: -32602,
    send: (id) => gw.rpc({ key, body: sendBody(id, { role: 'user', parts: [{ type: 'text', text: 'ok' }, { type: 'hologram' }] }) }),
  },
  { name: 'missing role', id: 'bad-no-role', code: -32602, send: (id) => gw.rpc({ key, body: sendBody(id, { parts: [{ type: 'text', text: 'x' }] }) }) },
  {
    name: 'role agent',
    id: 'bad-role-agent',
    code: -32602,
    send: (id) => gw.rpc({ key, body: sendBody(id, { role: 'agent', parts: [{ type: 'text', text: 'x' }] }) }),
  },
  { name: 'negative historyLength', id: 'bad-history', code: -32602, send: (id) => gw.rpc({ key, body: sendBody(id, text('x'), { historyLength: -1 }) }) },
  {
    name: 'an invalid inline push config',
    id: 'bad-push',
    code: -32602,
    send: (id) => gw.rpc({ key, body: sendBody(id, text('x'), { pushNotification: { token: 'no url' } }) }),
  },
  { name: 'jsonrpc not 2.0', id: 'bad-version', code: -32600, send: (id) => gw.rpc({ key, body: sendBody(id, text('x')).replace('"2.0"', '"1.0"') }) },
  {
    name: 'an unknown agent (with a valid push config)',
    id: 'bad-agent',
    code: -32005,
    send: (id) => gw.rpc({ key, body: sendBody(id, text('x'), { metadata: { agentId: 'nope' }, pushNotification: { url: 'http://127.0.0.1:9/h' } }) }),
  },
  { name: 'no key', id: 'bad-nokey', code: -32003, status: 401, send: (id) => gw.rpc({ body: sendBody(id, text('x')) }) },
  {
    name: 'a key without tasks.create',
    id: 'bad-scope',
    code: -32006,
    status: 403,
    send: async (id) => gw.rpc({ key: (await gw.key({ trust: 'read_only' })).key, body: sendBody(id, text('x')) }),
  },
  {
    name: 'a rate-limited key',
    id: 'bad-limited',
    code: -32004,
    status: 429,
    send: async (id) => {
      const k = (await gw.key({ limits: { perMinute: 1, perHour: 100 } })).key;
      await gw.rpc({ key: k, method: 'tasks/get', params: { id: 'good-1' } });
      return gw.rpc({ key: k, body: sendBody(id, text('x')) });
    },
  },
];

t.test('a refused tasks/send stores nothing', async (t) => {
  for (const c of cases) {
    t.test(c.name, async (t) => {
      const r = await c.send(c.id);
      t.equal(r.status, c.status ?? 200, `HTTP ${c.status ?? 200}`);
      t.equal(r.json?.error?.code, c.code, `refused with ${c.code}`);
      await nothingStored(t, c.id);
    });
  }
});

t.test('a batch of bad sends stores nothing, and each is answered', async (t) => {
  const body = `[${sendBody('bad-b1', { role: 'user', parts: [] })}, ${sendBody('bad-b2', { role: 'user', parts: [{ kind: 'nope' }] })}, ${sendBody('bad-b3', { parts: [{ type: 'text', text: 'x' }] })}]`;
  const r = await gw.rpc({ key, body });
  t.same(
    r.json.map((e: { id: string; error: { code: number } }) => [e.id, e.error.code]),
    [
      ['r-bad-b1', -32602],
      ['r-bad-b2', -32602],
      ['r-bad-b3', -32602],
    ],
  );
  for (const id of ['bad-b1', 'bad-b2', 'bad-b3']) await nothingStored(t, id);
});

t.test('a refused rev B message/send stores nothing', async (t) => {
  const bad = [
    { message: { kind: 'message', role: 'user', messageId: 'm1', parts: [] } },
    { message: { kind: 'message', role: 'user', messageId: 'm2', parts: [{ kind: 'image' }] } },
    { message: { kind: 'message', messageId: 'm3', parts: [{ kind: 'text', text: 'x' }] } },
    { ...msgB('x'), configuration: { blocking: 'yes' } },
    { ...msgB('x'), configuration: { pushNotificationConfig: { token: 'no url' } } },
  ];
  for (const params of bad) {
    const r = await gw.rpc({ method: 'message/send', key, params });
    t.equal(r.json.error?.code, -32602);
  }
  t.same(await storedTasks(gw), before, 'the store holds exactly the tasks it held');
});

t.test('a refused follow-up leaves the waiting task as it was', async (t) => {
  const followUps: Array<[string, () => Promise<RpcResult>]> = [
    ['empty parts', () => gw.rpc({ key, body: sendBody('conv-1', { role: 'user', parts: [] }) })],
    ['unknown part type', () => gw.rpc({ key, body: sendBody('conv-1', { role: 'user', parts: [{ type: 'smell' }] }) })],
    ['missing role', () => gw.rpc({ key, body: sendBody('conv-1', { parts: [{ type: 'text', text: 'x' }] }) })],
    ['not JSON', () => gw.rpc({ key, body: sendBody('conv-1', text('done')).slice(0, -2) })],
    ['huge', () => gw.rpc({ key, body: sendBody('conv-1', text(HUGE)) })],
    [
      'rev B, wrong types',
      () => gw.rpc({ method: 'message/send', key, params: { message: { role: 'user', taskId: 'conv-1', parts: [{ kind: 'text', text: ['done'] }] } } }),
    ],
  ];
  for (const [name, send] of followUps) {
    const r = await send();
    t.ok(r.json?.error, `${name}: refused`);
    t.same(await storedTasks(gw), before, `${name}: nothing changed`);
  }
  const g = await gw.rpc({ method: 'tasks/get', key, params: { id: 'conv-1' } });
  t.equal(g.json.result.status.state, 'input-required', 'still waiting for input');
  t.equal(g.json.result.history.length, 2, 'no refused message joined the history');

  const done = await gw.rpc({ method: 'tasks/send', key, params: msgA('done', { id: 'conv-1' }) });
  t.equal(done.json.result.status.state, 'completed', 'a good follow-up still continues it');
  t.same(done.json.result.artifacts[0].parts[1].data.texts, ['first', 'done'], 'the agent saw only the good turns');
});
