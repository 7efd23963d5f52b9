// The LMDB task index: one `task-state` entry (state and seq) per task, no by-state entry for a terminal task, and
// data dirs written by the earlier layout (seq in `task-seq`, every state in `tasks-by-state`) read and swept as before.
import t, { type Test } from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { LMDB_DBS, openLmdbStore } from '../../src/runtime/store/lmdb/index.js';
import { taskKey, type Store } from '../../src/runtime/store/types.js';
import type { TaskState } from '../../src/protocol/model.js';
import { ALL_STATES } from '../support/tasks.js';
import { sampleTask } from '../support/store-records.js';

const T = Date.UTC(2026, 0, 1);

async function withDir(t: Test): Promise<string> {
  const path = await mkdtemp(join(tmpdir(), 'a2a-task-index-'));
  t.teardown(() => rm(path, { recursive: true, force: true }));
  return path;
}

async function openStore(t: Test, path: string): Promise<Store> {
  const s = await openLmdbStore({ path });
  t.teardown(() => s.close());
  return s;
}

/** Every raw index entry naming the task key: what the layout holds for it. */
async function indexEntries(path: string, key: string): Promise<Record<string, unknown[]>> {
  const raw = open({ path, noSubdir: false, maxDbs: 32 });
  const out: Record<string, unknown[]> = {};
  const dbs = {
    'task-state': raw.openDB({ name: LMDB_DBS.taskState, encoding: 'string' }),
    'task-seq': raw.openDB({ name: LMDB_DBS.taskSeq }),
    'tasks-by-state': raw.openDB({ name: LMDB_DBS.tasksByState, dupSort: true, encoding: 'ordered-binary' }),
  };
  for (const [name, db] of Object.entries(dbs)) {
    out[name] = [];
    for (const { key: k, value } of db.getRange()) if (k === key || value === key) out[name]!.push(name === 'tasks-by-state' ? k : value);
  }
  await raw.close();
  return out;
}

/** Writes a task as the earlier build did: the record, its state alone, its seq apart, a by-state entry whatever the state. */
async function plantLegacy(path: string, o: { id: string; state: TaskState; seq: number; endedAt?: number }): Promise<void> {
  const raw: RootDatabase = open({ path, noSubdir: false, maxDbs: 32 });
  const key = taskKey('ws-a', o.id);
  const task = { ...sampleTask({ id: o.id, state: o.state }), seq: o.seq, updatedAt: o.endedAt ?? T };
  await raw.transaction(() => {
    raw.openDB({ name: LMDB_DBS.tasks, useRecords: false } as never).put(key, task);
    raw.openDB<string, string>({ name: LMDB_DBS.taskState, encoding: 'string' }).put(key, o.state);
    raw.openDB({ name: LMDB_DBS.taskSeq, useRecords: false } as never).put(key, o.seq);
    raw.openDB({ name: LMDB_DBS.tasksByState, dupSort: true, encoding: 'ordered-binary' }).put(o.state, key);
    if (o.endedAt !== undefined) raw.openDB({ name: LMDB_DBS.tasksEnded, encoding: 'msgpack', keyEncoding: 'ordered-binary' }).put([o.endedAt, key], true);
  });
  await raw.close();
}

const ids = (tasks: Array<{ id: string }>) => tasks.map((x) => x.id).sort();

t.test('a terminal task keeps one state entry and no by-state entry; an unfinished one is listed by its state', async (t) => {
  const path = await withDir(t);
  const s = await openStore(t, path);
  t.equal(await s.tasks.create({ ...sampleTask({ id: 'run', state: 'working' }), seq: 1 }), true);
  t.equal(await s.tasks.create({ ...sampleTask({ id: 'done', state: 'completed' }), seq: 3 }), true);
  t.strictSame(await indexEntries(path, 'ws-a/done'), { 'task-state': ['completed 3'], 'task-seq': [], 'tasks-by-state': [] });
  t.strictSame(await indexEntries(path, 'ws-a/run'), { 'task-state': ['working 1'], 'task-seq': [], 'tasks-by-state': ['working'] });

  t.equal(await s.tasks.put({ ...sampleTask({ id: 'run', state: 'failed' }), seq: 2 }, { expectSeq: 1 }), true);
  t.strictSame(await indexEntries(path, 'ws-a/run'), { 'task-state': ['failed 2'], 'task-seq': [], 'tasks-by-state': [] }, 'ending drops its by-state entry');
  t.strictSame(ids(await s.tasks.listByState(['working'])), []);
  t.strictSame(ids(await s.tasks.listByState(['completed', 'failed'])), ['done', 'run'], 'terminal states are still listed');
  t.strictSame(ids(await s.tasks.listByState(['failed'])), ['run']);
});

t.test('a data dir of the earlier layout: its seq still guards puts, its tasks are listed once, and the sweep leaves nothing', async (t) => {
  const path = await withDir(t);
  await plantLegacy(path, { id: 'old-run', state: 'working', seq: 4 });
  await plantLegacy(path, { id: 'old-done', state: 'completed', seq: 2, endedAt: T });
  const s = await openStore(t, path);

  t.strictSame(ids(await s.tasks.listByState(ALL_STATES)), ['old-done', 'old-run'], 'each listed once');
  t.strictSame(ids(await s.tasks.listByState(['completed'])), ['old-done']);
  t.strictSame(ids(await s.tasks.listByState(['working'])), ['old-run']);

  const next = { ...sampleTask({ id: 'old-run', state: 'input-required' }), seq: 5 };
  t.equal(await s.tasks.put(next, { expectSeq: 3 }), false, 'the seq kept apart still refuses a stale writer');
  t.equal(await s.tasks.put(next, { expectSeq: 4 }), true, 'and admits the writer at that seq');
  t.strictSame(
    await indexEntries(path, 'ws-a/old-run'),
    { 'task-state': ['input-required 5'], 'task-seq': [], 'tasks-by-state': ['input-required'] },
    'the write moves it to the new layout',
  );
  t.equal(await s.tasks.put({ ...next, seq: 6 }, { expectSeq: 4 }), false, 'its seq is now the folded one');
  t.equal(await s.tasks.create({ ...sampleTask({ id: 'old-done', state: 'working' }), seq: 1 }), false, 'a legacy task blocks a create');
  t.equal(await s.tasks.put({ ...sampleTask({ id: 'old-done', state: 'working' }), seq: 3 }), false, 'a legacy terminal task stays terminal');

  t.strictSame(await s.tasks.sweep({ endedBy: T, limit: 10 }), ['ws-a/old-done']);
  t.strictSame(await indexEntries(path, 'ws-a/old-done'), { 'task-state': [], 'task-seq': [], 'tasks-by-state': [] }, 'no legacy entry outlives the sweep');
  t.equal(await s.tasks.get('ws-a', 'old-done'), undefined);
});
