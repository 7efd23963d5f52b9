// Scale-out under races: two gateway instances on one real Redis (a key prefix of each test's own), hit at the same
// moment with changes of one task (follow-ups, a cancel, one caller-chosen id), and a cancel of a dead instance's task.
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { DEMO_AGENTS } from '../../src/demo-agents.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { createRedisBus } from '../../src/runtime/events/bus.js';
import { msgB, type TestGateway } from '../support/gateway.js';
import { startPair } from '../support/instance-pair.js';
import { REDIS_URL, testPrefix } from '../support/redis.js';
import { startReceiver } from '../support/webhooks.js';

/** asks for input first; a follow-up's turn then works until stopped (30 s at most) */
const asksThenWorks = {
  id: 'asks-then-works',
  name: 'asks-then-works',
  kind: 'module' as const,
  entry: fileURLToPath(new URL('../fixtures/agents/asks-then-works.js', import.meta.url)),
};

const pair = (t: Test, prefix?: string) =>
  startPair(t, { name: 'scale-race', ...(prefix && { prefix }), settings: { agents: [...DEMO_AGENTS, asksThenWorks] } });

t.test('two follow-ups of one waiting task, on two instances at once: none is lost; each is taken as its own turn or refused', async (t) => {
  const [a, b] = await pair(t);
  const { key } = await a.key();
  for (let round = 0; round < 6; round++) {
    const made = await a.rpc({ key, method: 'message/send', params: msgB('one', { metadata: { agentId: 'converse' } }) });
    t.equal(made.json.result.status.state, 'input-required');
    const id = made.json.result.id;
    const replies = await Promise.all([
      a.rpc({ key, method: 'message/send', params: msgB('from-a', { taskId: id }) }),
      b.rpc({ key, method: 'message/send', params: msgB('from-b', { taskId: id }) }),
    ]);
    const taken = replies.map((r, i) => (r.json.result ? ['from-a', 'from-b'][i] : undefined)).filter((x) => x !== undefined);
    const stored = (await a.rpc({ key, method: 'tasks/get', params: { id } })).json.result;
    const userTexts = stored.history.filter((m: any) => m.role === 'user').map((m: any) => m.parts[0].text);
    t.ok(taken.length >= 1, `round ${round}: a follow-up is taken`);
    for (const r of replies.filter((r) => r.json.error)) {
      t.equal(r.json.error.code, -32602, 'the other is refused as a follow-up to a task no longer waiting is');
      t.equal(r.json.error.data.state, 'working');
    }
    t.strictSame([...userTexts].slice(1).sort(), [...taken].sort(), `every message answered as taken is in the task (${userTexts}), and only those`);
    t.match(stored.status.message.parts[0].text, new RegExp(`^Turn ${1 + taken.length}:`), 'each taken message ran its own turn');
    const turns = replies.filter((r) => r.json.result).map((r) => r.json.result.status.message.parts[0].text.slice(0, 7));
    t.equal(new Set(turns).size, turns.length, `no two callers were answered with the same turn (${turns})`);
  }
});

/** resolves with the call's answer, or with 'hung' when it takes past `ms` */
const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<'hung'>((r) => setTimeout(() => r('hung'), ms).unref())]);

t.test('a follow-up on B racing a cancel on A of one waiting task: the task ends canceled, and the follow-up is told so at once', async (t) => {
  const [a, b] = await pair(t);
  const { key } = await a.key();
  for (let round = 0; round < 6; round++) {
    const made = await a.rpc({ key, method: 'message/send', params: msgB('start', { metadata: { agentId: 'asks-then-works' } }) });
    t.equal(made.json.result.status.state, 'input-required');
    const id = made.json.result.id;
    const [followUp, cancel] = await Promise.all([
      within(b.rpc({ key, method: 'message/send', params: msgB('go on', { taskId: id }) }), 10_000),
      a.rpc({ key, method: 'tasks/cancel', params: { id } }),
    ]);
    t.equal(cancel.json.result?.status.state, 'canceled', `round ${round}: the cancel is answered canceled (${JSON.stringify(cancel.json.error ?? '')})`);
    t.not(followUp, 'hung', 'the blocking follow-up is answered once the task is canceled, not when its turn would have ended');
    if (followUp === 'hung') continue;
    const stored = (await a.rpc({ key, method: 'tasks/get', params: { id } })).json.result;
    t.equal(stored.status.state, 'canceled', 'the task stays canceled');
    const kept = stored.history.some((m: any) => m.role === 'user' && m.parts[0].text === 'go on');
    if (followUp.json.error) {
      t.equal(followUp.json.error.code, -32602, 'a follow-up that came after the cancel is refused');
      t.equal(followUp.json.error.data.state, 'canceled', 'naming the state');
      t.notOk(kept, 'and its message is not in the task');
    } else {
      t.equal(followUp.json.result.status.state, 'canceled', 'a follow-up taken before the cancel ends canceled');
      t.ok(kept, 'its message is in the task');
    }
  }
});

