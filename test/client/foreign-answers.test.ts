// A hostile remote (a real node:http server on loopback) that answers with what is not ours: a JSON-RPC answer of
// another id, a poll, a follow-up or a stream event about another task, in 0.3 and 1.0, as a task or a message. Our
// caller's task fails as the remote's bad response, naming what was wrong; nothing of the foreign task reaches our
// task, its artifacts or the stored result, the foreign task is never asked to cancel, and no secret is echoed.
import t, { type Test } from 'tap';
import { addConnection } from '../../src/runtime/connection-admin.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { parseAllowlist } from '../../src/runtime/net/guard.js';
import { settleWithClock } from '../support/a2a-client.js';
import { cardServer, type Answer, type CardServer, remoteCard, type Dialect, sseAnswer } from '../support/card-server.js';
import { msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { DIALECT_MATRIX } from '../support/remote-stage.js';

const WS = 'ws1';
const TOKEN = 'bearer-Secret-5Kx8Qw2R';
/** what only the foreign task holds: it must show nowhere on our side */
const FOREIGN = 'FOREIGN-payload-of-someone-else';

/** what the remote does with the next call: one scenario per test */
type Scenario = 'json-id' | 'json-id-token' | 'poll' | 'stream' | 'follow-task' | 'follow-message' | 'follow-untagged';
let scenario: Scenario = 'json-id';

/** A task, a message and the stream events in each dialect. */
const enc = {
  '0.3': {
    task: (id: string, state: string, text?: string) => ({
      kind: 'task',
      id,
      contextId: 'c1',
      status: { state },
      artifacts: text === undefined ? [] : [{ artifactId: `a-${id}`, parts: [{ kind: 'text', text }] }],
    }),
    sent: (task: unknown) => task,
    message: (text: string, taskId?: string) => ({
      kind: 'message',
      role: 'agent',
      messageId: 'm-r',
      ...(taskId && { taskId }),
      parts: [{ kind: 'text', text }],
    }),
    artifact: (taskId: string, text: string) => ({
      kind: 'artifact-update',
      taskId,
      contextId: 'c1',
      artifact: { artifactId: `a-${taskId}`, parts: [{ kind: 'text', text }] },
    }),
    done: (taskId: string) => ({ kind: 'status-update', taskId, contextId: 'c1', status: { state: 'completed' }, final: true }),
  },
  '1.0': {
    task: (id: string, state: string, text?: string) => ({
      id,
      contextId: 'c1',
      status: { state: `TASK_STATE_${state.toUpperCase().replace('-', '_')}` },
      artifacts: text === undefined ? [] : [{ artifactId: `a-${id}`, parts: [{ text }] }],
    }),
    sent: (task: unknown) => ({ task }),
    message: (text: string, taskId?: string) => ({ message: { messageId: 'm-r', role: 'ROLE_AGENT', ...(taskId && { taskId }), parts: [{ text }] } }),
    artifact: (taskId: string, text: string) => ({ artifactUpdate: { taskId, artifact: { artifactId: `a-${taskId}`, parts: [{ text }] } } }),
    done: (taskId: string) => ({ statusUpdate: { taskId, contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } } }),
  },
};

let s: CardServer;
let ours: TestGateway;
let key: string;
const clock = new ManualClock(Date.now());
/** the task ids the remotes were asked to cancel */
const canceled: string[] = [];

/** The hostile remote's answer to one call, as the scenario says. */
function answer(dialect: Dialect, req: { id: unknown; method: string; params: any }, authorization: string): Answer {
  const e = enc[dialect];
  const rpc = (result: unknown, id = req.id) => ({ status: 200, body: { jsonrpc: '2.0', id, result } });
  if (/cancel/i.test(req.method)) {
    canceled.push(req.params.id);
    return rpc(e.task(req.params.id, 'canceled'));
  }
  if (/get/i.test(req.method)) return rpc(e.task('someone-elses', 'completed', FOREIGN));
  if (/stream/i.test(req.method)) {
    const events = [e.sent(e.task('mine', 'working')), e.artifact('mine', 'ours'), e.artifact('someone-elses', FOREIGN), e.done('mine')];
    return sseAnswer(req.id, events);
  }
  const followUp = req.params.message?.taskId === 'mine';
  switch (scenario) {
    case 'json-id':
      return rpc(e.sent(e.task('mine', 'completed', FOREIGN)), 9);
    case 'json-id-token':
      return rpc(e.sent(e.task('mine', 'completed', FOREIGN)), authorization);
    case 'poll':
      return rpc(e.sent(e.task('mine', 'working')));
    case 'follow-task':
      return rpc(e.sent(followUp ? e.task('someone-elses', 'completed', FOREIGN) : e.task('mine', 'input-required')));
    case 'follow-message':
      return rpc(followUp ? e.message(FOREIGN, 'someone-elses') : e.sent(e.task('mine', 'input-required')));
    case 'follow-untagged':
      return rpc(followUp ? e.message('thanks, all done') : e.sent(e.task('mine', 'input-required')));
    default:
      return { status: 500 };
  }
}

const REMOTES = DIALECT_MATRIX;

