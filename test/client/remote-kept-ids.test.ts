// The remote's task and context ids as our side keeps them, by real node:http remotes on loopback, 0.3 and 1.0, plain
// and streamed. An id holding a lone UTF-16 surrogate (read as U+FFFD, which would name no task of the remote's) fails
// the turn naming it, and the remote task is asked to stop by its id exactly as sent. A remote whose later answers
// leave the context out (a follow-up answered without it, a poll, a stream of status events only) keeps the context it
// gave: the next follow-up goes out in it, and the stored result names it.
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { settleWithClock } from '../support/a2a-client.js';
import { type Answer, type CardServer, remoteCard, type Dialect, sseAnswer } from '../support/card-server.js';
import type { TestGateway } from '../support/gateway.js';
import { DIALECT_MATRIX, dialectRemotes, remoteStage, sendGo } from '../support/remote-stage.js';

const WS = 'ws1';

/** what the remote's tasks are called, and the context the first answer names */
let taskId = 'mine';
let firstContext: string | undefined = 'c1';
/** the state a first turn ends in */
let firstState = 'input-required';

const state10 = (s: string) => `TASK_STATE_${s.toUpperCase().replace('-', '_')}`;
const enc = {
  '0.3': {
    task: (state: string, contextId: string | undefined) => ({
      kind: 'task',
      id: taskId,
      ...(contextId !== undefined && { contextId }),
      status: { state, message: { kind: 'message', role: 'agent', messageId: 'm-r', parts: [{ kind: 'text', text: `now ${state}` }] } },
    }),
    sent: (task: unknown) => task,
    status: (state: string, contextId: string | undefined) => ({
      kind: 'status-update',
      taskId,
      ...(contextId !== undefined && { contextId }),
      status: { state, message: { kind: 'message', role: 'agent', messageId: 'm-r', parts: [{ kind: 'text', text: `now ${state}` }] } },
      final: state !== 'working',
    }),
  },
  '1.0': {
    task: (state: string, contextId: string | undefined) => ({
      id: taskId,
      ...(contextId !== undefined && { contextId }),
      status: { state: state10(state), message: { messageId: 'm-r', role: 'ROLE_AGENT', parts: [{ text: `now ${state}` }] } },
    }),
    sent: (task: unknown) => ({ task }),
    status: (state: string, contextId: string | undefined) => ({
      statusUpdate: {
        taskId,
        ...(contextId !== undefined && { contextId }),
        status: { state: state10(state), message: { messageId: 'm-r', role: 'ROLE_AGENT', parts: [{ text: `now ${state}` }] } },
      },
    }),
  },
};

let s: CardServer;
let ours: TestGateway;
let key: string;
const clock = new ManualClock(Date.now());
/** the task ids the remotes were asked to cancel, as they arrived */
const canceled: unknown[] = [];
/** the contextId each follow-up was sent with */
const sentContexts: unknown[] = [];

/**
 * A first send makes the task in `firstContext`, in `firstState`; a follow-up is answered input-required naming no
 * context. `statusOnly`: a stream of status events alone (each naming the context the send named, else c1).
 */
function answer(o: { dialect: Dialect; statusOnly: boolean }, req: { id: unknown; method: string; params: any }): Answer {
  const e = enc[o.dialect];
  const rpc = (result: unknown) => ({ status: 200, body: { jsonrpc: '2.0', id: req.id, result } });
  if (/cancel/i.test(req.method)) {
    canceled.push(req.params.id);
    return rpc(e.sent(e.task('canceled', firstContext)));
  }
  const followUp = req.params.message?.taskId !== undefined;
  if (followUp) sentContexts.push(req.params.message.contextId);
  const state = followUp ? 'input-required' : firstState;
  const context = followUp ? undefined : firstContext;
  if (o.statusOnly)
    return sseAnswer(req.id, [e.status('working', req.params.message?.contextId ?? 'c1'), e.status(state, req.params.message?.contextId ?? 'c1')]);
  const task = e.task(state, context);
  if (/stream/i.test(req.method)) return sseAnswer(req.id, [e.sent(task), e.status(state, undefined)]);
  return rpc(e.sent(task));
}

const REMOTES = DIALECT_MATRIX;
const STATUS_ONLY: Array<{ name: string; dialect: Dialect }> = [
  { name: 'status03', dialect: '0.3' },
  { name: 'status10', dialect: '1.0' },
];

/** A first turn answered at once (working, in context c1) and polled: the poll answers the task completed, naming no context. */
function polled(req: { id: unknown; method: string; params: any }): Answer {
  const rpc = (result: unknown) => ({ status: 200, body: { jsonrpc: '2.0', id: req.id, result } });
  return rpc(/get/i.test(req.method) ? enc['0.3'].task('completed', undefined) : enc['0.3'].task('working', 'c1'));
}

