// One key cannot hold unbounded SSE streams open (streaming.maxStreamsPerKey): past the bound its next stream is
// refused with HTTP 429 in every dialect, other keys are unaffected, and a stream that ends in any way frees its slot.
import t, { type Test } from 'tap';
import { startTestGateway, slowB, msgB, type TestGateway } from '../support/gateway.js';
import { openSse, type SseClient } from '../support/sse.js';
import { until } from '../support/a2a-client.js';
import { REDIS_URL, cleanupPrefix, testPrefix } from '../support/redis.js';
import { hangUps } from '../support/hang-ups.js';

const V1 = { 'A2A-Version': '1.0' };
const LIMIT = 3;

async function setup(t: Test, o: { redis?: boolean } = {}): Promise<{ gw: TestGateway; key: string; keyId: string; taskId: string; held: SseClient[] }> {
  const prefix = testPrefix('stream-slots');
  const store = o.redis ? { store: 'redis' as const, redisUrl: REDIS_URL, redisPrefix: prefix } : {};
  const gw = await startTestGateway({ config: { streaming: { maxStreamsPerKey: LIMIT }, ...store } });
  const { key, id: keyId } = await gw.key();
  const held: SseClient[] = [];
  t.teardown(async () => {
    for (const s of held) s.close();
    await gw.close();
    if (o.redis) await cleanupPrefix(REDIS_URL, prefix);
  });
  // a long task: its stream stays open until the client or the server ends it
  const first = await openSse({ url: gw.url, key, method: 'message/stream', params: slowB({ ms: 120_000, steps: 120 }) });
  t.equal(first.status, 200);
  held.push(first);
  const taskId = (await first.next().then(async (f) => (f?.data ? f : first.next())))!.data.result.id as string;
  return { gw, key, keyId, taskId, held };
}

const open = (gw: TestGateway, key: string, method: string, params: unknown, headers: Record<string, string> = {}) =>
  openSse({ url: gw.url, key, method, params, headers });

t.test('a key holding its limit of streams gets the next refused with 429 naming the limit, in every dialect', async (t) => {
  const { gw, key, taskId, held } = await setup(t);
  held.push(await open(gw, key, 'tasks/resubscribe', { id: taskId }));
  held.push(await open(gw, key, 'SubscribeToTask', { id: taskId }, V1));
  t.same(
    held.map((s) => s.status),
    [200, 200, 200],
  );
  const before = await gw.rpc({ method: 'tasks/list', key, params: {} });

  const refusedB = await open(gw, key, 'tasks/resubscribe', { id: taskId });
  t.equal(refusedB.status, 429);
  t.equal(refusedB.json.error.code, -32004);
  t.match(refusedB.json.error.message, /Too many open streams.*3.*streaming\.maxStreamsPerKey/);
  t.match(refusedB.json.error.data, { reason: 'RATE_LIMITED', detail: 'too_many_streams', limit: LIMIT, setting: 'streaming.maxStreamsPerKey' });

  const refusedV1 = await open(gw, key, 'SendStreamingMessage', { message: { messageId: 'm-v1', role: 'ROLE_USER', parts: [{ text: 'x' }] } }, V1);
  t.equal(refusedV1.status, 429);
  t.equal(refusedV1.json.error.code, -32052, "1.0's code for the gateway's rate limit");
  t.match(refusedV1.json.error.data[0], { reason: 'RATE_LIMITED', metadata: { limit: String(LIMIT), setting: 'streaming.maxStreamsPerKey' } });

  for (const [method, params] of [
    ['message/stream', msgB('not started')],
    ['message/sendStream', msgB('not started')],
    ['tasks/sendSubscribe', { id: 'rev-a-refused', message: { role: 'user', parts: [{ type: 'text', text: 'x' }] } }],
  ] as const) {
    const r = await open(gw, key, method, params);
    t.equal(r.status, 429, `${method} refused`);
    t.equal(r.json.error.data.detail, 'too_many_streams');
  }
  const after = await gw.rpc({ method: 'tasks/list', key, params: {} });
  t.equal(after.json.result.totalSize, before.json.result.totalSize, 'a refused streaming send starts no task');

  const other = await gw.key();
  const s = await open(gw, other.key, 'tasks/resubscribe', { id: taskId });
  t.equal(s.status, 200, "another key's streams are its own");
  held.push(s);
});

t.test('a client that goes away frees its slot', async (t) => {
  const { gw, key, taskId, held } = await setup(t);
  held.push(await open(gw, key, 'tasks/resubscribe', { id: taskId }));
  held.push(await open(gw, key, 'tasks/resubscribe', { id: taskId }));
  t.equal((await open(gw, key, 'tasks/resubscribe', { id: taskId })).status, 429);
  held.pop()!.close();
  let again: SseClient | undefined;
  await until(async () => {
    again = await open(gw, key, 'tasks/resubscribe', { id: taskId });
    return again.status === 200;
  }, 'a slot is free once a client disconnects');
  held.push(again!);
  t.pass('the freed slot is taken again');
});

t.test('streams that end by themselves free their slots', async (t) => {
  const { gw, key, held } = await setup(t);
  // LIMIT - 1 slots free: many more streams than the limit run to their end one after another
  for (let i = 0; i < LIMIT * 3; i++) {
    const s = await open(gw, key, 'message/stream', msgB(`echo ${i}`));
    t.equal(s.status, 200);
    await s.all();
  }
  held.push(await open(gw, key, 'message/stream', slowB({ ms: 120_000, steps: 120 })));
  held.push(await open(gw, key, 'message/stream', slowB({ ms: 120_000, steps: 120 })));
  t.same(
    held.map((s) => s.status),
    [200, 200, 200],
  );
});

t.test('streams ended by a key revocation free their slots', async (t) => {
  const { gw, key, keyId, taskId, held } = await setup(t);
  held.push(await open(gw, key, 'tasks/resubscribe', { id: taskId }));
  held.push(await open(gw, key, 'tasks/resubscribe', { id: taskId }));
  const rec = (await gw.gw.store.keys.get(keyId))!;
  await gw.gw.store.keys.put({ ...rec, revokedAt: Date.now() });
  for (const s of held.splice(0)) {
    const frames = await s.all();
    t.match(frames.at(-1)?.data.error.message, /revoked/);
  }
  // the same key in force again (a test-only undo) finds all its slots free
  await gw.gw.store.keys.put(rec);
  for (let i = 0; i < LIMIT; i++) {
    const s = await open(gw, key, 'tasks/resubscribe', { id: taskId });
    t.equal(s.status, 200, `stream ${i + 1} of ${LIMIT}`);
    held.push(s);
  }
});

t.test('a client gone before its stream opened frees the slot too', async (t) => {
  // on Redis the call awaits the network, so a hang-up lands before the stream opens
  const { gw, key, taskId, held } = await setup(t, { redis: true });
  const port = Number(new URL(gw.url).port);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/resubscribe', params: { id: taskId } });
  const request = `POST /api/a2a HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  // each sends a whole stream request and hangs up at once (before or just after the stream opens)
  await hangUps({ port, request, count: LIMIT * 10 });
  let n = 0;
  await until(async () => {
    const s = await open(gw, key, 'tasks/resubscribe', { id: taskId });
    if (s.status === 200) {
      held.push(s);
      n++;
    }
    return n === LIMIT - 1;
  }, 'every slot the hung-up clients took is free again');
  t.equal(n, LIMIT - 1);
});
