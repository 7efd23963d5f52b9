// A follow-up to a remote task (its taskId reused) answered in another context than the remote gave the task before,
// by a real node:http remote on loopback, 0.3 and 1.0, plain and streamed: our caller's turn fails as the remote's bad
// response naming both contexts, the remote task is asked to stop, and nothing of that answer is kept or taken on.
// A follow-up answered in the same context, or naming none, goes on as before.
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { settleWithClock } from '../support/a2a-client.js';
import { type Answer, type CardServer, remoteCard, type Dialect, sseAnswer } from '../support/card-server.js';
import { msgB, type TestGateway } from '../support/gateway.js';
import { DIALECT_MATRIX, dialectRemotes, remoteStage, sendGo } from '../support/remote-stage.js';

const WS = 'ws1';
/** what only the answer in the other context holds: it must show nowhere on our side */
const MOVED = 'answer-from-the-other-context';

/** the context the follow-up's answer names: another one, the same, or none */
let followContext: string | undefined = 'c2';
/** the state the follow-up's answer is in */
let followState = 'input-required';

const enc = {
  '0.3': {
    task: (state: string, contextId: string | undefined, text?: string) => ({
      kind: 'task',
      id: 'mine',
      ...(contextId !== undefined && { contextId }),
      status: { state, ...(text !== undefined && { message: { kind: 'message', role: 'agent', messageId: 'm-r', parts: [{ kind: 'text', text }] } }) },
      artifacts: text === undefined ? [] : [{ artifactId: 'a1', parts: [{ kind: 'text', text }] }],
    }),
    sent: (task: unknown) => task,
  },
  '1.0': {
    task: (state: string, contextId: string | undefined, text?: string) => ({
      id: 'mine',
      ...(contextId !== undefined && { contextId }),
      status: {
        state: `TASK_STATE_${state.toUpperCase().replace('-', '_')}`,
        ...(text !== undefined && { message: { messageId: 'm-r', role: 'ROLE_AGENT', parts: [{ text }] } }),
      },
      artifacts: text === undefined ? [] : [{ artifactId: 'a1', parts: [{ text }] }],
    }),
    sent: (task: unknown) => ({ task }),
  },
};

let s: CardServer;
let ours: TestGateway;
let key: string;
const clock = new ManualClock(Date.now());
/** the task ids the remotes were asked to cancel */
const canceled: string[] = [];
/** the contextId each follow-up was sent with */
const sentContexts: unknown[] = [];

/** The first send makes task "mine" in context "c1", asking for input; a follow-up is answered as the test says. */
function answer(dialect: Dialect, req: { id: unknown; method: string; params: any }): Answer {
  const e = enc[dialect];
  const rpc = (result: unknown) => ({ status: 200, body: { jsonrpc: '2.0', id: req.id, result } });
  if (/cancel/i.test(req.method)) {
    canceled.push(req.params.id);
    return rpc(e.task('canceled', 'c1'));
  }
  const followUp = req.params.message?.taskId === 'mine';
  if (followUp) sentContexts.push(req.params.message.contextId);
  const task = followUp ? e.task(followState, followContext, MOVED) : e.task('input-required', 'c1', 'which one?');
  if (/stream/i.test(req.method)) {
    const final =
      dialect === '0.3'
        ? { kind: 'status-update', taskId: 'mine', status: task.status, final: true }
        : { statusUpdate: { taskId: 'mine', status: task.status } };
    return sseAnswer(req.id, [e.sent(task), final]);
  }
  return rpc(e.sent(task));
}

const REMOTES = DIALECT_MATRIX;

/** A first turn answered at once (working, in context c1) and polled: the poll answers the task in context c2. */
function polled(req: { id: unknown; method: string; params: any }): Answer {
  const rpc = (result: unknown) => ({ status: 200, body: { jsonrpc: '2.0', id: req.id, result } });
  if (/cancel/i.test(req.method)) {
    canceled.push(req.params.id);
    return rpc(enc['0.3'].task('canceled', 'c1'));
  }
  return rpc(/get/i.test(req.method) ? enc['0.3'].task('completed', 'c2', MOVED) : enc['0.3'].task('working', 'c1'));
}

