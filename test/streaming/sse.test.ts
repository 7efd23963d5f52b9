// Streaming over SSE against the real server: event sequences of both dialects, final semantics, resubscribe and replay.
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { startTestGateway, msgB } from '../support/gateway.js';
import { openSse, type SseFrame } from '../support/sse.js';

const slow = (ms: number, steps: number) => ({ kind: 'data', data: { ms, steps } });
const slowB = (ms: number, steps: number) => ({
  message: { kind: 'message', role: 'user', messageId: `m-${Math.random()}`, parts: [slow(ms, steps)], metadata: { agentId: 'slow' } },
});
const seqs = (frames: SseFrame[]) => frames.map((f) => Number(f.id));
const results = (frames: SseFrame[]) => frames.map((f) => f.data.result);

t.test('message/stream (rev B): the task first, then status and artifact updates, the last final; then the stream closes', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const s = await openSse({ url: gw.url, key, method: 'message/stream', params: slowB(150, 3), id: 'rq-7' });
  t.equal(s.status, 200);
  t.equal(s.headers.get('content-type'), 'text/event-stream');
  t.equal(s.headers.get('cache-control'), 'no-cache');
  t.equal(s.headers.get('x-accel-buffering'), 'no');
  const frames = await s.all();
  const r = results(frames);
  t.ok(
    frames.every((f) => f.data.jsonrpc === '2.0' && f.data.id === 'rq-7'),
    'each event is a whole JSON-RPC response with the request id',
  );
  t.equal(r[0].kind, 'task', 'first event: the Task');
  t.ok(['submitted', 'working'].includes(r[0].status.state));
  const ids = seqs(frames);
  t.ok(
    ids.every((n, i) => i === 0 || n > ids[i - 1]!),
    `ids increase: ${ids.join(',')}`,
  );
  const chunks = r.filter((x) => x.kind === 'artifact-update');
  t.equal(chunks.length, 3, 'one artifact update per chunk');
  t.strictSame(
    chunks.map((c) => [c.append, c.lastChunk]),
    [
      [false, false],
      [true, false],
      [true, true],
    ],
    'append/lastChunk mark the chunks',
  );
  t.ok(chunks.every((c) => c.taskId === r[0].id && typeof c.artifact.artifactId === 'string'));
  const statuses = r.filter((x) => x.kind === 'status-update');
  t.ok(
    statuses.slice(0, -1).every((x) => x.final === false),
    'only the last status is final',
  );
  const last = r[r.length - 1];
  t.equal(last.kind, 'status-update');
  t.equal(last.status.state, 'completed');
  t.equal(last.final, true);
  t.equal(await s.next(), undefined, 'the stream is closed after the final event');
});

t.test('message/sendStream is the same stream under its spec name', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const r = results(await openSse({ url: gw.url, key, method: 'message/sendStream', params: msgB('hi') }).then((s) => s.all()));
  t.equal(r[0].kind, 'task');
  t.ok(
    r.some((x) => x.kind === 'artifact-update' && x.artifact.parts[0].text === 'hi'),
    'the echo artifact is streamed',
  );
  t.equal(r[r.length - 1].status.state, 'completed');
  t.equal(r[r.length - 1].final, true);
});

t.test('tasks/sendSubscribe (rev A): 0.1 status and artifact events, final on the last', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const params = { id: 'rev-a-stream', message: { role: 'user', parts: [{ type: 'data', data: { ms: 90, steps: 2 } }], metadata: { agentId: 'slow' } } };
  const r = results(await openSse({ url: gw.url, key, method: 'tasks/sendSubscribe', params }).then((s) => s.all()));
  t.ok(
    r.every((x) => x.kind === undefined),
    'no rev B kinds',
  );
  t.ok(
    r.every((x) => x.id === 'rev-a-stream'),
    'each event names the task by id',
  );
  t.ok(r[0].status, 'first: a status event');
  const arts = r.filter((x) => x.artifact);
  t.equal(arts.length, 2);
  t.equal(arts[0].artifact.parts[0].type, 'text', 'parts carry type');
  t.equal(arts[0].artifact.index, 0);
  t.equal(arts[1].artifact.append, true);
  t.equal(arts[1].artifact.lastChunk, true);
  t.strictSame(
    r
      .map((x) => x.final)
      .filter((f) => f !== undefined)
      .slice(-1),
    [true],
  );
  t.equal(r[r.length - 1].status.state, 'completed');
  t.equal(r.filter((x) => x.final === true).length, 1, 'exactly one final event');
});

