// The A2A client against a second instance of this gateway (real server on loopback, real LMDB), spoken to in 1.0
// (read from its card), in rev B and in rev A (forced): blocking sends, a multi-turn follow-up, SSE, polling with backoff on a
// ManualClock, the overall timeout, a cancel that reaches the remote, the gateway's own bearer check.
import t from 'tap';
import type { Credentials, RemoteTask } from '../../src/protocol/connections.js';
import type { Dialect, TaskState } from '../../src/protocol/model.js';
import { backoffDelay } from '../../src/runtime/push/backoff.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { OutboundError, type RemoteEndpoint, type RemoteEvent } from '../../src/runtime/a2a-client/types.js';
import { recordingTimers, testClient, until, userMessage } from '../support/a2a-client.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
let key: string;

t.before(async () => {
  gw = await startTestGateway();
  key = (await gw.key({ trust: 'admin' })).key;
});
t.teardown(() => gw.close());

const bearer = (): Credentials => ({ kind: 'bearer', token: key });
/** the gateway's per-agent endpoint (its card is under it), in a forced dialect or the card's */
const at = (agent: string, dialect?: Dialect): RemoteEndpoint => ({
  url: `${gw.url}/api/a2a/agents/${agent}`,
  credentials: bearer(),
  ...(dialect && { dialect }),
});
const slowMessage = (ms: number, steps: number) => userMessage('', { parts: [{ kind: 'data', data: { ms, steps } }] });
/** what the remote gateway itself holds for that task */
const stored = (id: string) => gw.gw.store.tasks.get('ws1', id);
const remoteState = async (id: string): Promise<TaskState | undefined> => (await stored(id))?.status.state;
/** ids of every task the remote holds now: a task started later is not among them */
const knownIds = async () =>
  new Set((await gw.gw.store.tasks.listByState(['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed'])).map((x) => x.id));
/** the id of a slow task of that dialect the remote runs now that was not known before */
async function newWorkingSlow(before: Set<string>, dialect: Dialect): Promise<string | undefined> {
  return (await gw.gw.store.tasks.listByState(['working'])).find((x) => x.agentId === 'slow' && x.dialect === dialect && !before.has(x.id))?.id;
}

const DIALECTS: Array<[string, Dialect | undefined, Dialect]> = [
  ['1.0, read from the card (it offers 1.0 first)', undefined, 'V1'],
  ['rev B, forced', 'B', 'B'],
  ['rev A, forced', 'A', 'A'],
];