t.before(async () => {
  ({ s, ours, key } = await remoteStage(t, {
    clock,
    workspace: WS,
    remotes: [
      ...dialectRemotes(REMOTES, {
        base: () => s.url,
        answer: (r, req) => answer({ dialect: r.dialect, statusOnly: false }, req),
        settings: () => ({ storeResults: true }),
      }),
      ...STATUS_ONLY.map((r) => ({
        name: r.name,
        card: () => remoteCard({ base: s.url, ...r, streaming: true }),
        answer: (_h: unknown, body: string) => answer({ dialect: r.dialect, statusOnly: true }, JSON.parse(body)),
        storeResults: true,
      })),
      {
        name: 'poll03',
        card: () => remoteCard({ base: s.url, name: 'poll03', dialect: '0.3', streaming: false }),
        answer: (_h: unknown, body: string) => polled(JSON.parse(body)),
        storeResults: true,
      },
    ],
  }));
});

t.beforeEach(() => {
  taskId = 'mine';
  firstContext = 'c1';
  firstState = 'input-required';
  canceled.length = 0;
  sentContexts.length = 0;
});

const send = (agentId: string, extra?: Record<string, unknown>) => sendGo({ ours, key }, agentId, extra);

/** The remote tasks a connection's stored results name, with their contexts, oldest first. */
const stored = async (connection: string) =>
  (await ours.gw.store.results.list({ workspace: WS, connection }))
    .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id))
    .map((r) => ({ remoteTaskId: r.remoteTaskId, contextId: r.raw?.contextId }));

/** Three turns of one task of ours: the remote names context c1 in its first answer only. */
async function conversation(t: Test, agentId: string) {
  const first = await send(agentId);
  t.equal(first?.status?.state, 'input-required', JSON.stringify(first).slice(0, 300));
  const second = await send(agentId, { taskId: first.id });
  t.equal(second?.status?.state, 'input-required', JSON.stringify(second).slice(0, 300));
  const third = await send(agentId, { taskId: first.id });
  t.equal(third?.status?.state, 'input-required', JSON.stringify(third).slice(0, 300));
  t.same(sentContexts, ['c1', 'c1'], 'each follow-up went out in the context the remote gave first');
}

for (const r of REMOTES) {
  const how = r.streaming ? 'streamed' : 'plain';
  const method = { '0.3': r.streaming ? 'message/stream' : 'message/send', '1.0': r.streaming ? 'SendStreamingMessage' : 'SendMessage' }[r.dialect];

  for (const state of ['input-required', 'completed']) {
    t.test(`${r.dialect} ${how}: a task id holding a lone surrogate (${state}) fails the turn, and the remote task is asked to stop by it`, async (t) => {
      taskId = 'mine\ud800';
      firstState = state;
      const task = await send(r.name);
      t.equal(task?.status?.state, 'failed', JSON.stringify(task).slice(0, 400));
      t.equal(
        task?.status?.message?.parts?.[0]?.text,
        `the remote's ${method} answer names task "mine\\ud800": an id holding a lone UTF-16 surrogate (an unpaired \\uD800-\\uDFFF escape) cannot be kept as sent, so the task could not be followed up, polled or canceled`,
      );
      t.same(canceled, ['mine\ud800'], 'the cancel names the remote task exactly as it was sent');
      t.same(await stored(r.name), [], 'nothing is stored under an id the remote would not know');
    });
  }

  t.test(`${r.dialect} ${how}: a context id holding a lone surrogate fails the turn`, async (t) => {
    firstContext = 'c\udc00';
    const task = await send(r.name);
    t.equal(task?.status?.state, 'failed', JSON.stringify(task).slice(0, 400));
    t.match(
      task?.status?.message?.parts?.[0]?.text,
      `the remote's ${method} answer puts task "mine" in context "c\\udc00": an id holding a lone UTF-16 surrogate`,
    );
    t.same(canceled, ['mine'], 'the remote task is asked to stop');
    t.same(await stored(r.name), []);
  });

  t.test(`${r.dialect} ${how}: follow-ups answered without a context stay in the one the remote gave`, async (t) => {
    await conversation(t, r.name);
    t.same(
      await stored(r.name),
      [1, 2, 3].map(() => ({ remoteTaskId: 'mine', contextId: 'c1' })),
      'every stored result names the context',
    );
  });
}

for (const r of STATUS_ONLY) {
  t.test(`${r.dialect}: a stream of status events only keeps the context its events named`, async (t) => {
    await conversation(t, r.name);
    t.same(
      await stored(r.name),
      [1, 2, 3].map(() => ({ remoteTaskId: 'mine', contextId: 'c1' })),
      'every stored result names the context',
    );
  });
}

t.test('a poll answering without a context keeps the one the send named', async (t) => {
  const task = await settleWithClock(clock, send('poll03'));
  t.equal(task?.status?.state, 'completed', JSON.stringify(task).slice(0, 400));
  t.same(await stored('poll03'), [{ remoteTaskId: 'mine', contextId: 'c1' }]);
});
