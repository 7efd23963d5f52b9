// A remote whose task comes back without an id (an empty `id`, or a stream whose events name none), by real node:http
// remotes on loopback, 0.3 and 1.0, plain and streamed: a task that waits for input (or must be polled) could not be
// continued or polled, so the turn fails saying so, at once, instead of sending the follow-up to no task. A finished
// task without an id is taken as before: nothing follows it.
import t from 'tap';
import { type Answer, type Dialect, sseAnswer } from '../support/card-server.js';
import { DIALECT_MATRIX, dialectStage } from '../support/remote-stage.js';

const WS = 'ws1';
let state = 'input-required';

const state10 = (s: string) => `TASK_STATE_${s.toUpperCase().replace('-', '_')}`;
const message = { kind: 'message', role: 'agent', messageId: 'm-r', parts: [{ kind: 'text', text: 'which one?' }] };
const enc = {
  '0.3': {
    task: () => ({ kind: 'task', id: '', contextId: 'c1', status: { state, message } }),
    sent: (task: unknown) => task,
    status: () => ({ kind: 'status-update', contextId: 'c1', status: { state, message }, final: true }),
  },
  '1.0': {
    task: () => ({
      id: '',
      contextId: 'c1',
      status: { state: state10(state), message: { messageId: 'm-r', role: 'ROLE_AGENT', parts: [{ text: 'which one?' }] } },
    }),
    sent: (task: unknown) => ({ task }),
    status: () => ({
      statusUpdate: { contextId: 'c1', status: { state: state10(state), message: { messageId: 'm-r', role: 'ROLE_AGENT', parts: [{ text: 'which one?' }] } } },
    }),
  },
};

/** plain: the task with an empty id; streamed: status events alone, naming no task. */
function answer(dialect: Dialect, req: { id: unknown; method: string }): Answer {
  const e = enc[dialect];
  if (!/stream/i.test(req.method)) return { status: 200, body: { jsonrpc: '2.0', id: req.id, result: e.sent(e.task()) } };
  return sseAnswer(req.id, [e.status()]);
}

const REMOTES = DIALECT_MATRIX;

const stage = dialectStage(t, { workspace: WS, remotes: REMOTES, answer: (r, req) => answer(r.dialect, req) });
const send = stage.send;

for (const r of REMOTES) {
  const how = r.streaming ? 'streamed' : 'plain';
  const method = { '0.3': r.streaming ? 'message/stream' : 'message/send', '1.0': r.streaming ? 'SendStreamingMessage' : 'SendMessage' }[r.dialect];
  t.test(`${r.dialect} ${how}: a task waiting for input that names no id fails the turn`, async (t) => {
    state = 'input-required';
    const task = await send(r.name);
    t.equal(task?.status?.state, 'failed', JSON.stringify(task).slice(0, 400));
    t.equal(
      task?.status?.message?.parts?.[0]?.text,
      `the remote's ${method} answer leaves its task input-required without naming it (no task id): it could not be continued`,
    );
  });

  t.test(`${r.dialect} ${how}: a finished task that names no id is taken`, async (t) => {
    state = 'completed';
    t.equal((await send(r.name))?.status?.state, 'completed');
  });
}
