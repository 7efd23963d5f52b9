// Restart recovery: the server runs as a child process, is killed mid-task, and starts again on the same data dir.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { createKeyCli, rpcAt, startChildServer, waitFor, type ChildServer } from '../support/child-server.js';
import { msgA, msgB } from '../support/gateway.js';

// several server and CLI child processes, each a fresh Node start: more than the default per-file budget on a busy machine
t.setTimeout(300_000);

async function dataDirFor(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-recovery-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function serve(t: Test, dataDir: string): Promise<ChildServer> {
  const s = await startChildServer({ dataDir });
  t.teardown(() => s.kill('SIGKILL'));
  return s;
}

const getTask = async (s: ChildServer, key: string, id: string) => {
  const r = await rpcAt(s.url, { key, method: 'tasks/get', params: { id } });
  if (!r.json.result) throw new Error(`tasks/get ${id} failed: ${JSON.stringify(r.json)}`);
  return r.json.result;
};

const slowMessage = (ms: number, steps: number, extra: Record<string, unknown> = {}) => ({
  message: {
    kind: 'message',
    role: 'user',
    messageId: `slow-${Math.random().toString(36).slice(2)}`,
    parts: [{ kind: 'data', data: { ms, steps, mode: 'sleep' } }],
    metadata: { agentId: 'slow' },
  },
  configuration: { blocking: false },
  ...extra,
});

t.test('SIGKILL mid-task: the running task fails with a reason, finished tasks stay intact, a waiting task continues', async (t) => {
  const dataDir = await dataDirFor(t);
  const first = await serve(t, dataDir);
  // the key is made by the CLI, a separate process, on the store the server has open
  const { key } = await createKeyCli(dataDir);

  // finished work: echo tasks in both dialects
  const completed: Array<{ id: string; before: unknown }> = [];
  for (const text of ['one', 'two', 'three']) {
    const r = await rpcAt(first.url, { key, method: 'message/send', params: msgB(text) });
    t.equal(r.json.result?.status?.state, 'completed', `echo "${text}" completed`);
    completed.push({ id: r.json.result.id, before: undefined });
  }
  const revA = await rpcAt(first.url, { key, method: 'tasks/send', params: msgA('rev A echo', { id: 'rev-a-task-1' }) });
  t.equal(revA.json.result?.status?.state, 'completed');
  completed.push({ id: 'rev-a-task-1', before: undefined });
  for (const c of completed) c.before = await getTask(first, key, c.id);
  t.same(
    (completed[0]!.before as { artifacts: Array<{ parts: unknown }> }).artifacts[0]!.parts,
    [{ kind: 'text', text: 'one' }],
    'the echo artifact holds the message',
  );

  // a conversation left waiting for input
  const conv = await rpcAt(first.url, { key, method: 'message/send', params: msgB('first point', { metadata: { agentId: 'converse' } }) });
  t.equal(conv.json.result?.status?.state, 'input-required');
  const convId: string = conv.json.result.id;
  const convBefore = await getTask(first, key, convId);

  // a slow task, running when the server dies
  const slow = await rpcAt(first.url, { key, method: 'message/send', params: slowMessage(60_000, 60) });
  t.ok(['submitted', 'working'].includes(slow.json.result?.status?.state), 'non-blocking send returns at once');
  const slowId: string = slow.json.result.id;
  await waitFor('the slow task to be working', async () => ((await getTask(first, key, slowId)).status.state === 'working' ? true : undefined));

  const ended = await first.kill('SIGKILL');
  t.equal(ended.signal, 'SIGKILL', 'the first server was killed, not stopped');

  const second = await serve(t, dataDir);
  t.not(second.url, undefined);

  const failed = await getTask(second, key, slowId);
  t.equal(failed.status.state, 'failed', 'the task that was running is failed, not stuck in working');
  t.equal(failed.status.message?.metadata?.reason, 'gateway_restart', 'the status message says why');
  t.match(failed.status.message?.parts?.[0]?.text, /gateway stopped/i, 'with a readable text');
  t.equal(failed.status.message?.role, 'agent');

  for (const c of completed) {
    t.same(await getTask(second, key, c.id), c.before, `completed task ${c.id} is unchanged after the restart`);
  }
  const revAAfter = await rpcAt(second.url, { key, method: 'tasks/get', params: { id: 'rev-a-task-1' } });
  t.equal(revAAfter.json.result.sessionId !== undefined || revAAfter.json.result.contextId !== undefined, true);

  t.same(await getTask(second, key, convId), convBefore, 'the waiting conversation is untouched by recovery');

  // the conversation goes on where it stopped: the summary counts the turn made before the restart
  const more = await rpcAt(second.url, { key, method: 'message/send', params: msgB('second point', { taskId: convId }) });
  t.equal(more.json.result?.status?.state, 'input-required');
  t.match(more.json.result.status.message.parts[0].text, /Turn 2/);
  const done = await rpcAt(second.url, { key, method: 'message/send', params: msgB('done', { taskId: convId }) });
  t.equal(done.json.result?.status?.state, 'completed', 'the conversation completes');
  const summary = done.json.result.artifacts[0].parts.find((p: { kind: string }) => p.kind === 'data');
  t.same(summary.data, { turns: 3, texts: ['first point', 'second point', 'done'] });

  // a failed task stays failed: it takes no more messages and cannot be canceled
  const refused = await rpcAt(second.url, { key, method: 'message/send', params: msgB('again', { taskId: slowId }) });
  t.equal(refused.json.error?.code, -32602);
  const cancel = await rpcAt(second.url, { key, method: 'tasks/cancel', params: { id: slowId } });
  t.equal(cancel.json.error?.code, -32002);

  // and the restarted server runs new work
  const fresh = await rpcAt(second.url, { key, method: 'message/send', params: { ...slowMessage(50, 2), configuration: { blocking: true } } });
  t.equal(fresh.json.result?.status?.state, 'completed');
  t.match(fresh.json.result.artifacts[0].parts.map((p: { text: string }) => p.text).join(''), /chunk 1\/2\n.*chunk 2\/2/s);
});

t.test('SIGTERM drains: the server exits 0 and a task it was running is failed on the next start', async (t) => {
  const dataDir = await dataDirFor(t);
  const first = await serve(t, dataDir);
  const { key } = await createKeyCli(dataDir);
  const slow = await rpcAt(first.url, { key, method: 'message/send', params: slowMessage(60_000, 60) });
  const slowId: string = slow.json.result.id;
  await waitFor('the slow task to be working', async () => ((await getTask(first, key, slowId)).status.state === 'working' ? true : undefined));
  const echo = await rpcAt(first.url, { key, method: 'message/send', params: msgB('kept') });
  t.equal(echo.json.result.status.state, 'completed');

  const started = Date.now();
  const ended = await first.kill('SIGTERM');
  t.equal(ended.code, 0, 'a graceful stop exits 0');
  t.ok(Date.now() - started < 10_000, 'without waiting for the 60 s task');

  const second = await serve(t, dataDir);
  const after = await getTask(second, key, slowId);
  t.equal(after.status.state, 'failed');
  t.equal(after.status.message?.metadata?.reason, 'gateway_restart');
  t.equal((await getTask(second, key, echo.json.result.id)).status.state, 'completed');
});

t.test('a canceled task stays canceled across a restart', async (t) => {
  const dataDir = await dataDirFor(t);
  const first = await serve(t, dataDir);
  const { key } = await createKeyCli(dataDir);
  const slow = await rpcAt(first.url, { key, method: 'message/send', params: slowMessage(60_000, 60) });
  const id: string = slow.json.result.id;
  const canceled = await rpcAt(first.url, { key, method: 'tasks/cancel', params: { id } });
  t.equal(canceled.json.result?.status?.state, 'canceled');
  await first.kill('SIGKILL');
  const second = await serve(t, dataDir);
  t.equal((await getTask(second, key, id)).status.state, 'canceled', 'recovery fails only what was running');
});

t.test("a second serve on a data dir in use is refused, and the first one's running task goes on to complete", async (t) => {
  const dataDir = await dataDirFor(t);
  const first = await serve(t, dataDir);
  const { key } = await createKeyCli(dataDir, { extra: ['--per-minute', '100000', '--per-hour', '1000000'] });
  const slow = await rpcAt(first.url, { key, method: 'message/send', params: slowMessage(25_000, 25) });
  const id: string = slow.json.result.id;
  await waitFor('the slow task to be working', async () => ((await getTask(first, key, id)).status.state === 'working' ? true : undefined));

  const second = await startChildServer({ dataDir }).then(
    (s) => s,
    (e: Error) => e,
  );
  if (!(second instanceof Error)) t.teardown(() => second.kill('SIGKILL'));
  t.ok(second instanceof Error, 'the second serve does not start');
  t.match(String(second), /code 2/, 'it exits 2, as for a bad setting');
  t.match(String(second), /another gateway is serving from it/, 'saying why');
  const done = await waitFor(
    'the task to end',
    async () => {
      const task = await getTask(first, key, id);
      return ['submitted', 'working'].includes(task.status.state) ? undefined : task;
    },
    { everyMs: 250 },
  );
  t.equal(done.status.state, 'completed', 'no recovery by the second start failed the running task');

  await first.kill('SIGKILL');
  const third = await serve(t, dataDir);
  t.equal((await getTask(third, key, id)).status.state, 'completed', 'after kill -9 the dir is free at once; the task is kept');
});
