// Two gateway instances sharing one Redis: tasks, keys, limits, live events and cancels cross between them.
import t, { type Test } from 'tap';
import { createClient } from 'redis';
import { ManualClock } from '../../src/runtime/clock.js';
import { redisKeys } from '../../src/runtime/redis/keys.js';
import { msgB } from '../support/gateway.js';
import { startPair } from '../support/instance-pair.js';
import { REDIS_URL, testPrefix } from '../support/redis.js';
import { openSse } from '../support/sse.js';

const pair = (t: Test) => startPair(t, { name: 'scale' });

const slow = (ms: number, steps: number) => ({
  message: { kind: 'message', role: 'user', messageId: `m-${Math.random()}`, parts: [{ kind: 'data', data: { ms, steps } }], metadata: { agentId: 'slow' } },
  configuration: { blocking: false },
});

t.test('a task made on one instance is read, continued and streamed on the other', async (t) => {
  const [a, b] = await pair(t);
  const { key } = await a.key();
  const made = await a.rpc({ key, method: 'message/send', params: msgB('hello') });
  const got = await b.rpc({ key, method: 'tasks/get', params: { id: made.json.result.id } });
  t.strictSame(got.json.result.artifacts, made.json.result.artifacts, 'B reads what A completed');

  const conv = await a.rpc({ key, method: 'message/send', params: msgB('one', { metadata: { agentId: 'converse' } }) });
  t.equal(conv.json.result.status.state, 'input-required');
  const done = await b.rpc({ key, method: 'message/send', params: msgB('done', { taskId: conv.json.result.id }) });
  t.equal(done.json.result.status.state, 'completed', 'B continues a task A left waiting');

  const running = await a.rpc({ key, method: 'message/send', params: slow(400, 4) });
  const s = await openSse({ url: b.url, key, method: 'tasks/resubscribe', params: { id: running.json.result.id } });
  const frames = await s.all();
  const last = frames[frames.length - 1]!.data.result;
  t.equal(last.status.state, 'completed', 'B streams live events of a task running on A, to the final one');
  t.ok(
    frames.some((f) => f.data.result.kind === 'artifact-update'),
    'including its artifact chunks',
  );
});

t.test('a cancel sent to one instance stops a task running on the other', async (t) => {
  const [a, b] = await pair(t);
  const { key } = await a.key();
  const running = await a.rpc({ key, method: 'message/send', params: slow(30_000, 3) });
  t.equal(running.json.result.status.state, 'working');
  const canceled = await b.rpc({ key, method: 'tasks/cancel', params: { id: running.json.result.id } });
  t.equal(canceled.json.result?.status.state, 'canceled', JSON.stringify(canceled.json.error ?? ''));
  const onA = await a.rpc({ key, method: 'tasks/get', params: { id: running.json.result.id } });
  t.equal(onA.json.result.status.state, 'canceled', 'A, which ran it, sees it canceled');
  const again = await b.rpc({ key, method: 'tasks/cancel', params: { id: running.json.result.id } });
  t.equal(again.json.error.code, -32002);
});

t.test('keys and rate limits are shared: a revoke on one holds on the other, one budget spans both', async (t) => {
  const [a, b] = await pair(t);
  const { key, id } = await a.key({ limits: { perMinute: 3, perHour: 100 } });
  const codes = [];
  for (const gw of [a, b, a, b]) codes.push((await gw.rpc({ key, method: 'tasks/get', params: { id: 'x' } })).json.error.code);
  t.strictSame(codes, [-32001, -32001, -32001, -32004], 'the fourth request in the minute is refused, whichever instance takes it');
  const rec = await a.gw.store.keys.get(id);
  await a.gw.store.keys.put({ ...rec!, revokedAt: Date.now() });
  const r = await b.rpc({ key, method: 'tasks/get', params: { id: 'x' } });
  t.equal(r.status, 401, 'revoked through A, refused by B on the next request');
});

/** instances that beat every 5 s and are presumed dead after 20 s silent */
const beating = { instances: { heartbeatMs: 5_000, deadAfterMs: 20_000 } };

t.test('a task left running by an instance that stopped beating is failed by another (injected clock)', async (t) => {
  const clock = new ManualClock(Date.now());
  // A's gateway is closed below already; closing it again at the end (idempotent) removes its data dir
  const [a, b] = await startPair(t, { name: 'scale-dead', settings: beating, clock, ids: ['gw-dead', 'gw-alive'] });
  const { key } = await a.key();
  const running = await a.rpc({ key, method: 'message/send', params: slow(60_000, 2) });
  t.equal(running.json.result.status.state, 'working');
  const id = running.json.result.id;

  clock.advance(10_000); // both beat; A is alive, so B leaves its task alone
  await new Promise((r) => setTimeout(r, 100));
  t.equal((await b.rpc({ key, method: 'tasks/get', params: { id } })).json.result.status.state, 'working', 'a live instance keeps its task');

  await a.gw.close(); // A goes away: its task stays stored as working, and A beats no more
  clock.advance(25_000);
  let state = '';
  let task: any;
  for (let i = 0; i < 100 && state !== 'failed'; i++) {
    await new Promise((r) => setTimeout(r, 20));
    task = (await b.rpc({ key, method: 'tasks/get', params: { id } })).json.result;
    state = task.status.state;
    if (state !== 'failed') clock.advance(5_000);
  }
  t.equal(state, 'failed', 'B failed the task of the silent instance');
  t.equal(task.status.message.metadata.reason, 'instance_lost');
});

t.test('an instance that stopped leaves no beat key behind: it is collected a few deadAfterMs later (injected clock)', async (t) => {
  const prefix = testPrefix('scale-beat');
  const clock = new ManualClock(Date.now());
  const [a] = await startPair(t, { prefix, settings: beating, clock, ids: ['gw-gone', 'gw-stays'] });
  const raw = createClient({ url: REDIS_URL });
  raw.on('error', () => {});
  await raw.connect();
  t.teardown(() => raw.close());
  const keys = redisKeys(prefix);
  const beatOf = (id: string) => raw.hGet(keys.meta, `instance-beat:${id}`);
  t.ok(await beatOf('gw-gone'), 'a running instance has its beat stored');

  await a.gw.close();
  const stoppedAt = clock.now();
  let goneAfter: number | undefined;
  for (let i = 0; i < 40 && goneAfter === undefined; i++) {
    clock.advance(5_000); // B beats on; each of its beats may collect expired ones
    await new Promise((r) => setTimeout(r, 20));
    if ((await beatOf('gw-gone')) === null) goneAfter = clock.now() - stoppedAt;
  }
  t.ok(goneAfter !== undefined, 'the stopped instance beat key is gone');
  t.ok(goneAfter! > 20_000, `kept past deadAfterMs (gone after ${goneAfter} ms)`);
  t.equal(await raw.zScore(keys.metaExpiry, 'instance-beat:gw-gone'), null, 'with its expiry entry');
  t.ok(await beatOf('gw-stays'), 'the live instance beat stays');
});
