// Folding agent events into a task, batch by batch: a batch gives the task the same events one at a time would, the
// task before a batch is never changed by it, and the stored change's events (diffTask) carry exactly the new parts.
import t from 'tap';
import type { AgentEvent } from '../../src/protocol/agent-events.js';
import { diffTask } from '../../src/protocol/events.js';
import type { Task } from '../../src/protocol/model.js';
import { applyAgentEvents, type TaskContext } from '../../src/actors/task-updates.js';

const T0 = Date.UTC(2026, 0, 1);

function context(): TaskContext {
  return {
    task: {
      id: 'task-1',
      contextId: 'ctx-1',
      workspaceId: 'ws-1',
      agentId: 'echo',
      dialect: 'B',
      status: { state: 'working', timestamp: new Date(T0).toISOString() },
      artifacts: [{ artifactId: 'kept', index: 0, parts: [{ kind: 'text', text: 'before' }] }],
      history: [{ role: 'user', parts: [{ kind: 'text', text: 'go' }], messageId: 'm-1', taskId: 'task-1', contextId: 'ctx-1' }],
      metadata: {},
      createdAt: T0,
      updatedAt: T0,
    },
    pendingFinal: undefined,
  };
}

const text = (s: string) => ({ kind: 'text' as const, text: s });

/** What a caller sees of a task: message ids are random, so they are left out. */
const seen = (task: Task) => ({
  status: { state: task.status.state, message: task.status.message?.parts },
  artifacts: task.artifacts,
  history: task.history.map((m) => ({ role: m.role, parts: m.parts })),
  updatedAt: task.updatedAt,
});

const SEQUENCES: Record<string, AgentEvent[]> = {
  'chunks appended by id, then closed': [
    { type: 'artifact', artifact: { artifactId: 'out', parts: [text('a')] } },
    { type: 'artifact', artifact: { artifactId: 'out', parts: [text('b')], append: true } },
    { type: 'artifact', artifact: { artifactId: 'out', parts: [text('c'), text('d')], append: true, lastChunk: true } },
  ],
  'appends to an artifact the task held before the batch': [
    { type: 'artifact', artifact: { artifactId: 'kept', parts: [text('1')], append: true } },
    { type: 'artifact', artifact: { artifactId: 'kept', parts: [text('2')], append: true } },
  ],
  'appends by index; a chunk without id or index gets the next index': [
    { type: 'artifact', artifact: { index: 0, parts: [text('x')], append: true } },
    { type: 'artifact', artifact: { parts: [text('new')] } },
    { type: 'artifact', artifact: { index: 1, parts: [text('more')], append: true } },
    { type: 'artifact', artifact: { parts: [text('newer')] } },
  ],
  'a replacement under the same id, then appends to the replacement': [
    { type: 'artifact', artifact: { artifactId: 'kept', parts: [text('a')], append: true } },
    { type: 'artifact', artifact: { artifactId: 'kept', parts: [text('fresh')] } },
    { type: 'artifact', artifact: { artifactId: 'kept', parts: [text('tail')], append: true } },
  ],
  'a replacement by index under another index: lookups follow it': [
    { type: 'artifact', artifact: { artifactId: 'kept', index: 5, parts: [text('moved')] } },
    { type: 'artifact', artifact: { index: 0, parts: [text('zero again')], append: true } },
    { type: 'artifact', artifact: { index: 5, parts: [text('+five')], append: true } },
    { type: 'artifact', artifact: { parts: [text('after five')] } },
  ],
  'an append to an unknown artifact starts it': [{ type: 'artifact', artifact: { artifactId: 'nobody', parts: [text('first')], append: true } }],
  'messages and a working status between chunks': [
    { type: 'artifact', artifact: { artifactId: 'out', parts: [text('a')] } },
    { type: 'message', message: { parts: [text('thinking')] } },
    { type: 'status', state: 'working', message: { parts: [text('half way')] } },
    { type: 'artifact', artifact: { artifactId: 'out', parts: [text('b')], append: true } },
    { type: 'message', message: { parts: [text('done')] } },
  ],
  'a closing status with its message': [
    { type: 'artifact', artifact: { artifactId: 'out', parts: [text('a')] } },
    { type: 'status', state: 'input-required', message: { parts: [text('which one?')] } },
  ],
  'a closing status without a message': [{ type: 'status', state: 'completed' }],
};

