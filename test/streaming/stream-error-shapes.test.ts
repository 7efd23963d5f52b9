// An error a stream ends with reads in the same shape as the call's errors before the stream opened: 1.0's (codes,
// ErrorInfo list) for a 1.0 method or under `A2A-Version: 1.0`, 0.3's otherwise, whatever dialect the task was made in
// and whether it is raised before the first event or after many.
import t, { type Test } from 'tap';
import { slowB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { openSse, type SseClient, type SseFrame } from '../support/sse.js';

const V1 = { 'A2A-Version': '1.0' };
const slowV1 = () => ({
  message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ data: { ms: 120_000, steps: 120, mode: 'sleep' } }], metadata: { agentId: 'slow' } },
});

let gw: TestGateway;
const held: SseClient[] = [];
t.before(async () => {
  gw = await startTestGateway({ config: { streaming: { keyCheckMs: 50 } } });
});
t.teardown(async () => {
  for (const s of held) s.close();
  await gw.close();
});

const open = async (key: string, method: string, params: unknown, headers: Record<string, string> = {}) => {
  const s = await openSse({ url: gw.url, key, method, params, headers });
  held.push(s);
  return s;
};
const firstData = async (s: SseClient): Promise<SseFrame> => {
  for (;;) {
    const f = await s.next();
    if (!f || f.data) return f!;
  }
};
/** the stream's last frame, once the server ended it */
const endOf = async (s: SseClient) => (await s.all()).filter((f) => f.data).at(-1)?.data;

/** A stream of a long task, open on its first event, then the key revoked: the stream ends with an error. */
async function revokedMidStream(t: Test, o: { method: string; params: unknown; headers?: Record<string, string> }) {
  const { key, id } = await gw.key();
  const s = await open(key, o.method, o.params, o.headers);
  t.equal(s.status, 200);
  t.ok((await firstData(s))?.data?.result, 'the stream opened with an event');
  const rec = (await gw.gw.store.keys.get(id))!;
  await gw.gw.store.keys.put({ ...rec, revokedAt: Date.now() });
  return endOf(s);
}

const isV1 = (t: Test, body: any, code: number, why: string) => {
  t.equal(body?.error?.code, code, `${why}: 1.0's code`);
  t.ok(Array.isArray(body?.error?.data), `${why}: data is 1.0's ErrorInfo list`);
};
const isV03 = (t: Test, body: any, code: number, reason: string, why: string) => {
  t.equal(body?.error?.code, code, `${why}: 0.3's code`);
  t.equal(body?.error?.data?.reason, reason, `${why}: 0.3's data`);
};

t.test('message/stream under A2A-Version 1.0: revoked mid-stream reads in 1.0 shape, as its errors before', async (t) => {
  const { key } = await gw.key();
  const before = await open(key, 'message/stream', { message: { kind: 'message' } }, V1);
  isV1(t, before.json ?? (await endOf(before)), -32602, 'refused before the stream');
  const end = await revokedMidStream(t, { method: 'message/stream', params: slowB({ ms: 120_000, steps: 120 }), headers: V1 });
  isV1(t, end, -32050, 'revoked mid-stream');
});

t.test('SendStreamingMessage: revoked mid-stream reads in 1.0 shape', async (t) => {
  const end = await revokedMidStream(t, { method: 'SendStreamingMessage', params: slowV1(), headers: V1 });
  isV1(t, end, -32050, 'revoked mid-stream');
});

t.test("tasks/resubscribe of a 1.0 task without a header: 0.3's errors before the first event and after", async (t) => {
  const { key } = await gw.key();
  const made = await open(key, 'SendStreamingMessage', slowV1(), V1);
  const taskId = (await firstData(made)).data.result.task.id as string;

  // a Last-Event-ID that is no id at all is refused by the handler, before the stream opens
  const malformed = await openSse({ url: gw.url, key, method: 'tasks/resubscribe', params: { id: taskId }, headers: { 'Last-Event-ID': 'x' } });
  isV03(t, malformed.json ?? (await endOf(malformed)), -32602, 'INVALID_PARAMS', 'a malformed Last-Event-ID');
  // one past the task's last event is found out once the stream has read the task, before its first event
  const past = await openSse({ url: gw.url, key, method: 'tasks/resubscribe', params: { id: taskId }, headers: { 'Last-Event-ID': '999999' } });
  isV03(t, past.json ?? (await endOf(past)), -32602, 'INVALID_PARAMS', 'a Last-Event-ID past the last event');

  const end = await revokedMidStream(t, { method: 'tasks/resubscribe', params: { id: taskId } });
  isV03(t, end, -32003, 'UNAUTHORIZED', 'revoked mid-stream');
});
