// Request ids the answer cannot echo: a numeric id JSON.parse reads as Infinity (`1e400`) is refused with -32600
// naming `id`, alone and inside a batch, and nothing runs, as is an integer id past 2^53 − 1 (JSON.parse rounds it, so
// the answer would carry another id); an id within the bound is echoed as it was sent. A string id past
// 256 characters, which every answer and stream event would repeat, is refused the same way.
import t from 'tap';
import { msgB, startTestGateway } from '../support/gateway.js';
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

  for (const id of [9007199254740991, -9007199254740991, 1.5]) {
    const ok = await gw.rpc({ key, body: `{"jsonrpc":"2.0","id":${id},"method":"agents/list","params":{}}` });
    t.equal(ok.json.id, id, `${id} is echoed as sent`);
    t.ok(ok.json.result);
  }
});

t.test('an integer id past 2^53 − 1 is -32600 naming id: it would be answered rounded, two of a batch as one', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const before = await storedTasks(gw);
  const send = (id: string) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tasks/send","params":{"id":"big-${id}","message":{"role":"user","parts":[{"type":"text","text":"hi"}]}}}`;
  for (const id of ['9007199254740993', '-9007199254740993', '123456789012345678901234567890', '1e300']) {
    const r = await gw.rpc({ key, body: send(id) });
    t.equal(r.json.error?.code, -32600, `${id}: -32600`);
    t.equal(r.json.error?.data?.field, 'id', `${id}: names id`);
    t.match(r.json.error?.message, /2\^53/, 'and the bound');
    t.equal(r.json.id, null, 'answered with id null, not a rounded id');
  }
  const batch = await gw.rpc({
    key,
    body: `[${send('9007199254740993')},${send('9007199254740992')},{"jsonrpc":"2.0","id":7,"method":"agents/list","params":{}}]`,
  });
  t.same(
    batch.json.map((a: { id: unknown; error?: { data?: { field?: string } } }) => [a.id, a.error?.data?.field]),
    [
      [null, 'id'],
      [null, 'id'],
      [7, undefined],
    ],
    'neither of two ids that round to one is answered as the other; the rest of the batch runs',
  );
  t.same(await storedTasks(gw), before, 'no task was stored');
});

t.test('a string id past 256 characters is -32600 naming id and the limit; nothing runs, no stream opens', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const made = await gw.rpc({ key, method: 'message/send', params: msgB('a task') });
  const taskId: string = made.json.result.id;
  const before = await storedTasks(gw);
  const post = (id: string, method: string, params: unknown) =>
    fetch(`${gw.url}/api/a2a`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}`, 'Last-Event-ID': '0' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    });

  const huge = 'i'.repeat(900_000);
  for (const [id, method, params] of [
    [huge, 'tasks/resubscribe', { id: taskId }],
    ['x'.repeat(257), 'message/send', msgB('not run')],
    ['x'.repeat(257), 'tasks/get', { id: taskId }],
  ] as const) {
    const res = await post(id, method, params);
    t.equal(res.headers.get('content-type'), 'application/json', `${method}: a JSON answer, no stream`);
    const text = await res.text();
    t.ok(text.length < 1000, `${method} with an id of ${id.length}: a small answer (${text.length} bytes), the id not repeated`);
    const body = JSON.parse(text);
    t.equal(body.error?.code, -32600, `${method}: -32600`);
    t.same(body.error?.data, { reason: 'INVALID_REQUEST', field: 'id', limit: 256 }, `${method}: names id and the limit`);
    t.equal(body.id, null);
  }
  t.same(await storedTasks(gw), before, 'the send did not run');

  const fits = 'y'.repeat(256);
  const stream = await post(fits, 'tasks/resubscribe', { id: taskId });
  t.equal(stream.headers.get('content-type'), 'text/event-stream', 'an id of 256 characters streams');
  const events = (await stream.text()).split('\n').filter((l) => l.startsWith('data: '));
  t.ok(events.length > 0);
  t.ok(
    events.every((l) => JSON.parse(l.slice(6)).id === fits),
    'and every event carries it',
  );
});
