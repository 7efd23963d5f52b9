// LMDB writes of more than one entry are all-or-nothing: lmdb-js commits what an async transaction put before its
// callback threw, so a write that cannot be finished (a key over LMDB's size limit, a damaged record) must fail before
// its first change. Each test makes a write fail midway and reads back every sub-database byte for byte.
import t, { type Test } from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { LMDB_DBS, openLmdbStore } from '../../src/runtime/store/lmdb/index.js';
import { taskKey, type Store } from '../../src/runtime/store/types.js';
import type { TaskEvent } from '../../src/protocol/events.js';
import type { Task } from '../../src/protocol/model.js';
import { samplePushJob, sampleResult, sampleTask } from '../support/store-records.js';

const T = Date.UTC(2026, 0, 1);

async function withStore(t: Test): Promise<{ path: string; store: Store }> {
  const path = await mkdtemp(join(tmpdir(), 'a2a-atomic-'));
  const store = await openLmdbStore({ path });
  t.teardown(async () => {
    await store.close();
    await rm(path, { recursive: true, force: true });
  });
  return { path, store };
}

/** Every entry of every sub-database, raw bytes as hex: what "the store exactly as before" means. */
async function snapshot(path: string): Promise<Record<string, string[]>> {
  const raw = open({ path, noSubdir: false, maxDbs: 32 });
  const out: Record<string, string[]> = {};
  for (const name of Object.values(LMDB_DBS)) {
    const db = raw.openDB({ name, keyEncoding: 'binary', encoding: 'binary', dupSort: name === LMDB_DBS.tasksByState });
    out[name] = [...db.getRange()].map(({ key, value }) => `${Buffer.from(key as Buffer).toString('hex')}=${Buffer.from(value as Buffer).toString('hex')}`);
  }
  await raw.close();
  return out;
}

const statusEvent = (task: Task, seq: number): TaskEvent => ({ seq, kind: 'status', status: task.status, final: false });

/** A task in workspace `ws` (its record as the gateway stores it: seq and updatedAt set). */
const taskIn = (ws: string, o: { id: string; state?: Task['status']['state']; seq: number }): Task => ({
  ...sampleTask({ id: o.id, state: o.state ?? 'working' }),
  workspaceId: ws,
  seq: o.seq,
  updatedAt: T + o.seq,
});

t.test('a task write whose second push job cannot be stored changes nothing (not even the first job)', async (t) => {
  const { path, store } = await withStore(t);
  const first = taskIn('ws-a', { id: 't1', seq: 1 });
  t.ok(await store.tasks.create(first, { events: [statusEvent(first, 1)] }));
  await store.pushJobs.enqueue([samplePushJob({ queue: 'earlier', seq: 1 })]);
  const before = await snapshot(path);

  const next = { ...taskIn('ws-a', { id: 't1', state: 'input-required', seq: 2 }) };
  const key = taskKey('ws-a', 't1');
  const jobs = [
    { ...samplePushJob({ queue: 'short', seq: 2 }), taskKey: key },
    { ...samplePushJob({ queue: 'q'.repeat(2000), seq: 2 }), taskKey: key },
  ];
  await t.rejects(store.tasks.put(next, { expectSeq: 1, events: [statusEvent(next, 2)], retainEvents: 10, pushJobs: jobs }), {
    code: 'ERR_STORE_KEY_TOO_LONG',
  });
  t.same(await snapshot(path), before, 'every sub-database as before');
  t.equal((await store.tasks.get('ws-a', 't1'))?.status.state, 'working', 'the task as stored before');
});

t.test('a terminal task write whose ended-index key is over the limit changes nothing', async (t) => {
  const { path, store } = await withStore(t);
  // the task key itself fits (record, state index, by-state entry); [endedAt, key] is a few bytes longer and does not
  const ws = 'w'.repeat(1972);
  const first = taskIn(ws, { id: 't', seq: 1 });
  t.ok(await store.tasks.create(first));
  const before = await snapshot(path);

  const done = taskIn(ws, { id: 't', state: 'completed', seq: 2 });
  await t.rejects(store.tasks.put(done, { expectSeq: 1 }), { code: 'ERR_STORE_KEY_TOO_LONG' });
  t.same(await snapshot(path), before, 'every sub-database as before');
  t.same(
    (await store.tasks.listByState(['working'])).map((x) => x.id),
    ['t'],
    'still listed as working (its by-state entry kept)',
  );
});

