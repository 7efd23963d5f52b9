// A Redis instance's name (its instance id) is what marks the tasks it runs as its own. On port 0 with no
// A2A_INSTANCE_ID the name is host:pid, new at every start: a restarted instance then does not fail the tasks its
// previous process left running (they wait for the presence sweep, instances.deadAfterMs later), and it says so at
// start. With A2A_INSTANCE_ID kept across restarts, such a task is failed at once at the next start (gateway_restart).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { createKeyCli, rpcAt, startChildServer, waitFor, type ChildServer } from '../support/child-server.js';
import { slowB } from '../support/gateway.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';

t.setTimeout(300_000);

async function redisEnv(t: Test, extra: Record<string, string> = {}): Promise<{ env: Record<string, string>; dataDir: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'a2a-instance-id-'));
  const prefix = testPrefix('instance-id');
  t.teardown(async () => {
    await rm(dataDir, { recursive: true, force: true });
    await cleanupPrefix(REDIS_URL, prefix);
  });
  return { dataDir, env: { A2A_STORE: 'redis', REDIS_URL, A2A_REDIS_PREFIX: prefix, A2A_SECRET: 'instance-id-test-secret', ...extra } };
}

/** Starts a server, runs a slow task until it is working, kills the server; returns the task id and the key. */
async function leaveTaskRunning(t: Test, o: { env: Record<string, string>; dataDir: string }) {
  const first = await startChildServer({ dataDir: o.dataDir, env: o.env });
  t.teardown(() => first.kill('SIGKILL'));
  const { key } = await createKeyCli(o.dataDir, { env: o.env });
  const sent = await rpcAt(first.url, { key, method: 'message/send', params: slowB({ ms: 60_000, steps: 60, blocking: false }) });
  const id: string = sent.json.result?.id;
  t.ok(id, `a slow task started: ${JSON.stringify(sent.json).slice(0, 200)}`);
  await waitFor('the slow task to be working', async () => ((await state(first, key, id)) === 'working' ? true : undefined));
  await first.kill('SIGKILL');
  return { id, key, first };
}

async function state(s: ChildServer, key: string, id: string): Promise<string | undefined> {
  return (await rpcAt(s.url, { key, method: 'tasks/get', params: { id } })).json.result?.status?.state;
}

t.test('port 0 and no A2A_INSTANCE_ID: the start says the name is not stable and how to fix it', async (t) => {
  const o = await redisEnv(t);
  const { id, key, first } = await leaveTaskRunning(t, o);
  t.match(first.output().stderr, /no stable name \(port 0 and no A2A_INSTANCE_ID\)/, 'the first start warned');
  const second = await startChildServer({ dataDir: o.dataDir, env: o.env });
  t.teardown(() => second.kill('SIGKILL'));
  // stderr is its own pipe: the line written before `listening` may reach us just after it
  const log = await waitFor('the warning on stderr', async () => (/no stable name/.test(second.output().stderr) ? second.output().stderr : undefined), {
    timeoutMs: 10_000,
  });
  t.match(log, /no stable name/, 'the restart warns too');
  t.match(log, /A2A_INSTANCE_ID/, 'naming the variable that fixes it');
  t.match(log, /instance_lost/, 'and what happens to the tasks meanwhile');
  t.equal(await state(second, key, id), 'working', "the previous process's task is not the new name's to fail at start");
});

t.test('A2A_INSTANCE_ID kept across a restart: the task the killed process left running is failed at once, with no warning', async (t) => {
  const o = await redisEnv(t, { A2A_INSTANCE_ID: 'gw-steady' });
  const { id, key, first } = await leaveTaskRunning(t, o);
  t.notMatch(first.output().stderr, /no stable name/, 'no warning with a configured name');
  const second = await startChildServer({ dataDir: o.dataDir, env: o.env });
  t.teardown(() => second.kill('SIGKILL'));
  const got = await rpcAt(second.url, { key, method: 'tasks/get', params: { id } });
  t.equal(got.json.result?.status?.state, 'failed', 'failed at the next start');
  t.equal(got.json.result?.status?.message?.metadata?.reason, 'gateway_restart');
});