t.before(async () => {
  s = await cardServer(t);
  for (const r of REMOTES) {
    s.route.set(`/${r.name}/.well-known/agent-card.json`, () => ({ status: 200, body: remoteCard({ base: s.url, ...r }) }));
    s.route.set(`/${r.name}/rpc`, (h, body) => answer(r.dialect, JSON.parse(body), String(h.authorization)));
  }
  ours = await startTestGateway({
    clock,
    timers: clock,
    config: {
      push: { allowlist: ['127.0.0.1'] },
      agents: REMOTES.map((r) => ({ id: r.name, name: r.name, kind: 'remote' as const, connection: r.name, workspace: WS })),
    },
  });
  key = (await ours.key({ workspace: WS, trust: 'admin' })).key;
  const deps = { connections: ours.gw.store.connections, secret: ours.gw.secret, clock, allowlist: parseAllowlist(['127.0.0.1']) };
  for (const r of REMOTES)
    await addConnection(deps, {
      workspace: WS,
      name: r.name,
      url: `${s.url}/${r.name}`,
      credentials: { kind: 'bearer', token: TOKEN },
      trust: 'admin',
      storeResults: true,
    });
});

t.teardown(() => ours.close());

const send = async (agentId: string, extra: Record<string, unknown> = {}) =>
  (await ours.rpc({ method: 'message/send', key, params: msgB('go', { metadata: { agentId }, ...extra }) })).json.result;

/** Our caller's send that the remote answers by polling: the clock moves on until it ends. */
async function sendPolled(agentId: string) {
  return settleWithClock(clock, send(agentId));
}

/** Nothing of the foreign task on our side: not in our task (as answered and as read back), nor in the stored results. */
async function nothingForeign(t: Test, task: any, connection: string) {
  const back = (await ours.rpc({ method: 'tasks/get', key, params: { id: task.id } })).json.result;
  t.notOk(JSON.stringify(task).includes(FOREIGN), 'the foreign task is not in our task');
  t.notOk(JSON.stringify(back).includes(FOREIGN), 'nor in our task read back');
  const kept = await ours.gw.store.results.list({ workspace: WS, connection });
  t.notOk(JSON.stringify(kept).includes(FOREIGN), 'nor in the stored result or summary');
  t.notOk(JSON.stringify(kept).includes('someone-elses'), 'the foreign task id is not stored as our remote task');
  t.notOk(canceled.includes('someone-elses'), 'the foreign task was never asked to cancel');
}

const failedWith = (t: Test, task: any, message: RegExp) => {
  t.equal(task?.status?.state, 'failed', JSON.stringify(task).slice(0, 400));
  t.match(task?.status?.message?.parts?.[0]?.text, message);
};

for (const dialect of ['0.3', '1.0'] as const) {
  const plain = dialect === '0.3' ? 'plain03' : 'plain10';
  const streamed = dialect === '0.3' ? 'stream03' : 'stream10';
  const m =
    dialect === '0.3'
      ? { send: 'message/send', get: 'tasks/get', stream: 'message/stream' }
      : { send: 'SendMessage', get: 'GetTask', stream: 'SendStreamingMessage' };

  t.test(`${dialect}: a JSON-RPC answer with another request's id is not taken for ours`, async (t) => {
    scenario = 'json-id';
    const task = await send(plain);
    failedWith(t, task, new RegExp(`the remote answered request "a2a-client-\\d+" \\(${m.send}\\) with id 9: the answer is not to our request`));
    await nothingForeign(t, task, plain);
  });

  t.test(`${dialect}: an answer whose id echoes our token: refused, and the token is not shown`, async (t) => {
    scenario = 'json-id-token';
    const task = await send(plain);
    failedWith(t, task, /with id "Bearer \[redacted\]"/);
    t.notOk(JSON.stringify(task).includes(TOKEN), 'no token in our task');
    await nothingForeign(t, task, plain);
  });

  t.test(`${dialect}: a poll for our task answered with someone else's (completed) task fails the call`, async (t) => {
    scenario = 'poll';
    canceled.length = 0;
    const task = await sendPolled(plain);
    failedWith(t, task, new RegExp(`the remote's ${m.get} answer is about another task: asked for task "mine", got "someone-elses"`));
    await nothingForeign(t, task, plain);
    t.same(canceled, ['mine'], 'our remote task was asked to stop');
  });

  t.test(`${dialect}: one foreign event among good ones fails the stream`, async (t) => {
    canceled.length = 0;
    const task = await send(streamed);
    failedWith(
      t,
      task,
      new RegExp(`an event of the remote's ${m.stream} stream is about another task: the stream is task "mine", the event is task "someone-elses"`),
    );
    await nothingForeign(t, task, streamed);
    t.same(canceled, ['mine'], 'our remote task was asked to stop');
  });

  t.test(`${dialect}: a follow-up answered with another task fails the call`, async (t) => {
    scenario = 'follow-task';
    const first = await send(plain);
    t.equal(first?.status?.state, 'input-required', JSON.stringify(first).slice(0, 300));
    const task = await send(plain, { taskId: first.id });
    failedWith(t, task, new RegExp(`the remote's ${m.send} answer is about another task: asked for task "mine", got "someone-elses"`));
    await nothingForeign(t, task, plain);
  });

  t.test(`${dialect}: a follow-up answered with a message of another task fails the call`, async (t) => {
    scenario = 'follow-message';
    const first = await send(plain);
    const task = await send(plain, { taskId: first.id });
    failedWith(t, task, /answer is about another task: asked for task "mine", got "someone-elses"/);
    await nothingForeign(t, task, plain);
  });

  t.test(`${dialect}: a follow-up answered with a message that names no task is ours`, async (t) => {
    scenario = 'follow-untagged';
    const first = await send(plain);
    const task = await send(plain, { taskId: first.id });
    t.equal(task?.status?.state, 'completed', JSON.stringify(task).slice(0, 300));
    t.match(task.status.message.parts[0].text, 'thanks, all done');
    const kept = await ours.gw.store.results.list({ workspace: WS, connection: plain });
    t.ok(
      kept.some((r) => r.remoteTaskId === 'mine' && r.summary.includes('thanks, all done')),
      'kept as an answer of our remote task',
    );
  });
}
