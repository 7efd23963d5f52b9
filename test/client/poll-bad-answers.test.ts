// A remote (a real node:http server on loopback) whose task is still working when its answer to a poll, or an event of
// its stream, is bad: HTTP 500, not JSON, not a task, an answer to another request. Our caller's turn fails as the
// remote's bad response, and the remote task, which nobody waits on any more, is asked to cancel (best effort).
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { settleWithClock } from '../support/a2a-client.js';
import type { Answer, CardServer, Dialect } from '../support/card-server.js';
import { msgB, type TestGateway } from '../support/gateway.js';
import { dialectRemotes, remoteStage } from '../support/remote-stage.js';

const WS = 'ws1';
/** what the remote answers a poll with (or sends after its stream's first event) */
type Bad = 'http-500' | 'not-json' | 'not-a-task' | 'other-id';
let bad: Bad = 'http-500';

const working = (dialect: Dialect) =>
  dialect === '0.3'
    ? { kind: 'task', id: 'mine', contextId: 'c1', status: { state: 'working' } }
    : { task: { id: 'mine', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } } };

let s: CardServer;
let ours: TestGateway;
let key: string;
const clock = new ManualClock(Date.now());
/** the task ids the remotes were asked to cancel */
const canceled: string[] = [];

/** The bad answer itself, as a JSON-RPC answer's text (with `id`). */
function badText(id: unknown): string {
  if (bad === 'not-json') return '{"jsonrpc":"2.0","id":';
  if (bad === 'not-a-task') return JSON.stringify({ jsonrpc: '2.0', id, result: { hello: 'world' } });
  return JSON.stringify({ jsonrpc: '2.0', id: 'someone-elses-request', result: { id: 'mine', status: { state: 'completed' } } });
}

function answer(dialect: Dialect, req: { id: unknown; method: string; params: any }): Answer {
  const rpc = (result: unknown) => ({ status: 200, body: { jsonrpc: '2.0', id: req.id, result } });
  if (/cancel/i.test(req.method)) {
    canceled.push(req.params.id);
    return rpc(
      dialect === '0.3' ? { kind: 'task', id: req.params.id, status: { state: 'canceled' } } : { id: req.params.id, status: { state: 'TASK_STATE_CANCELED' } },
    );
  }
  if (/get/i.test(req.method)) return bad === 'http-500' ? { status: 500, body: '<html>oops</html>' } : { status: 200, body: badText(req.id) };
  if (/stream/i.test(req.method)) {
    const first = `data: ${JSON.stringify({ jsonrpc: '2.0', id: req.id, result: working(dialect) })}\n\n`;
    return { status: 200, headers: { 'content-type': 'text/event-stream' }, body: `${first}data: ${badText(req.id)}\n\n` };
  }
  return rpc(working(dialect));
}

const REMOTES: Array<{ name: string; dialect: Dialect; streaming: boolean }> = [
  { name: 'plain03', dialect: '0.3', streaming: false },
  { name: 'plain10', dialect: '1.0', streaming: false },
  { name: 'stream03', dialect: '0.3', streaming: true },
  // a connection whose trust level does not allow cancel
  { name: 'nocancel03', dialect: '0.3', streaming: false },
];

t.before(async () => {
  ({ s, ours, key } = await remoteStage(t, {
    clock,
    workspace: WS,
    remotes: dialectRemotes(REMOTES, {
      base: () => s.url,
      answer: (r, req) => answer(r.dialect, req),
      settings: (r) => ({ trust: r.name === 'nocancel03' ? 'execute' : 'admin' }),
    }),
  }));
});

/** Our caller's send; the clock moves on (the polls' waits) until it ends. */
async function sendPolled(agentId: string) {
  return (await settleWithClock(clock, ours.rpc({ method: 'message/send', key, params: msgB('go', { metadata: { agentId } }) }))).json.result;
}

const WHY: Record<Bad, RegExp> = {
  'http-500': /with HTTP 500/,
  'not-json': /not JSON/,
  'not-a-task': /not a task/,
  'other-id': /the answer is not to our request/,
};

for (const r of REMOTES.filter((r) => r.name !== 'nocancel03')) {
  const cases: Bad[] = r.streaming ? ['not-json', 'not-a-task', 'other-id'] : ['http-500', 'not-json', 'not-a-task', 'other-id'];
  for (const c of cases) {
    t.test(
      `${r.name}: a ${r.streaming ? 'stream event' : 'poll answer'} (${c}) while the task works: our turn fails, the remote task is asked to cancel`,
      async (t) => {
        bad = c;
        canceled.length = 0;
        const task = await sendPolled(r.name);
        t.equal(task?.status?.state, 'failed', JSON.stringify(task).slice(0, 400));
        t.match(task?.status?.message?.parts?.[0]?.text, WHY[c]);
        // the cancel is sent (and answered) before the turn ends
        t.same(canceled, ['mine'], 'the remote task was asked to stop, once');
      },
    );
  }
}

t.test('a connection whose trust level does not allow cancel: our turn fails, the remote task is left alone', async (t) => {
  bad = 'not-a-task';
  canceled.length = 0;
  const task = await sendPolled('nocancel03');
  t.equal(task?.status?.state, 'failed', JSON.stringify(task).slice(0, 400));
  t.match(task?.status?.message?.parts?.[0]?.text, WHY[bad]);
  t.same(canceled, [], 'no cancel was sent');
});