t.test('a stream ends at input-required (final) and a follow-up stream continues the task', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const first = results(
    await openSse({ url: gw.url, key, method: 'message/stream', params: msgB('point one', { metadata: { agentId: 'converse' } }) }).then((s) => s.all()),
  );
  const last = first[first.length - 1];
  t.equal(last.status.state, 'input-required');
  t.equal(last.final, true);
  const taskId = first[0].id;
  const second = results(await openSse({ url: gw.url, key, method: 'message/stream', params: msgB('done', { taskId }) }).then((s) => s.all()));
  t.ok(
    second.every((x) => (x.taskId ?? x.id) === taskId),
    'the follow-up streams the same task',
  );
  t.equal(second[second.length - 1].status.state, 'completed');
  t.ok(
    second.some((x) => x.kind === 'artifact-update'),
    'the summary artifact is streamed',
  );
});

t.test('item 16: 401/403 keep their HTTP statuses; later errors of a streaming method are one SSE event, then the end', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const { key: execKey } = await gw.key({ trust: 'execute' });
  const noAuth = await openSse({ url: gw.url, method: 'message/stream', params: msgB('x') });
  t.equal(noAuth.status, 401);
  t.equal(noAuth.json.error.code, -32003);
  const noScope = await openSse({ url: gw.url, key: execKey, method: 'message/stream', params: msgB('x') });
  t.equal(noScope.status, 403);
  t.equal(noScope.json.error.code, -32006);
  const sseError = async (method: string, params: unknown, code: number, why: string) => {
    const s = await openSse({ url: gw.url, key, method, params, id: 'e-1' });
    t.equal(s.status, 200, `${why}: HTTP 200`);
    t.match(s.headers.get('content-type'), /^text\/event-stream/, `${why}: text/event-stream`);
    const frames = await s.all();
    t.equal(frames.length, 1, `${why}: one event, then the stream ends`);
    t.same(frames[0]?.data?.id, 'e-1', `${why}: the request's id`);
    t.equal(frames[0]?.data?.error?.code, code, `${why}: ${code}`);
  };
  await sseError('message/stream', { message: { role: 'user', parts: [] } }, -32602, 'bad params');
  await sseError('tasks/resubscribe', { id: 'nope' }, -32001, 'resubscribe to a task that does not exist');
  await sseError(
    'tasks/sendSubscribe',
    { id: 'a-1', message: { role: 'user', parts: [{ type: 'text', text: 'x' }], metadata: { agentId: 'nobody' } } },
    -32005,
    'no such agent (rev A)',
  );
  await sseError(
    'message/sendStream',
    { message: { kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'x' }], messageId: 'm', taskId: 'missing' } },
    -32001,
    'follow-up to a missing task',
  );
  const noId = await gw.rpc({ key, body: JSON.stringify({ jsonrpc: '2.0', method: 'message/stream', params: msgB('x') }) });
  t.equal(noId.json.error?.code, -32600, 'item 10: a streaming method without id is refused like other streaming misuse');
  t.equal(noId.json.error?.data?.field, 'id');
  const batch = await gw.rpc({ key, body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'message/stream', params: msgB('x') }]) });
  t.equal(batch.json[0].error.code, -32600, 'a stream cannot be batched');
});

t.test('resubscribe: without Last-Event-ID the current task first, then live; with it exactly the missed events', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const s = await openSse({ url: gw.url, key, method: 'message/stream', params: slowB(300, 3) });
  const head = [await s.next(), await s.next()].filter((f) => f?.data);
  const firstTwo = head as SseFrame[];
  s.close(); // the client goes away; the task runs on
  const taskId = firstTwo[0]!.data.result.id;

  const again = await openSse({ url: gw.url, key, method: 'tasks/resubscribe', params: { id: taskId } });
  const live = await again.all();
  t.equal(live[0]!.data.result.kind, 'task', 'without Last-Event-ID: the current task first');
  t.equal(live[live.length - 1]!.data.result.final, true, 'then live to the final event');

  const lastSeen = firstTwo[firstTwo.length - 1]!.id!;
  const replay = await openSse({ url: gw.url, key, method: 'tasks/resubscribe', params: { id: taskId }, headers: { 'Last-Event-ID': lastSeen } });
  const rest = await replay.all();
  const all = [...firstTwo, ...rest];
  const ids = seqs(all);
  t.strictSame(
    ids,
    ids.map((_, i) => ids[0]! + i),
    `nothing lost, nothing twice: ${ids.join(',')}`,
  );
  t.equal(rest[rest.length - 1]!.data.result.status.state, 'completed');
});