for (const [name, forced, spoken] of DIALECTS) {
  t.test(`${name}: discovery, a blocking send to echo, get`, async (t) => {
    const c = testClient();
    t.teardown(() => c.close());
    const d = await c.discover(at('echo', forced));
    t.equal(d.dialect, spoken);
    t.equal(d.card.url, `${gw.url}/api/a2a/agents/echo`, 'the JSON-RPC endpoint is the one the card names');
    t.equal(d.card.streaming, true);

    const task = await c.send({ endpoint: at('echo', forced), message: userMessage('hello remote') });
    t.equal(task.status.state, 'completed', 'the blocking answer is the settled task');
    t.same(
      task.artifacts.map((a) => a.parts),
      [[{ kind: 'text', text: 'hello remote' }]],
    );
    t.type(task.contextId, 'string');
    const held = await stored(task.id);
    t.equal(held?.dialect, spoken, `the remote took the task in rev ${spoken}`);
    t.equal(held?.agentId, 'echo');

    const got = await c.get({ endpoint: at('echo', forced), taskId: task.id });
    t.equal(got.status.state, 'completed');
    t.same(got.artifacts, task.artifacts);
    const missing = await c.get({ endpoint: at('echo', forced), taskId: 'no-such-task' }).catch((e: unknown) => e);
    t.match(missing, { code: 'remote_error', remoteCode: -32001 });
  });

  t.test(`${name}: a follow-up continues a task that asked for input (converse)`, async (t) => {
    const c = testClient();
    t.teardown(() => c.close());
    const endpoint = at('converse', forced);
    const first = await c.send({ endpoint, message: userMessage('first point') });
    t.equal(first.status.state, 'input-required', 'a task waiting for input is settled for the send');
    t.match(first.status.message?.parts[0], { kind: 'text', text: /Turn 1/ });
    const second = await c.send({ endpoint, message: userMessage('second point'), taskId: first.id, ...(first.contextId && { contextId: first.contextId }) });
    t.equal(second.id, first.id, 'the same remote task');
    t.equal(second.status.state, 'input-required');
    t.match(second.status.message?.parts[0], { kind: 'text', text: /Turn 2/ });
    const done = await c.send({ endpoint, message: userMessage('done'), taskId: first.id });
    t.equal(done.status.state, 'completed');
    t.match(done.artifacts[0]?.parts[0], { kind: 'text', text: /^3 user turns:\n1\. first point\n2\. second point\n3\. done/ });
    const again = await c.send({ endpoint, message: userMessage('more'), taskId: first.id }).catch((e: unknown) => e);
    // 1.0 names the condition UnsupportedOperationError (-32004); the revisions read it as invalid params
    const code = spoken === 'V1' ? -32004 : -32602;
    t.match(again, { code: 'remote_error', remoteCode: code }, 'a follow-up to a completed task is the remote’s error, with its code');
  });

  t.test(`${name}: a streamed multi-turn task: each turn's stream ends with its own answer`, async (t) => {
    const c = testClient();
    t.teardown(() => c.close());
    const endpoint = at('converse', forced);
    const first = await c.send({ endpoint, message: userMessage('alpha'), stream: true });
    t.equal(first.status.state, 'input-required');
    t.match(first.status.message?.parts[0], { kind: 'text', text: /Turn 1/ });
    const second = await c.send({ endpoint, message: userMessage('beta'), taskId: first.id, stream: true });
    t.equal(second.status.state, 'input-required');
    t.match(second.status.message?.parts[0], { kind: 'text', text: /Turn 2: got "beta"/ }, 'not the first turn’s answer');
    const done = await c.send({ endpoint, message: userMessage('done'), taskId: first.id, stream: true });
    t.equal(done.status.state, 'completed');
    t.match(done.artifacts.at(-1)?.parts[0], { kind: 'text', text: /^3 user turns:/ });
  });

  t.test(`${name}: streaming over SSE, each event as it arrives, the artifact chunks folded`, async (t) => {
    const c = testClient();
    t.teardown(() => c.close());
    const events: RemoteEvent[] = [];
    // 300 ms before the first chunk: a rev A stream opened after a chunk would start with a status snapshot, without it
    const task = await c.send({ endpoint: at('slow', forced), message: slowMessage(900, 3), stream: true, onEvent: (e) => events.push(e) });
    t.equal(task.status.state, 'completed');
    // a stream that opens after the first chunk starts with the task holding it: count chunks wherever they came
    const chunks = events.flatMap((e) => (e.kind === 'artifact' ? e.artifact.parts : e.kind === 'task' ? e.task.artifacts.flatMap((a) => a.parts) : []));
    t.equal(chunks.length, 3, 'three chunks streamed');
    t.ok(events.filter((e) => e.kind === 'artifact').length >= 2, 'chunks came as artifact events');
    const statuses = events.flatMap((e) => (e.kind === 'status' ? [`${e.status.state}${e.final ? ' final' : ''}`] : []));
    t.equal(statuses.at(-1), 'completed final');
    t.ok(statuses.filter((s) => s === 'working').length >= 2, 'progress came while it worked');
    t.same(
      task.artifacts[0]?.parts.map((p) => (p.kind === 'text' ? p.text : '')),
      ['chunk 1/3\n', 'chunk 2/3\n', 'chunk 3/3\n'],
      'the chunks make one artifact',
    );
    t.equal(await remoteState(task.id), 'completed');
  });

  t.test(`${name}: aborting cancels the remote task and rejects with canceled`, async (t) => {
    const c = testClient();
    t.teardown(() => c.close());
    const ctl = new AbortController();
    let remoteId: string | undefined;
    const before = await knownIds();
    // rev A knows the task's id before any answer (the client picks it); rev B learns it from the stream's first event
    const sent = c.send({
      endpoint: at('slow', forced),
      message: slowMessage(60_000, 600),
      stream: spoken !== 'A',
      signal: ctl.signal,
      onEvent: (e) => {
        remoteId ??= e.kind === 'task' ? e.task.id : e.taskId;
      },
    });
    let working: string | undefined;
    await until(async () => {
      working = await newWorkingSlow(before, spoken);
      return working !== undefined && (spoken === 'A' || remoteId !== undefined);
    }, 'the remote task to be working');
    ctl.abort();
    const err = await sent.catch((e: unknown) => e);
    t.ok(err instanceof OutboundError);
    t.match(err, { code: 'canceled' });
    t.equal(await remoteState(working!), 'canceled', 'the remote task ended canceled');
  });

  t.test(`${name}: the overall timeout ends the wait (ManualClock) and cancels the remote task`, async (t) => {
    const clock = new ManualClock(Date.now());
    const c = testClient({ clock, timers: clock, timeoutMs: 30_000 });
    t.teardown(() => c.close());
    let remoteId: string | undefined;
    const before = await knownIds();
    const sent = c.send({
      endpoint: at('slow', forced),
      message: slowMessage(60_000, 600),
      stream: spoken !== 'A',
      onEvent: (e) => {
        remoteId ??= e.kind === 'task' ? e.task.id : e.taskId;
      },
    });
    let working: string | undefined;
    await until(async () => {
      working = await newWorkingSlow(before, spoken);
      return working !== undefined && (spoken === 'A' || remoteId !== undefined);
    }, 'the remote task to be working');
    clock.advance(29_999);
    t.equal(await remoteState(working!), 'working', 'not before the deadline');
    clock.advance(1);
    const err = await sent.catch((e: unknown) => e);
    t.match(err, { code: 'timeout', message: /within 30000 ms/ });
    t.equal(await remoteState(working!), 'canceled');
  });
}

