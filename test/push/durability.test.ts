// Webhooks survive kill -9: the server runs as a child process and dies right after the task write that causes a
// notification; the restarted server delivers it. On Redis the kill lands exactly after that write (a forwarder holds
// every later command); on LMDB a task write whose jobs cannot be stored must store nothing (the same transaction).
// And a server killed during an attempt retries it as soon as it is back, not once the dead run's lease lapsed.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { openLmdbStore } from '../../src/runtime/store/lmdb/index.js';
import { createKeyCli, rpcAt, startChildServer, waitFor, type ChildServer } from '../support/child-server.js';
import { msgB } from '../support/gateway.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { startRedisGate } from '../support/redis-gate.js';
import { samplePushJob, sampleTask } from '../support/store-records.js';
import { startReceiver, type Receiver } from '../support/webhooks.js';

// two server starts and a CLI run, each a fresh Node process
t.setTimeout(180_000);

const ENV = { A2A_SECRET: 'durability-test-secret-0123456789' };

async function dirFor(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-push-durability-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function receiver(t: Test): Promise<Receiver> {
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  return rx;
}

t.test('redis: kill -9 right after the task write that completes a task: the restarted server still delivers its webhook', async (t) => {
  const dir = await dirFor(t);
  const prefix = testPrefix('push-kill');
  t.teardown(() => cleanupPrefix(REDIS_URL, prefix));
  const gate = await startRedisGate({ redisPort: Number(new URL(REDIS_URL).port || 6379) });
  t.teardown(() => gate.close());
  const config = (url: string) => ({ store: 'redis', redisUrl: url, redisPrefix: prefix, instanceId: 'gw-kill', push: { allowlist: ['127.0.0.1'] } });
  const gated = join(dir, 'gated.json');
  const direct = join(dir, 'direct.json');
  await writeFile(gated, JSON.stringify(config(gate.url)));
  await writeFile(direct, JSON.stringify(config(REDIS_URL)));
  const rx = await receiver(t);

  const first: ChildServer = await startChildServer({ dataDir: dir, args: ['--config', gated], env: ENV });
  t.teardown(() => first.kill('SIGKILL'));
  const { key } = await createKeyCli(dir, { extra: ['--config', direct], env: ENV });
  // a task without webhooks first: every script the task write uses is loaded in Redis (no NOSCRIPT retry later)
  const warm = await rpcAt(first.url, { key, method: 'message/send', params: msgB('warm up') });
  t.equal(warm.json.result?.status?.state, 'completed');

  const marker = `kill-window-${Math.random().toString(36).slice(2)}`;
  const completedWrite = gate.holdAfter((chunk) => chunk.includes(marker) && chunk.includes('completed') && chunk.includes('EVAL'));
  const send = rpcAt(first.url, {
    key,
    method: 'message/send',
    params: { ...msgB(marker), configuration: { blocking: true, pushNotificationConfig: { url: `${rx.url}/hook` } } },
  }).catch(() => undefined);
  await completedWrite;
  const ended = await first.kill('SIGKILL');
  t.equal(ended.signal, 'SIGKILL', 'killed between the write that completed the task and anything after it');
  await send;
  t.same(rx.deliveries, [], 'nothing was delivered before the kill');

  const second = await startChildServer({ dataDir: dir, args: ['--config', direct], env: ENV });
  t.teardown(() => second.kill('SIGKILL'));
  const listed = await rpcAt(second.url, { key, method: 'tasks/list', params: {} });
  const task = (listed.json.result?.tasks ?? []).find((x: { history?: Array<{ parts: Array<{ text?: string }> }> }) =>
    x.history?.some((m) => m.parts.some((p) => p.text === marker)),
  );
  t.equal(task?.status?.state, 'completed', 'the task is stored completed');
  const delivered = await waitFor('the completed webhook', async () => rx.deliveries.find((d) => d.json?.status?.state === 'completed'), { timeoutMs: 20_000 });
  t.equal(delivered.json.id, task?.id, "the restarted server delivered the task's completed notification");
});

t.test('lmdb: a task write whose push job cannot be stored stores nothing (one transaction)', async (t) => {
  const dir = await dirFor(t);
  const store = await openLmdbStore({ path: dir });
  t.teardown(() => store.close());
  const working = { ...sampleTask({ id: 't-fault', state: 'working' }), seq: 1 };
  t.equal(await store.tasks.create(working), true);
  // LMDB refuses a key over its size limit (about 2 KB): the job's put fails after the task's own writes in the transaction
  const unstorable = { ...samplePushJob({ queue: 'q'.repeat(4096), seq: 2 }), taskKey: 'ws-a/t-fault' };
  const completed = { ...sampleTask({ id: 't-fault', state: 'completed' }), seq: 2 };
  await t.rejects(store.tasks.put(completed, { expectSeq: 1, pushJobs: [unstorable] }), 'the write fails');
  const reopened = await openLmdbStore({ path: dir });
  t.teardown(() => reopened.close());
  t.equal((await reopened.tasks.get('ws-a', 't-fault'))?.status.state, 'working', 'the task is not stored as completed without its webhook');
  t.same(await reopened.pushJobs.list(), [], 'and no job');
  t.equal(await reopened.tasks.put(completed, { expectSeq: 1, pushJobs: [{ ...unstorable, queue: 'q-ok' }] }), true, 'the same change with a storable job');
  t.same(
    (await reopened.pushJobs.list()).map((j) => j.queue),
    ['q-ok'],
    'goes in with it',
  );
});

for (const engine of ['lmdb', 'redis'] as const) {
  t.test(`${engine}: kill -9 during a delivery attempt: the restarted instance retries at once, not after the lease`, async (t) => {
    const dir = await dirFor(t);
    const prefix = testPrefix('push-lease-kill');
    if (engine === 'redis') t.teardown(() => cleanupPrefix(REDIS_URL, prefix));
    const cfg = join(dir, 'config.json');
    // the default attempt timeout (10 s) makes the lease 40 s: the test gives up long before that
    const store = engine === 'redis' ? { store: 'redis', redisUrl: REDIS_URL, redisPrefix: prefix, instanceId: 'gw-lease' } : {};
    await writeFile(cfg, JSON.stringify({ ...store, push: { allowlist: ['127.0.0.1'] } }));
    const rx = await receiver(t);
    // the first server's attempt never gets an answer: it is under way, its job leased, when the server dies
    let hang = true;
    rx.answer = () => (hang ? { status: 200, hang: true } : { status: 200 });
    const first = await startChildServer({ dataDir: dir, args: ['--config', cfg], env: ENV });
    t.teardown(() => first.kill('SIGKILL'));
    const { key } = await createKeyCli(dir, { extra: ['--config', cfg], env: ENV });
    const sent = await rpcAt(first.url, {
      key,
      method: 'message/send',
      params: { ...msgB('announce me'), configuration: { blocking: true, pushNotificationConfig: { url: `${rx.url}/hook` } } },
    });
    t.equal(sent.json.result?.status?.state, 'completed');
    await waitFor('the first attempt', async () => (rx.deliveries.length > 0 ? true : undefined), { timeoutMs: 20_000 });
    await first.kill('SIGKILL');
    hang = false;

    const restarted = Date.now();
    const second = await startChildServer({ dataDir: dir, args: ['--config', cfg], env: ENV });
    t.teardown(() => second.kill('SIGKILL'));
    const answered = await waitFor('an answered attempt', async () => rx.deliveries.find((d) => d.status === 200), { timeoutMs: 20_000 });
    t.equal(answered.json.id, sent.json.result.id, 'the same task');
    t.equal(answered.headers['webhook-id'], rx.deliveries[0]!.headers['webhook-id'], 'the same job, retried (the receiver dedupes on webhook-id)');
    t.ok(Date.now() - restarted < 30_000, 'well within the 40 s lease');
  });
}