t.test('a rev A resubscribe without Last-Event-ID: the artifacts the task already holds come first, then its status', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const sent = await gw.rpc({
    method: 'message/send',
    key,
    params: { ...slowB(60_000, 60), configuration: { blocking: false } },
  });
  const id = sent.json.result.id;
  t.equal(sent.status, 200);
  // wait (on real I/O) for the first chunk to be stored
  for (let i = 0; i < 2000; i++) {
    const got = await gw.rpc({ method: 'tasks/get', key, params: { id: id } });
    if (got.json.result?.artifacts?.length > 0) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const late = await openSse({ url: gw.url, key, method: 'tasks/resubscribe', params: { id: id }, headers: { 'A2A-Version': '0.1' } });
  const frames: SseFrame[] = [];
  while (frames.length < 2) {
    const f = await late.next();
    if (!f) break;
    if (f.data) frames.push(f);
  }
  const [first, second] = frames as [SseFrame, SseFrame];
  late.close();
  t.equal(first.data.result.id, id);
  t.equal(first.data.result.artifact?.parts[0]?.type, 'text', 'the chunk produced before the stream opened is not lost');
  t.equal(second.data.result.status.state, 'working', 'then the status');
  t.equal(second.data.result.final, false);
  await gw.rpc({ method: 'tasks/cancel', key, params: { id: id } });
});

t.test('replay survives a server restart', async (t) => {
  const first = await startTestGateway();
  const dataDir = first.dataDir;
  const { key } = await first.key();
  const frames = await openSse({ url: first.url, key, method: 'message/stream', params: slowB(60, 3) }).then((s) => s.all());
  const taskId = frames[0]!.data.result.id;
  await first.gw.close();

  const second = await startTestGateway({ dataDir });
  // the second gateway was handed the dir, so it leaves it; the first (already closed) made it and removes it
  t.teardown(async () => {
    await second.close();
    await first.close();
  });
  const from = frames[1]!.id!;
  const replay = await openSse({ url: second.url, key, method: 'tasks/resubscribe', params: { id: taskId }, headers: { 'Last-Event-ID': from } });
  const rest = await replay.all();
  t.strictSame(seqs(rest), seqs(frames.slice(2)), 'the events after Last-Event-ID come from the store after the restart');
  t.strictSame(results(rest), results(frames.slice(2)), 'with the same content');
  const bad = await openSse({ url: second.url, key, method: 'tasks/resubscribe', params: { id: taskId }, headers: { 'Last-Event-ID': 'abc' } });
  const [err] = await bad.all();
  t.equal(err?.data?.error?.code, -32602, 'a Last-Event-ID that is not a sequence number is refused (as an SSE error event)');
});

t.test('keep-alive pings on an idle stream (injected clock)', async (t) => {
  const clock = new ManualClock(Date.now());
  const gw = await startTestGateway({ clock, timers: clock, config: { streaming: { pingIntervalMs: 15_000 } } });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const s = await openSse({ url: gw.url, key, method: 'message/stream', params: slowB(60_000, 1) });
  const first = await s.next();
  t.equal(first?.comment, 'stream open');
  const task = await s.next();
  t.equal(task?.data.result.kind, 'task');
  clock.advance(14_999);
  clock.advance(1);
  const ping = await s.next();
  t.equal(ping?.comment, 'ping', 'a ping comment after 15 s of silence');
  clock.advance(15_000);
  t.equal((await s.next())?.comment, 'ping', 'and again');
  const cancel = await gw.rpc({ key, method: 'tasks/cancel', params: { id: task!.data.result.id } });
  t.equal(cancel.json.result.status.state, 'canceled');
  const rest = await s.untilFinal();
  const last = rest[rest.length - 1]!.data.result;
  t.equal(last.status.state, 'canceled', 'a cancel from another connection ends the stream with a canceled final event');
  t.equal(last.final, true);
  t.equal(await s.next(), undefined);
});
