// One task's live events to several streams at once: each stream gets every event in order, inside a response with its
// own request id (the gateway prepares an event once for every stream that sees it alike, and only the id differs).
import t from 'tap';
import { startTestGateway } from '../support/gateway.js';
import { openSse, type SseClient, type SseFrame } from '../support/sse.js';

const slowSend = (ms: number, steps: number) => ({
  configuration: { blocking: false },
  message: { kind: 'message', role: 'user', messageId: `m-${Math.random()}`, parts: [{ kind: 'data', data: { ms, steps } }], metadata: { agentId: 'slow' } },
});

const live = (frames: SseFrame[]) => frames.filter((f) => f.data !== undefined && f.data.result?.kind !== 'task');

t.test('streams of one task share its events, each answered with its own request id', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const started = await gw.rpc({ key, method: 'message/send', params: slowSend(120, 6) });
  const taskId: string = started.json.result.id;
  t.ok(taskId, 'a running task');

  // ids that need escaping in JSON, a plain one, and one in A2A 1.0 (another shape of the same events)
  const ids = ['plain', 'q"\\u2028\\', 'x'.repeat(64)];
  const streams: SseClient[] = [];
  for (const id of ids) streams.push(await openSse({ url: gw.url, key, method: 'tasks/resubscribe', params: { id: taskId }, id }));
  const v1 = await openSse({ url: gw.url, key, method: 'SubscribeToTask', params: { id: taskId }, id: 'one', headers: { 'A2A-Version': '1.0' } });
  const all = await Promise.all([...streams, v1].map((s) => s.all()));

  for (const [i, id] of [...ids, 'one'].entries()) {
    const frames = all[i]!.filter((f) => f.data !== undefined);
    t.ok(frames.length > 0, `stream ${JSON.stringify(id)} got events`);
    t.ok(
      frames.every((f) => f.data.jsonrpc === '2.0' && f.data.id === id),
      `every event of stream ${JSON.stringify(id)} answers its own request id`,
    );
  }
  const [a, b, c] = all.map(live);
  t.ok(a!.length >= 6, `the 0.3 streams see the task's live events (${a!.length})`);
  const last = a![a!.length - 1]!.data.result;
  t.equal(last.status?.state, 'completed', 'up to the final one');
  t.equal(last.final, true);
  // streams that joined at the same point see the same events: the same SSE ids and the same results
  const tail = (frames: SseFrame[]) => frames.slice(-6).map((f) => [f.id, f.data.result]);
  t.strictSame(tail(b!), tail(a!), 'a second 0.3 stream: the same ids and results');
  t.strictSame(tail(c!), tail(a!), 'a third: the same');
  const oneFrames = all[3]!.filter((f) => f.data !== undefined);
  const oneLast = oneFrames[oneFrames.length - 1]!.data.result;
  t.equal(oneLast.kind, undefined, 'the 1.0 stream gets 1.0 shapes (no `kind`), not the 0.3 stream’s text');
  t.strictSame(
    oneFrames.slice(-6).map((f) => f.id),
    a!.slice(-6).map((f) => f.id),
    'with the same SSE ids',
  );
});