t.test('polling: a non-blocking answer (working), then tasks/get with backoff on a ManualClock until it settles', async (t) => {
  const clock = new ManualClock(Date.now());
  const timers = recordingTimers(clock, 10_000);
  // the remote settles on real time while this clock moves only by polls: under load that took 500 polls, 380 s on
  // this clock, past the default 5 min deadline of the send; the deadline is not what this test is about
  const c = testClient({ clock, timers, blocking: false, pollBaseMs: 100, pollMaxMs: 800, random: () => 0.5, timeoutMs: 86_400_000 });
  t.teardown(() => c.close());
  const seen: RemoteEvent[] = [];
  let settled = false;
  const sent = c.send({ endpoint: at('slow'), message: slowMessage(400, 2), onEvent: (e) => seen.push(e) });
  const outcome = sent.then(
    (task) => ({ task }),
    (error: unknown) => ({ error }),
  );
  void outcome.finally(() => {
    settled = true;
  });
  let polls = 0;
  for (;;) {
    await until(() => timers.armed > 0 || settled, 'a poll to be due or the send to end');
    if (settled) break;
    const wait = timers.waits.at(-1)!;
    t.equal(
      wait,
      backoffDelay({ baseMs: 100, maxMs: 800 }, polls + 1, () => 0.5),
      `poll ${polls + 1} waits per the backoff`,
    );
    clock.advance(wait - 1);
    t.equal(timers.armed, 1, 'not a moment early');
    clock.advance(1);
    polls++;
  }
  const { task } = (await outcome) as { task: RemoteTask };
  t.equal(task.status.state, 'completed');
  t.ok(polls >= 1, `polled ${polls} times`);
  t.match(seen[0], { kind: 'task', task: { status: { state: /^(submitted|working)$/ } } }, 'the first answer came at once, not settled');
  t.match(seen.at(-1), { kind: 'task', task: { status: { state: 'completed' } } }, 'the poll that saw the end reported it');
  t.same(timers.waits.slice(0, 5), [75, 150, 300, 600, 600].slice(0, Math.min(5, timers.waits.length)), 'doubling from the base, capped at the max');
});

t.test('cancelRemote false: an abort only stops waiting, the remote task runs on', async (t) => {
  const c = testClient();
  t.teardown(() => c.close());
  const ctl = new AbortController();
  const before = await knownIds();
  const sent = c.send({ endpoint: at('slow', 'A'), message: slowMessage(60_000, 600), signal: ctl.signal, cancelRemote: false });
  let working: string | undefined;
  await until(async () => (working = await newWorkingSlow(before, 'A')) !== undefined, 'the remote task to be working');
  ctl.abort();
  t.match(await sent.catch((e: unknown) => e), { code: 'canceled' });
  t.equal(await remoteState(working!), 'working', 'still working');
  const canceled = await c.cancel({ endpoint: at('slow', 'A'), taskId: working! });
  t.equal(canceled.status.state, 'canceled', 'cancel() ends it on request');
});

t.test("the gateway's own bearer check: a wrong key is unauthorized, nothing runs", async (t) => {
  const c = testClient();
  t.teardown(() => c.close());
  const before = (await gw.gw.store.tasks.listByState(['completed'])).length;
  const endpoint: RemoteEndpoint = { url: `${gw.url}/api/a2a/agents/echo`, credentials: { kind: 'bearer', token: 'svc_a2a_wrong' } };
  const err = await c.send({ endpoint, message: userMessage('x') }).catch((e: unknown) => e);
  t.match(err, { code: 'unauthorized', message: /HTTP 401/ });
  t.notMatch((err as Error).message, /svc_a2a_wrong/, 'the secret is not in the error');
  const none = await c.send({ endpoint: { ...endpoint, credentials: { kind: 'none' } }, message: userMessage('x') }).catch((e: unknown) => e);
  t.match(none, { code: 'unauthorized' });
  t.equal((await gw.gw.store.tasks.listByState(['completed'])).length, before, 'no task was made');
});
