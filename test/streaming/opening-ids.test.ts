// The ids of a stream's opening (the task as it stands), over real HTTP with LMDB in a temp dir: a rev A opening is
// several events (each artifact, then the status), and each has an id of its own, so that resuming with Last-Event-ID
// from any of them gives exactly the events after it: none skipped, none twice.
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { DEMO_AGENTS } from '../../src/demo-agents.js';
import { startTestGateway, msgA, type TestGateway } from '../support/gateway.js';
import { openSse, type SseFrame } from '../support/sse.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/agents/${name}`, import.meta.url));
const REV_A = { 'A2A-Version': '0.1' };

let gw: TestGateway;
let key: string;
t.before(async () => {
  gw = await startTestGateway({
    config: {
      agents: [
        ...DEMO_AGENTS,
        { id: 'pair', name: 'Pair', kind: 'module', entry: fixture('two-artifacts.js') },
        { id: 'pair-ask', name: 'Pair that asks', kind: 'module', entry: fixture('two-artifacts.js'), options: { ask: true } },
      ],
    },
  });
  key = (await gw.key()).key;
});
t.teardown(() => gw.close());

let n = 0;
/** A rev A task sent to `agentId`, answered when it settled (rev A sends wait). */
async function settledTask(agentId: string): Promise<string> {
  const id = `opening-${++n}`;
  const sent = await gw.rpc({ key, method: 'tasks/send', params: msgA('hi', { id, metadata: { agentId } }) });
  t.ok(['completed', 'input-required'].includes(sent.json.result?.status?.state), `${id} settled`);
  return id;
}
const resubscribe = async (id: string, lastEventId?: string) =>
  (
    await openSse({
      url: gw.url,
      key,
      method: 'tasks/resubscribe',
      params: { id },
      headers: { ...REV_A, ...(lastEventId !== undefined && { 'Last-Event-ID': lastEventId }) },
    })
  ).all();
const shapes = (frames: SseFrame[]) => frames.map((f) => [f.id, f.data?.result ?? f.data?.error]);

t.test('rev A tasks/sendSubscribe of a task settled before its stream opened: one id per event, a resume continues after it', async (t) => {
  await settledTask('echo'); // the pool is warm: the next echo task settles before its stream reads it
  let frames: SseFrame[] = [];
  for (let i = 0; i < 10 && !(frames.length === 2 && frames[0]!.data.result.artifact); i++) {
    const s = await openSse({ url: gw.url, key, method: 'tasks/sendSubscribe', params: msgA('hello', { id: `sub-${i}` }) });
    frames = await s.all();
  }
  t.equal(frames.length, 2, 'the settled task as it stands: its artifact, then its final status');
  const [artifact, status] = frames as [SseFrame, SseFrame];
  t.equal(artifact.data.result.artifact.parts[0].text, 'hello');
  t.equal(status.data.result.status.state, 'completed');
  t.equal(status.data.result.final, true);
  t.not(artifact.id, status.id, `each event has its own id (${artifact.id}, ${status.id})`);

  const taskId: string = status.data.result.id;
  const afterFirst = await resubscribe(taskId, artifact.id!);
  t.strictSame(shapes(afterFirst), shapes([status]), 'from the first event: the second, and nothing before it');
  t.strictSame(await resubscribe(taskId, status.id!), [], 'from the last: nothing, and the stream ends');
});

t.test('rev A tasks/resubscribe of a settled task with two artifacts: a resume from each event gives exactly the rest', async (t) => {
  const id = await settledTask('pair');
  const frames = await resubscribe(id);
  t.strictSame(
    frames.map((f) => f.data.result.artifact?.name ?? f.data.result.status.state),
    ['first', 'second', 'completed'],
    'its artifacts, then its status',
  );
  const ids = frames.map((f) => f.id);
  t.equal(new Set(ids).size, 3, `three ids (${ids.join(', ')})`);
  for (let i = 0; i < frames.length; i++) {
    t.strictSame(shapes(await resubscribe(id, frames[i]!.id!)), shapes(frames.slice(i + 1)), `from event ${i + 1}: the events after it`);
  }
  // the task did not move: the same opening again, with the same ids
  t.strictSame(shapes(await resubscribe(id)), shapes(frames), 'the opening is the same each time');
  // ids it never sent: an opening's position past its last-but-one event, or at a seq the task never reached
  const seq = ids[2]!;
  for (const never of [`${seq}:3`, `${seq}:0`, `${seq}:`, `${Number(seq) + 1}:1`]) {
    const [err] = await resubscribe(id, never);
    t.equal(err?.data?.error?.code, -32602, `'${never}' is refused`);
    t.equal(err?.data?.error?.data?.path, 'Last-Event-ID');
  }
});

t.test('a resume from an opening whose task moved on since starts with the task as it stands, skipping nothing', async (t) => {
  const id = await settledTask('pair-ask');
  const opening = await resubscribe(id);
  t.strictSame(
    opening.map((f) => f.data.result.artifact?.name ?? f.data.result.status.state),
    ['first', 'second', 'input-required'],
  );
  // the follow-up appends to the first artifact and completes the task
  const more = await gw.rpc({ key, method: 'tasks/send', params: msgA('go on', { id }) });
  t.equal(more.json.result.status.state, 'completed');

  // the client had the first artifact of the opening only: it must still learn of the second one and the end
  const rest = await resubscribe(id, opening[0]!.id!);
  t.strictSame(
    rest.map((f) => [f.data.result.artifact?.name ?? f.data.result.status.state, f.data.result.artifact?.parts.map((p: { text: string }) => p.text).join('')]),
    [
      ['first', 'one more'],
      ['second', 'two'],
      ['completed', undefined],
    ],
    'the task as it stands now, whole',
  );
  t.equal(new Set(rest.map((f) => f.id)).size, 3, 'each with its own id');
  t.equal(rest[2]!.data.result.final, true);
});

t.test('a Last-Event-ID older than the kept events: the opening that replaces the replay has one id per event too', async (t) => {
  const small = await startTestGateway({
    config: {
      agents: [{ id: 'pair', name: 'Pair', kind: 'module', entry: fixture('two-artifacts.js') }],
      streaming: { eventRetention: 2 },
    },
  });
  t.teardown(() => small.close());
  const k = (await small.key()).key;
  const id = 'gap-1';
  const sent = await small.rpc({ key: k, method: 'tasks/send', params: msgA('hi', { id, metadata: { agentId: 'pair' } }) });
  t.equal(sent.json.result.status.state, 'completed');
  const from = async (lastEventId: string) =>
    (await openSse({ url: small.url, key: k, method: 'tasks/resubscribe', params: { id }, headers: { 'Last-Event-ID': lastEventId } })).all();
  // event 1 (the task's creation) is no longer kept: the stream starts with the task as it stands
  const frames = await from('1');
  t.strictSame(
    frames.map((f) => f.data.result.artifact?.name ?? f.data.result.status.state),
    ['first', 'second', 'completed'],
  );
  t.equal(new Set(frames.map((f) => f.id)).size, 3, 'three ids');
  t.strictSame(shapes(await from(frames[0]!.id!)), shapes(frames.slice(1)), 'from the first: the two after it');
});
