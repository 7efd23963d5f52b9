// A streaming task whose record has grown large is written less often (write-pace.ts): its progress waits, merged,
// for a pause that grows with the record, while a state change is written at once. Real LMDB store, real event bus,
// the injected clock's timers; what a subscriber receives is what is checked.
import t, { type Test } from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskWriter } from '../../src/actors/task-writer.js';
import { progressPauseMs } from '../../src/actors/write-pace.js';
import type { TaskEvent } from '../../src/protocol/events.js';
import type { Artifact, Task } from '../../src/protocol/model.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { createLocalBus } from '../../src/runtime/events/bus.js';
import { openLmdbStore } from '../../src/runtime/store/lmdb/index.js';
import { taskKey } from '../../src/runtime/store/types.js';
import { sampleTask } from '../support/store-records.js';

const chunkParts = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ kind: 'text' as const, text: String((from + i) % 10) }));

/** the task with its one artifact holding `parts` one-character text parts */
const withParts = (task: Task, parts: number): Task => {
  const artifact: Artifact = { artifactId: 'out', index: 0, parts: chunkParts(parts) };
  return { ...task, artifacts: [artifact] };
};

/** `task` with `more` parts appended to its artifact (the very part objects kept, as an appended chunk does) */
const appended = (task: Task, more: number): Task => {
  const a = task.artifacts[0]!;
  return { ...task, artifacts: [{ ...a, parts: a.parts.concat(chunkParts(more, a.parts.length)) }] };
};

async function setup(t: Test) {
  const path = await mkdtemp(join(tmpdir(), 'a2a-pace-'));
  const store = await openLmdbStore({ path });
  const clock = new ManualClock();
  const bus = createLocalBus();
  const writer = new TaskWriter({ store: store.tasks, bus, retainEvents: 1_000_000, timers: clock });
  t.teardown(async () => {
    await store.close();
    await rm(path, { recursive: true, force: true });
  });
  const first = { ...sampleTask({ id: 'streaming' }), artifacts: [], history: [] };
  const seen: TaskEvent[][] = [];
  const batch: TaskEvent[] = [];
  bus.subscribe(taskKey(first.workspaceId, first.id), (evs) => batch.push(...evs));
  /** the events published since the last call, as one list */
  const published = () => {
    const out = batch.splice(0);
    if (out.length > 0) seen.push(out);
    return out;
  };
  const queue = writer.queue({ fresh: true });
  let current: Task | undefined;
  const change = (next: Task) => {
    const c = writer.sequence(current, next);
    current = c.record;
    queue.enqueue(c.record, c.events);
  };
  const stored = async () => (await store.tasks.get(first.workspaceId, first.id))!;
  /** runs the queue until what it holds is stored, or it waits on the clock (a pause armed): never on time alone */
  const settle = async () => {
    let stored = false;
    void queue.persisted.then(() => (stored = true));
    for (let i = 0; i < 100_000 && !stored && clock.pending === 0; i++) await new Promise((r) => setImmediate(r));
  };
  return { clock, first, change, queue, stored, settle, published, current: () => current! };
}

t.test('the pause grows with the record and is 0 for a small one', async (t) => {
  const task = { ...sampleTask({ id: 'p' }), artifacts: [], history: [] };
  t.equal(progressPauseMs(withParts(task, 100)), 0, 'a record of 100 parts is written at once');
  const at10k = progressPauseMs(withParts(task, 10_000));
  const at100k = progressPauseMs(withParts(task, 100_000));
  t.ok(at10k >= 1, `10,000 parts wait ${at10k} ms`);
  t.ok(at100k > at10k * 5, `100,000 parts wait longer: ${at100k} ms`);
  t.equal(progressPauseMs(withParts(task, 10_000_000)), 250, 'the pause is capped');
  const bigText = { ...task, artifacts: [{ artifactId: 'out', index: 0, parts: [{ kind: 'text' as const, text: 'x'.repeat(8 * 1024 * 1024) }] }] };
  t.ok(progressPauseMs(bigText) >= 1, 'one long text counts too');
});

t.test("a large record's progress waits for its pause, merged into one write, with every event in order", async (t) => {
  const s = await setup(t);
  s.change(withParts(s.first, 50_000));
  await s.queue.persisted;
  const firstEvents = s.published();
  t.ok(firstEvents.length > 0, 'the first write goes out at once');
  const pause = progressPauseMs(s.current());
  t.ok(pause >= 5, `a 50,000-part record pauses its next progress write (${pause} ms)`);

  // three bursts of progress while the pause runs: nothing is stored or told yet
  s.change(appended(s.current(), 10));
  await s.settle();
  s.change(appended(s.current(), 10));
  s.change(appended(s.current(), 10));
  await s.settle();
  t.same(s.published(), [], 'no progress is told before the pause ends');
  t.equal((await s.stored()).artifacts[0]!.parts.length, 50_000, 'nor stored');

  s.clock.advance(Math.ceil(pause));
  await s.queue.persisted;
  const told = s.published();
  t.equal(told.length, 3, 'the three chunks are told once the pause ends');
  t.same(
    told.map((e) => e.seq),
    [told[0]!.seq, told[0]!.seq + 1, told[0]!.seq + 2],
    'in order, none lost',
  );
  t.equal((await s.stored()).artifacts[0]!.parts.length, 50_030, 'and stored in one write');
});

t.test('a state change ends the pause at once, with the progress held before it', async (t) => {
  const s = await setup(t);
  s.change(withParts(s.first, 50_000));
  await s.queue.persisted;
  s.published();
  s.change(appended(s.current(), 5));
  await s.settle();
  t.same(s.published(), [], 'progress waits');
  const done = appended(s.current(), 1);
  s.change({ ...done, status: { state: 'completed', timestamp: new Date(s.clock.now()).toISOString() } });
  await s.queue.persisted; // no clock advance: the completion does not wait for the pause
  const told = s.published();
  t.same(
    told.map((e) => e.kind),
    ['artifact', 'artifact', 'status'],
    'the held chunk, the last chunk, then the completion',
  );
  const stored = await s.stored();
  t.equal(stored.status.state, 'completed');
  t.equal(stored.artifacts[0]!.parts.length, 50_006);
  t.equal(s.clock.pending, 0, 'no pause timer is left behind');
});

t.test("a small record's progress is written at once", async (t) => {
  const s = await setup(t);
  s.change(withParts(s.first, 10));
  await s.queue.persisted;
  s.published();
  s.change(appended(s.current(), 1));
  await s.queue.persisted;
  t.equal(s.published().length, 1, 'told without any clock advance');
  t.equal(s.clock.pending, 0, 'no timer armed');
  t.equal((await s.stored()).artifacts[0]!.parts.length, 11);
});