t.test('a batch folds into the task exactly as the same events one at a time', async (t) => {
  for (const [name, events] of Object.entries(SEQUENCES)) {
    const batched = applyAgentEvents(context(), events, T0 + 1);
    let single = context();
    for (const ev of events) single = applyAgentEvents(single, [ev], T0 + 1);
    t.same(seen(batched.task), seen(single.task), name);
    t.equal(batched.pendingFinal, single.pendingFinal, `${name}: the closing state`);
    t.same(batched.pendingMessage?.parts, single.pendingMessage?.parts, `${name}: the closing message`);
  }
  const closed = applyAgentEvents(context(), SEQUENCES['chunks appended by id, then closed']!, T0 + 1);
  t.same(
    closed.task.artifacts[1],
    { artifactId: 'out', index: 1, parts: [text('a'), text('b'), text('c'), text('d')], lastChunk: true },
    'chunks join their artifact in order, with the last chunk flag',
  );
  const moved = applyAgentEvents(context(), SEQUENCES['a replacement by index under another index: lookups follow it']!, T0 + 1);
  t.same(
    moved.task.artifacts.map((a) => [a.artifactId, a.index, a.parts.map((p) => ('text' in p ? p.text : ''))]),
    [
      ['kept', 5, ['moved', '+five']],
      ['task-1-artifact-0', 0, ['zero again']],
      ['task-1-artifact-6', 6, ['after five']],
    ],
    'after a move, index 0 is free (a new artifact takes it) and the next index counts from the highest',
  );
});

t.test('the task before a batch is never changed by it, nor by the batches after it', async (t) => {
  const before = context();
  const frozen = structuredClone(before);
  const first = applyAgentEvents(before, SEQUENCES['appends to an artifact the task held before the batch']!, T0 + 1);
  t.same(before, frozen, 'the context a batch started from is as it was');
  const firstSeen = structuredClone(first);
  const second = applyAgentEvents(
    first,
    [...SEQUENCES['appends to an artifact the task held before the batch']!, { type: 'message', message: { parts: [text('x')] } }],
    T0 + 2,
  );
  t.same(first, firstSeen, 'the result of one batch is not changed by the next (streams diff one against the other)');
  t.equal(second.task.artifacts[0]?.parts.length, 5, 'the next batch builds on it');
  t.equal(second.task.history.length, 2);
  t.equal(applyAgentEvents(first, [], T0 + 3), first, 'an empty batch changes nothing');
});

t.test("a batch's stored change carries exactly its new parts, as one appended chunk per artifact", async (t) => {
  const start = context();
  const chunks: AgentEvent[] = Array.from({ length: 500 }, (_, i) => ({
    type: 'artifact',
    artifact: { artifactId: 'kept', parts: [text(String(i))], append: true },
  }));
  const next = applyAgentEvents(start, chunks, T0 + 1);
  const events = diffTask(start.task, next.task);
  t.equal(events.length, 1, 'one event');
  const ev = events[0]!;
  t.equal(ev.kind, 'artifact');
  if (ev.kind !== 'artifact') return;
  t.equal(ev.append, true, 'it is an append');
  t.same(
    ev.artifact.parts.map((p) => ('text' in p ? p.text : '')),
    chunks.map((_, i) => String(i)),
    'with the new parts only, in order',
  );
  const replaced = applyAgentEvents(next, [{ type: 'artifact', artifact: { artifactId: 'kept', parts: [text('all new')] } }], T0 + 2);
  const again = diffTask(next.task, replaced.task);
  t.match(again, [{ kind: 'artifact', append: false, artifact: { parts: [text('all new')] } }], 'a replacement is sent whole, not as an append');
});

t.test('a long stream of one-part chunks keeps every part, in order', async (t) => {
  // 100,000 chunks in batches of 64: the size a fast agent reaches within tasks.maxTaskBytes
  let ctx = context();
  let prev = ctx.task;
  let appended = 0;
  for (let i = 0; i < 100_000; i += 64) {
    const batch: AgentEvent[] = [];
    for (let j = i; j < Math.min(i + 64, 100_000); j++) batch.push({ type: 'artifact', artifact: { artifactId: 'kept', parts: [text('y')], append: true } });
    ctx = applyAgentEvents(ctx, batch, T0 + 1);
    for (const ev of diffTask(prev, ctx.task)) if (ev.kind === 'artifact' && ev.append) appended += ev.artifact.parts.length;
    prev = ctx.task;
  }
  t.equal(ctx.task.artifacts[0]?.parts.length, 100_001, 'the artifact holds the part before the stream and every chunk');
  t.equal(appended, 100_000, "the stored changes' events carry each chunk once");
});