t.test('one caller-chosen task id sent with one named push config to two instances at once: the task keeps its webhook', async (t) => {
  const [a, b] = await startPair(t, { name: 'scale-race-push', settings: { push: { allowlist: ['127.0.0.1'] } } });
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const { key } = await a.key();
  for (let round = 0; round < 4; round++) {
    const id = `retried-${round}`;
    // the same request twice (a client's retry through a load balancer): one creates the task, the other is refused
    const send = (gw: TestGateway) =>
      gw.rpc({
        key,
        method: 'tasks/send',
        params: {
          id,
          message: { role: 'user', parts: [{ type: 'data', data: { ms: 300, steps: 2 } }] },
          metadata: { agentId: 'slow' },
          pushNotification: { id: 'hook', url: `${rx.url}/?task=${id}` },
          configuration: { blocking: false },
        },
      });
    const replies = await Promise.all([send(a), send(b)]);
    t.equal(
      replies.filter((r) => r.json.result).length,
      1,
      `round ${round}: one send creates the task (${JSON.stringify(replies.map((r) => r.json.error?.message))})`,
    );
    let state = '';
    // 30 s at most for a turn of about 0.6 s: the first one starts the agent's worker, which took more than 5 s on a
    // loaded CI machine
    for (let i = 0; i < 600 && state !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      state = (await a.rpc({ key, method: 'tasks/get', params: { id } })).json.result.status.state;
    }
    t.equal(state, 'completed');
    const hook = await b.rpc({ key, method: 'tasks/pushNotification/get', params: { id } });
    t.match(hook.json.result?.pushNotificationConfig?.url, `task=${id}`, `the task still holds its push config (${JSON.stringify(hook.json)})`);
    await Promise.all([a.gw.push.idle(), b.gw.push.idle()]);
    const told = rx.deliveries.filter((d) => d.path.endsWith(`task=${id}`)).map((d) => d.json?.status?.state);
    t.ok(told.includes('completed'), `its webhook is told the task completed (${told})`);
  }
});

t.test('a cancel on B of a task whose instance A stopped beating is canceled at once, not refused after a wait', async (t) => {
  const clock = new ManualClock(Date.now());
  const [a, b] = await startPair(t, { name: 'scale-race-gone', settings: { instances: { heartbeatMs: 5_000, deadAfterMs: 20_000 } }, clock });
  const { key } = await a.key();
  const slow = {
    kind: 'message',
    role: 'user',
    messageId: 'm-gone',
    parts: [{ kind: 'data', data: { ms: 600_000, steps: 2 } }],
    metadata: { agentId: 'slow' },
  };
  const running = await a.rpc({ key, method: 'message/send', params: { message: slow, configuration: { blocking: false } } });
  const id = running.json.result.id;
  t.equal(running.json.result.status.state, 'working');

  await a.gw.close(); // A is gone: its task stays stored as working, and A beats no more
  clock.advance(25_000); // past deadAfterMs, in one step: B's own beats have a gap, so its sweep has not run yet
  await new Promise((r) => setTimeout(r, 100));
  t.equal((await b.rpc({ key, method: 'tasks/get', params: { id } })).json.result.status.state, 'working', 'not yet failed by the sweep');

  const canceled = await within(b.rpc({ key, method: 'tasks/cancel', params: { id } }), 5_000);
  t.not(canceled, 'hung', 'the cancel is answered without waiting for the dead instance');
  if (canceled === 'hung') return;
  t.equal(canceled.json.result?.status.state, 'canceled', `canceled (${JSON.stringify(canceled.json.error ?? '')})`);
  t.equal((await b.rpc({ key, method: 'tasks/get', params: { id } })).json.result.status.state, 'canceled', 'and stored so');
});

t.test('a cancel asked of A just after its turn ended waiting for input cancels the task, not a 10 s wait and -32603', async (t) => {
  const prefix = testPrefix('scale-race-idle');
  const [a, b] = await pair(t, prefix);
  const { key } = await a.key();
  const made = await a.rpc({ key, method: 'message/send', params: msgB('one', { metadata: { agentId: 'converse' } }) });
  t.equal(made.json.result.status.state, 'input-required');
  const id = made.json.result.id;
  // the race, in order: B read the task working and asked over the bus; the request reaches A once A's turn has
  // ended (input-required, stored, no longer live there). This bus plays B's half, as B's cancel does it.
  const bus = await createRedisBus({ url: REDIS_URL, prefix });
  t.teardown(() => bus.close());
  const ended = new Promise<string>((resolve) => {
    const sub = bus.subscribe(`ws1/${id}`, (evs) => {
      for (const ev of evs) if (ev.kind === 'status' && ev.status.state !== 'input-required') resolve(ev.status.state);
    });
    void sub.ready.then(() => bus.requestCancel({ key: `ws1/${id}` }));
  });
  t.equal(await within(ended, 5_000), 'canceled', 'A cancels the waiting task it ran, and says so to the asker');
  const stored = (await b.rpc({ key, method: 'tasks/get', params: { id } })).json.result;
  t.equal(stored.status.state, 'canceled', 'and it is stored canceled');
  const again = await b.rpc({ key, method: 'tasks/cancel', params: { id } });
  t.equal(again.json.error?.code, -32002, 'a later cancel is told the task is not cancelable');
});
