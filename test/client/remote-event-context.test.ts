// A remote's stream whose status-update or artifact-update event puts the task in another context than the stream
// gave it, by a real node:http remote on loopback (SSE), 0.3 and 1.0: our caller's turn fails as the remote's bad
// response naming both contexts, the remote task is asked to stop, and nothing of that event is kept. Events in the
// same context, or naming none, go on as before. (Whole tasks are checked the same way: remote-context.test.ts.)
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { type Answer, type CardServer, type Dialect, sseAnswer } from '../support/card-server.js';
import type { TestGateway } from '../support/gateway.js';
import { dialectRemotes, remoteStage, sendGo } from '../support/remote-stage.js';

const WS = 'ws1';
/** what only the event in the other context holds: it must show nowhere on our side */
const MOVED = 'event-from-the-other-context';

type Kind = 'status' | 'artifact';
/** the stream's first event (a whole task, or a status naming the context), the middle event's kind and context */
let first: 'task' | 'status' = 'task';
let middle: Kind = 'status';
let middleContext: string | undefined = 'c2';

const state10 = (s: string) => `TASK_STATE_${s.toUpperCase().replace('-', '_')}`;
const enc = {
  '0.3': {
    task: () => ({ kind: 'task', id: 'mine', contextId: 'c1', status: { state: 'working' } }),
    status: (state: string, contextId: string | undefined, text?: string) => ({
      kind: 'status-update',
      taskId: 'mine',
      ...(contextId !== undefined && { contextId }),
      status: { state, ...(text !== undefined && { message: { kind: 'message', role: 'agent', messageId: 'm-r', parts: [{ kind: 'text', text }] } }) },
      final: state === 'completed',
    }),
    artifact: (contextId: string | undefined, text: string) => ({
      kind: 'artifact-update',
      taskId: 'mine',
      ...(contextId !== undefined && { contextId }),
      artifact: { artifactId: 'a1', parts: [{ kind: 'text', text }] },
    }),
  },
  '1.0': {
    task: () => ({ task: { id: 'mine', contextId: 'c1', status: { state: state10('working') } } }),
    status: (state: string, contextId: string | undefined, text?: string) => ({
      statusUpdate: {
        taskId: 'mine',
        ...(contextId !== undefined && { contextId }),
        status: { state: state10(state), ...(text !== undefined && { message: { messageId: 'm-r', role: 'ROLE_AGENT', parts: [{ text }] } }) },
      },
    }),
    artifact: (contextId: string | undefined, text: string) => ({
      artifactUpdate: { taskId: 'mine', ...(contextId !== undefined && { contextId }), artifact: { artifactId: 'a1', parts: [{ text }] } },
    }),
  },
};

let s: CardServer;
let ours: TestGateway;
let key: string;
const clock = new ManualClock(Date.now());
/** the task ids the remotes were asked to cancel */
const canceled: string[] = [];

/** A stream: the first event (context c1), the middle event as the test says, then completed in c1. */
function answer(dialect: Dialect, req: { id: unknown; method: string; params: any }): Answer {
  const e = enc[dialect];
  if (/cancel/i.test(req.method)) {
    canceled.push(req.params.id);
    return { status: 200, body: { jsonrpc: '2.0', id: req.id, result: e.task() } };
  }
  const events = [
    first === 'task' ? e.task() : e.status('working', 'c1'),
    middle === 'status' ? e.status('working', middleContext, MOVED) : e.artifact(middleContext, MOVED),
    e.status('completed', 'c1', 'done'),
  ];
  return sseAnswer(req.id, events);
}

const REMOTES: Array<{ name: string; dialect: Dialect }> = [
  { name: 'stream03', dialect: '0.3' },
  { name: 'stream10', dialect: '1.0' },
];

t.before(async () => {
  ({ s, ours, key } = await remoteStage(t, {
    clock,
    workspace: WS,
    remotes: dialectRemotes(
      REMOTES.map((r) => ({ ...r, streaming: true })),
      { base: () => s.url, answer: (r, req) => answer(r.dialect, req), settings: () => ({ storeResults: true }) },
    ),
  }));
});

const send = (agentId: string, extra?: Record<string, unknown>) => sendGo({ ours, key }, agentId, extra);

for (const r of REMOTES) {
  const method = r.dialect === '0.3' ? 'message/stream' : 'SendStreamingMessage';
  for (const kind of ['status', 'artifact'] as const) {
    for (const opening of ['task', 'status'] as const) {
      t.test(`${r.dialect}: a ${kind} event in another context (the stream opened with a ${opening}) fails the turn`, async (t) => {
        first = opening;
        middle = kind;
        middleContext = 'c2';
        canceled.length = 0;
        const task = await send(r.name);
        t.equal(task?.status?.state, 'failed', JSON.stringify(task).slice(0, 400));
        t.match(
          task?.status?.message?.parts?.[0]?.text,
          new RegExp(`the remote's ${method} answer puts task "mine" in another context: it was in context "c1", the answer says "c2"`),
        );
        const back = (await ours.rpc({ method: 'tasks/get', key, params: { id: task.id } })).json.result;
        t.notOk(JSON.stringify(back).includes(MOVED), 'nothing of the event in the other context reaches our task');
        const kept = await ours.gw.store.results.list({ workspace: WS, connection: r.name });
        t.notOk(JSON.stringify(kept).includes(MOVED), 'nor the stored results');
        t.same(canceled, ['mine'], 'the remote task is asked to stop: we no longer wait on it');
      });
    }

    t.test(`${r.dialect}: a ${kind} event in the same context, or naming none, goes on`, async (t) => {
      first = 'task';
      middle = kind;
      for (const ctx of ['c1', undefined]) {
        middleContext = ctx;
        canceled.length = 0;
        const task = await send(r.name);
        t.equal(task?.status?.state, 'completed', JSON.stringify(task).slice(0, 400));
        t.same(canceled, [], 'nothing to stop');
      }
    });
  }
}
