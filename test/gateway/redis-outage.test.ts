// Issue 6, Redis outages: a stalled Redis costs fast 503s and an honest /readyz, never the process (items 2 and 8),
// and an instance cut off from the store does not judge the others dead (item 4). Redis here is a private server
// stalled with real signals.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { createKeyCli, rpcAt, startChildServer, waitFor } from '../support/child-server.js';
import { msgB, startTestGateway } from '../support/gateway.js';
import { startPrivateRedis } from '../support/private-redis.js';

t.setTimeout(180_000);

const slow = (ms: number, steps: number) => ({
  message: { kind: 'message', role: 'user', messageId: `m-${Math.random()}`, parts: [{ kind: 'data', data: { ms, steps } }], metadata: { agentId: 'slow' } },
  configuration: { blocking: false },
});

t.test(
  'items 2 and 8: a Redis stall with a task running: the process stays up, calls fail fast with 503, /readyz tells, recovery needs no restart',
  async (t) => {
    const redis = await startPrivateRedis();
    t.teardown(() => redis.stop());
    const dir = await mkdtemp(join(tmpdir(), 'a2a-outage-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const configFile = join(dir, 'config.json');
    await writeFile(configFile, JSON.stringify({ store: 'redis', redisUrl: redis.url, redisPrefix: 'outage:', redis: { commandTimeoutMs: 500 } }));
    const env = { A2A_SECRET: 'outage-test-secret-0123456789' };
    const server = await startChildServer({ dataDir: dir, args: ['--config', configFile], env });
    t.teardown(() => server.kill('SIGKILL'));
    const { key } = await createKeyCli(dir, { extra: ['--config', configFile, '--per-minute', '100000', '--per-hour', '1000000'], env });
    const call = (method: string, params: unknown) => rpcAt(server.url, { key, method, params });

    const running = await call('message/send', slow(1500, 3));
    t.equal(running.json.result?.status?.state, 'working', 'a task is running');
    t.equal((await fetch(`${server.url}/readyz`)).status, 200, 'ready before the outage');

    redis.stall();
    t.teardown(() => redis.resume());
    await new Promise((r) => setTimeout(r, 3000)); // longer than the command timeout: every connection notices

    const t0 = Date.now();
    const during = await call('tasks/get', { id: running.json.result.id });
    const took = Date.now() - t0;
    t.equal(during.status, 503, 'a call during the outage: 503');
    t.equal(during.json.error?.data?.reason, 'STORE_UNAVAILABLE', 'naming the store as unavailable');
    t.equal(during.headers.get('retry-after'), '1');
    t.ok(took < 2_500, `it fails fast (${took} ms), not after the whole stall`);
    const ready = await fetch(`${server.url}/readyz`);
    t.equal(ready.status, 503, '/readyz says not ready');
    t.match(((await ready.json()) as { detail?: string }).detail, /store \(redis\) unavailable/);
    t.equal(server.proc.exitCode, null, 'the process is up');

    await new Promise((r) => setTimeout(r, 7000)); // a stall of about 10 s in all, as in the report
    t.equal(server.proc.exitCode, null, 'still up after 10 s of stall');
    redis.resume();

    await waitFor('ready again', async () => ((await fetch(`${server.url}/readyz`)).status === 200 ? true : undefined), { timeoutMs: 20_000, everyMs: 200 });
    const after = await waitFor(
      'a send to work again',
      async () => {
        const r = await call('message/send', msgB('after the outage'));
        return r.json.result?.status?.state === 'completed' ? r : undefined;
      },
      { timeoutMs: 20_000, everyMs: 200 },
    );
    t.ok(after, 'sends work again without a restart');
    const got = await call('tasks/get', { id: running.json.result.id });
    t.ok(got.json.result, 'the task that ran during the outage can be read');
    t.equal(server.proc.exitCode, null, 'the process never exited');
    t.notMatch(server.output().stderr, /"error":""/, 'log lines carry the real error');
    t.match(server.output().stderr, /redis connection error|store unavailable/, 'the outage was logged');
  },
);

t.test("item 4: after a Redis stall longer than deadAfterMs, live instances do not fail each other's tasks", async (t) => {
  const redis = await startPrivateRedis();
  t.teardown(() => redis.stop());
  const config = (id: string) => ({
    store: 'redis' as const,
    redisUrl: redis.url,
    redisPrefix: 'stall:',
    instanceId: id,
    redis: { commandTimeoutMs: 300 },
    instances: { heartbeatMs: 5_000, deadAfterMs: 20_000 },
  });
  // one clock each, so that A can come back (and judge) before B has beaten again
  const clockA = new ManualClock(Date.now());
  const clockB = new ManualClock(clockA.now());
  const a = await startTestGateway({ config: config('gw-a'), clock: clockA, timers: clockA });
  t.teardown(() => a.close());
  const b = await startTestGateway({ config: config('gw-b'), clock: clockB, timers: clockB });
  t.teardown(() => b.close());
  const { key } = await a.key();
  // before the stall Redis answers, but a loaded machine can outlast the 300 ms command timeout: a send refused for
  // that (a store error, nothing started) is the setup's to retry, not what this test is about
  const startSlow = async (gw: typeof a): Promise<string> => {
    for (let attempt = 1; ; attempt++) {
      const r = await gw.rpc({ key, method: 'message/send', params: slow(120_000, 1) });
      if (r.json.result?.id) return r.json.result.id;
      if (attempt === 10) throw new Error(`the slow task did not start: ${JSON.stringify(r.json)}`);
    }
  };
  const onA = await startSlow(a);
  const onB = await startSlow(b);
  const settle = () => new Promise((r) => setTimeout(r, 60));
  const step = async (clocks: ManualClock[], ms: number) => {
    for (const c of clocks) c.advance(ms);
    await settle();
  };
  for (let i = 0; i < 4; i++) await step([clockA, clockB], 5_000); // both beat for 20 s
  redis.stall();
  // 25 s of stall: A's beats fail at the command timeout; B's beat is stuck for the whole stall (its clock waits)
  for (let i = 0; i < 5; i++) {
    await step([clockA], 5_000);
    await new Promise((r) => setTimeout(r, 400));
  }
  redis.resume();
  await new Promise((r) => setTimeout(r, 500));
  await step([clockA], 5_000); // A is back first: the last beat of B it can read is 30 s old
  await new Promise((r) => setTimeout(r, 300));
  clockB.set(clockA.now()); // B's stuck beat ends with the stall
  for (let i = 0; i < 8; i++) await step([clockA, clockB], 5_000); // then both, past deadAfterMs of steady beats
  await new Promise((r) => setTimeout(r, 300));
  const state = async (gw: typeof a, id: string) => (await gw.rpc({ key, method: 'tasks/get', params: { id } })).json.result?.status?.state;
  t.equal(await state(a, onB), 'working', "B's task was not failed by A");
  t.equal(await state(b, onA), 'working', "A's task was not failed by B");
  await a.rpc({ key, method: 'tasks/cancel', params: { id: onA } });
  await b.rpc({ key, method: 'tasks/cancel', params: { id: onB } });
});
