// Issue 6 task integrity: one task per client-chosen id however the sends race (item 3), and a terminal task that
// stays terminal whoever finished it (item 4, the store's half). Each test is named after the issue item it covers.
import t, { type Test } from 'tap';
import { withStatus } from '../../src/actors/task-updates.js';
import type { Task } from '../../src/protocol/model.js';
import { msgA, msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startPair } from '../support/instance-pair.js';

const ALL_STATES = ['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed'] as const;

/** Every answer is either the one task (same id and sessionId, its turn in the history) or an error; one task is stored. */
async function assertOneTask(t: Test, o: { gw: TestGateway; key: string; id: string; answers: any[]; texts: string[] }) {
  const stored = (await o.gw.gw.store.tasks.listByState([...ALL_STATES])).filter((x) => x.id === o.id);
  t.equal(stored.length, 1, 'one task is stored');
  const got = await o.gw.rpc({ key: o.key, method: 'tasks/get', params: { id: o.id } });
  const task = got.json.result;
  const ok = o.answers.filter((a) => a.result);
  t.ok(ok.length >= 1, 'at least one send succeeded');
  t.ok(
    ok.every((a) => a.result.id === o.id && a.result.sessionId === task.sessionId),
    'every success names that task, with one sessionId',
  );
  const inHistory = new Set(task.history.filter((m: any) => m.role === 'user').map((m: any) => m.parts[0].text));
  o.answers.forEach((a, i) => {
    if (a.result) t.ok(inHistory.has(o.texts[i]), `acknowledged turn "${o.texts[i]}" is in the task's history`);
    else
      t.ok(
        a.error?.code === -32602 && /working|completed|input-required|submitted/.test(a.error.message),
        `the loser "${o.texts[i]}" got a clear error: ${a.error?.message}`,
      );
  });
}

t.test('item 3: sends racing with the same new rev A id keep one task (one instance)', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const texts = ['b0', 'b1', 'b2', 'b3', 'b4', 'b5'];
  const batch = await gw.rpc({
    key,
    body: JSON.stringify(texts.map((x, i) => ({ jsonrpc: '2.0', id: i, method: 'tasks/send', params: msgA(x, { id: 'dup-batch' }) }))),
  });
  const byId = [...batch.json].sort((a: any, b: any) => a.id - b.id);
  await assertOneTask(t, { gw, key, id: 'dup-batch', answers: byId, texts });

  const http = await Promise.all(texts.map((x) => gw.rpc({ key, method: 'tasks/send', params: msgA(x, { id: 'dup-http' }) })));
  await assertOneTask(t, { gw, key, id: 'dup-http', answers: http.map((r) => r.json), texts });

  // a conversation: the losers of a race to create it may join it only where a follow-up may
  const conv = await Promise.all(
    ['c0', 'c1'].map((x) =>
      gw.rpc({
        key,
        method: 'tasks/send',
        params: msgA(x, { id: 'dup-conv', message: { role: 'user', parts: [{ type: 'text', text: x }], metadata: { agentId: 'converse' } } }),
      }),
    ),
  );
  await assertOneTask(t, { gw, key, id: 'dup-conv', answers: conv.map((r) => r.json), texts: ['c0', 'c1'] });
});

t.test('item 3: sends racing with the same new rev A id on two instances sharing Redis keep one task', async (t) => {
  const [a, b] = await startPair(t, { name: 'dup' });
  const { key } = await a.key();
  for (let round = 0; round < 5; round++) {
    const id = `dup-redis-${round}`;
    const texts = ['r0', 'r1', 'r2', 'r3'];
    const answers = await Promise.all(texts.map((x, i) => (i % 2 ? b : a).rpc({ key, method: 'tasks/send', params: msgA(x, { id }) })));
    await assertOneTask(t, { gw: a, key, id, answers: answers.map((r) => r.json), texts });
  }
});

t.test('item 4: a task finished by another writer while its run goes on stays finished', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const slow = {
    message: { kind: 'message', role: 'user', messageId: 'm-s', parts: [{ kind: 'data', data: { ms: 400, steps: 2 } }], metadata: { agentId: 'slow' } },
  };
  const pending = gw.rpc({ key, method: 'message/send', params: slow });
  // another instance judged this one dead and failed the task in the store (as reclaim does)
  let stored: Task | undefined;
  for (let i = 0; i < 100 && stored?.status.state !== 'working'; i++) {
    await new Promise((r) => setTimeout(r, 10));
    stored = (await gw.gw.store.tasks.listByState(['working']))[0];
  }
  t.ok(stored, 'the task is running');
  const failed = withStatus(stored!, { state: 'failed', now: Date.now(), failure: { reason: 'instance_lost', message: 'lost' } });
  t.equal(await gw.gw.store.tasks.put({ ...failed, seq: (stored!.seq ?? 0) + 1 }), true);
  const answer = (await pending).json;
  t.equal(answer.result?.status?.state, 'failed', 'the send answers the stored end');
  const got = await gw.rpc({ key, method: 'tasks/get', params: { id: stored!.id } });
  t.equal(got.json.result.status.state, 'failed', 'it stays failed: the owner finishing did not flip it to completed');
  t.equal(got.json.result.status.message?.metadata?.reason, 'instance_lost');
  const next = await gw.rpc({ key, method: 'message/send', params: msgB('after') });
  t.equal(next.json.result?.status?.state, 'completed', 'the gateway goes on');
});

t.test('item 13: a key limited to some agents cannot tell a task id of an agent it cannot reach from a free one', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const admin = (await gw.key()).key;
  const hidden = await gw.rpc({
    key: admin,
    method: 'tasks/send',
    params: msgA('hello', { id: 'hidden-task', message: { role: 'user', parts: [{ type: 'text', text: 'hello' }], metadata: { agentId: 'converse' } } }),
  });
  t.equal(hidden.json.result?.status?.state, 'input-required', 'a converse task waits for input');
  const limited = (await gw.key({ agents: ['echo'] })).key;

  const taken = await gw.rpc({ key: limited, method: 'tasks/send', params: msgA('probe', { id: 'hidden-task' }) });
  const free = await gw.rpc({ key: limited, method: 'tasks/send', params: msgA('probe', { id: 'free-task' }) });
  t.equal(taken.status, free.status);
  t.equal(taken.json.error?.code, -32001);
  const same = (r: typeof taken, id: string) => JSON.stringify(r.json.error).replaceAll(id, '<id>');
  t.equal(same(taken, 'hidden-task'), same(free, 'free-task'), 'the two answers are the same but for the id');

  const after = await gw.rpc({ key: admin, method: 'tasks/get', params: { id: 'hidden-task' } });
  t.equal(after.json.result?.status?.state, 'input-required', 'the hidden task did not move');
  t.equal(after.json.result?.history?.length, hidden.json.result.history.length, 'and got no message');
  t.equal((await gw.rpc({ key: admin, method: 'tasks/get', params: { id: 'free-task' } })).json.error?.code, -32001, 'nothing was created under the free id');

  const noId = await gw.rpc({ key: limited, method: 'message/send', params: msgB('start one') });
  t.equal(noId.json.result?.status?.state, 'completed', 'the limited key starts tasks with server-chosen ids');
  const unlimited = await gw.rpc({ key: admin, method: 'tasks/send', params: msgA('free ids', { id: 'chosen-by-admin' }) });
  t.equal(unlimited.json.result?.id, 'chosen-by-admin', 'a key that reaches every agent still chooses ids');
});