t.before(async () => {
  ({ s, ours, key } = await remoteStage(t, {
    clock,
    workspace: WS,
    remotes: [
      ...dialectRemotes(REMOTES, { base: () => s.url, answer: (r, req) => answer(r.dialect, req), settings: () => ({ storeResults: true }) }),
      {
        name: 'poll03',
        card: () => remoteCard({ base: s.url, name: 'poll03', dialect: '0.3', streaming: false }),
        answer: (_h: unknown, body: string) => polled(JSON.parse(body)),
        storeResults: true,
      },
    ],
  }));
});

const send = (agentId: string, extra?: Record<string, unknown>) => sendGo({ ours, key }, agentId, extra);

/** Our task's first turn (the remote asks for input in context c1), then the follow-up. */
async function followUp(t: Test, agentId: string) {
  const first = await send(agentId);
  t.equal(first?.status?.state, 'input-required', JSON.stringify(first).slice(0, 300));
  sentContexts.length = 0;
  canceled.length = 0;
  const task = await send(agentId, { taskId: first.id });
  t.same(sentContexts, ['c1'], 'the follow-up went out in the context the remote gave');
  return task;
}

for (const r of REMOTES) {
  const how = r.streaming ? 'streamed' : 'plain';
  const method = { '0.3': r.streaming ? 'message/stream' : 'message/send', '1.0': r.streaming ? 'SendStreamingMessage' : 'SendMessage' }[r.dialect];

  for (const state of ['input-required', 'completed']) {
    t.test(`${r.dialect} ${how}: a follow-up answered in another context (${state}) fails the turn`, async (t) => {
      followContext = 'c2';
      followState = state;
      const task = await followUp(t, r.name);
      t.equal(task?.status?.state, 'failed', JSON.stringify(task).slice(0, 400));
      t.match(
        task?.status?.message?.parts?.[0]?.text,
        new RegExp(`the remote's ${method} answer puts task "mine" in another context: it was in context "c1", the answer says "c2"`),
      );
      const back = (await ours.rpc({ method: 'tasks/get', key, params: { id: task.id } })).json.result;
      t.notOk(JSON.stringify(back).includes(MOVED), 'nothing of the answer in the other context reaches our task');
      const kept = await ours.gw.store.results.list({ workspace: WS, connection: r.name });
      t.notOk(JSON.stringify(kept).includes(MOVED), 'nor the stored results');
      t.same(canceled, ['mine'], 'the remote task is asked to stop: we no longer wait on it');
      const again = await ours.rpc({ method: 'message/send', key, params: msgB('more', { metadata: { agentId: r.name }, taskId: task.id }) });
      t.equal(again.json.error?.code, -32602, 'our task ended: no further turn goes to the other context');
    });
  }

  t.test(`${r.dialect} ${how}: a follow-up answered in the same context, or naming none, goes on`, async (t) => {
    followState = 'completed';
    for (const ctx of ['c1', undefined]) {
      followContext = ctx;
      const task = await followUp(t, r.name);
      t.equal(task?.status?.state, 'completed', JSON.stringify(task).slice(0, 400));
      t.same(canceled, [], 'nothing to stop');
    }
  });
}

t.test('a poll that answers the task in another context than the send did fails the turn', async (t) => {
  canceled.length = 0;
  const task = await settleWithClock(clock, send('poll03'));
  t.equal(task?.status?.state, 'failed', JSON.stringify(task).slice(0, 400));
  t.match(
    task?.status?.message?.parts?.[0]?.text,
    /the remote's tasks\/get answer puts task "mine" in another context: it was in context "c1", the answer says "c2"/,
  );
  t.notOk(JSON.stringify(task).includes(MOVED), 'nothing of the answer in the other context reaches our task');
  t.same(canceled, ['mine'], 'the remote task is asked to stop');
});