t.test('a task create whose events key is over the limit stores nothing', async (t) => {
  const { path, store } = await withStore(t);
  const ws = 'w'.repeat(1972);
  const before = await snapshot(path);
  const task = taskIn(ws, { id: 't', seq: 1 });
  await t.rejects(store.tasks.create(task, { events: [statusEvent(task, 1)] }), { code: 'ERR_STORE_KEY_TOO_LONG' });
  t.same(await snapshot(path), before, 'every sub-database as before');
  t.equal(await store.tasks.get(ws, 't'), undefined);
});

t.test('an enqueue of several jobs, one of them over the key limit, stores none', async (t) => {
  const { path, store } = await withStore(t);
  const before = await snapshot(path);
  await t.rejects(store.pushJobs.enqueue([samplePushJob({ queue: 'ok', seq: 1 }), samplePushJob({ queue: 'q'.repeat(2000), seq: 1 })]), {
    code: 'ERR_STORE_KEY_TOO_LONG',
  });
  t.same(await snapshot(path), before, 'every sub-database as before');
  t.same(await store.pushJobs.list(), []);
});

t.test('a result whose expiry-index key is over the limit is not stored (it could never be swept)', async (t) => {
  const { path, store } = await withStore(t);
  await store.results.put(sampleResult({ id: 'kept', expiresAt: T + 1000 }));
  const before = await snapshot(path);
  // [workspace, id] fits, [expiresAt, workspace, id] (a fixed-width number longer) does not
  await t.rejects(store.results.put(sampleResult({ id: 'r', workspace: 'w'.repeat(1970), expiresAt: T + 1000 })), { code: 'ERR_STORE_KEY_TOO_LONG' });
  t.same(await snapshot(path), before, 'every sub-database as before');
});

t.test("dropping a swept task's jobs reads only that task's: another task's damaged job does not stop it", async (t) => {
  const { path, store } = await withStore(t);
  const gone = 'ws-a/task-a';
  const queue = (task: string, config: string) => JSON.stringify([task, config]);
  await store.pushJobs.enqueue([{ ...samplePushJob({ queue: queue(gone, 'a'), seq: 1 }), taskKey: gone }]);
  const raw = open({ path, noSubdir: false, maxDbs: 32 });
  await raw.openDB({ name: LMDB_DBS.pushJobs, useRecords: false } as never).put([queue('ws-a/task-b', 'a'), 1], { job: { nope: true } });
  await raw.close();
  // before, every waiting job of every task was read, and this one damaged record failed every retention sweep
  t.equal(await store.pushJobs.dropTasks([gone]), 1, "the swept task's job is dropped");
});

t.test('dropping the jobs of swept tasks removes a damaged job of theirs too, and all the others', async (t) => {
  const { path, store } = await withStore(t);
  const gone = 'ws-a/task-a';
  const queue = (config: string) => JSON.stringify([gone, config]);
  await store.pushJobs.enqueue([
    { ...samplePushJob({ queue: queue('a'), seq: 1 }), taskKey: gone },
    { ...samplePushJob({ queue: queue('b'), seq: 1 }), taskKey: gone },
  ]);
  // a damaged record of the swept task sorting after its first job
  const raw = open({ path, noSubdir: false, maxDbs: 32 });
  await raw.openDB({ name: LMDB_DBS.pushJobs, useRecords: false } as never).put([queue('ab'), 1], { job: { nope: true } });
  await raw.close();
  // before, it failed the drop (and with it the retention sweep) and the task's jobs stayed behind its deleted task
  t.equal(await store.pushJobs.dropTasks([gone]), 3, 'all three go: the task is gone');
  t.same((await snapshot(path))[LMDB_DBS.pushJobs], [], 'no job left');
});
