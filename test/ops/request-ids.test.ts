// Request ids in task events: each event is stamped with the id of the call that caused it (the send that made the
// task, a follow-up, a cancel), for logs and the dashboard; no caller ever sees it in a result or a stream.
import t from 'tap';
import { msgB, startTestGateway } from '../support/gateway.js';
import { openSse } from '../support/sse.js';

const idsOf = (events: Array<{ requestId?: string }>) => [...new Set(events.map((e) => e.requestId))];

t.test('each call stamps the events it causes with its request id; callers never see it', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key({ trust: 'admin' });
  const events = (id: string) => gw.gw.store.events.after(`ws1/${id}`, 0);

  const first = await gw.rpc({
    method: 'message/send',
    key,
    params: msgB('one', { metadata: { agentId: 'converse' } }),
    headers: { 'X-Request-Id': 'call-one' },
  });
  const id = first.json.result.id;
  t.equal(first.json.result.status.state, 'input-required');
  t.same(idsOf(await events(id)), ['call-one'], 'the creating call stamps every event of its turn');

  const seen = (await events(id)).length;
  const second = await gw.rpc({ method: 'message/send', key, params: msgB('done', { taskId: id }), headers: { 'X-Request-Id': 'call-two' } });
  t.equal(second.json.result.status.state, 'completed');
  t.same(idsOf((await events(id)).slice(seen)), ['call-two'], 'the follow-up stamps the events of its turn');

  const slow = await gw.rpc({
    method: 'message/send',
    key,
    params: {
      message: { kind: 'message', role: 'user', messageId: 'm-slow', parts: [{ kind: 'data', data: { ms: 60_000, steps: 2 } }], metadata: { agentId: 'slow' } },
      configuration: { blocking: false },
    },
    headers: { 'X-Request-Id': 'call-three' },
  });
  const canceled = await gw.rpc({ method: 'tasks/cancel', key, params: { id: slow.json.result.id }, headers: { 'X-Request-Id': 'call-four' } });
  t.equal(canceled.json.result.status.state, 'canceled');
  const last = (await events(slow.json.result.id)).at(-1)!;
  t.match(last, { kind: 'status', status: { state: 'canceled' }, requestId: 'call-four' }, 'the cancel stamps the canceled status');

  for (const r of [first, second, slow, canceled]) t.notMatch(JSON.stringify(r.json), /call-(one|two|three|four)|requestId|request_id/, 'no result carries it');
  const sse = await openSse({ url: gw.url, key, method: 'tasks/resubscribe', params: { id }, headers: { 'Last-Event-ID': '0' } });
  const frames = await sse.all();
  t.ok(frames.length > 1, 'the replay has the events');
  t.notMatch(JSON.stringify(frames), /call-(one|two|three|four)|requestId|request_id/, 'no streamed event carries it');
});
