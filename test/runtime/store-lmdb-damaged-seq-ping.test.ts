// The LMDB reads that went around the store's decoding: a legacy task's seq (`task-seq`, read by the write that
// folds it into `task-state`) and the readiness ping's read of the meta store. A damaged value in either (bytes that
// are not msgpack, a seq that is not a whole number) is a damaged record, reported by kind and id: the task write
// replaces it (before: msgpackr's bare error, or a seq that never matched, failed every later write of the task), and
// /readyz stays ready (before: "store unavailable" with msgpackr's error). Real LMDB in a temp dir; the real gateway
// on port 0 for /readyz.
import t, { type Test } from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import type { StoreCorruptError } from '../../src/runtime/store/errors.js';
import { LMDB_DBS, openLmdbStore } from '../../src/runtime/store/lmdb/index.js';
import { taskKey } from '../../src/runtime/store/types.js';
import { sampleTask } from '../support/store-records.js';
import { startTestGateway } from '../support/gateway.js';

/** 0xc1 is a code msgpack never uses */
const NOT_MSGPACK = Buffer.from([0xc1, 0xc1, 0xc1]);

async function withDir(t: Test): Promise<string> {
  const path = await mkdtemp(join(tmpdir(), 'a2a-damaged-seq-'));
  t.teardown(() => rm(path, { recursive: true, force: true }));
  return path;
}

/** A working task as the earlier layout wrote it (its state alone in `task-state`), its `task-seq` value given raw. */
async function plantLegacy(path: string, o: { id: string; seq: Buffer | string }): Promise<void> {
  const raw: RootDatabase = open({ path, noSubdir: false, maxDbs: 32 });
  const key = taskKey('ws-a', o.id);
  await raw.transaction(() => {
    raw.openDB({ name: LMDB_DBS.tasks, useRecords: false } as never).put(key, { ...sampleTask({ id: o.id, state: 'working' }), seq: 4 });
    raw.openDB<string, string>({ name: LMDB_DBS.taskState, encoding: 'string' }).put(key, 'working');
    if (Buffer.isBuffer(o.seq)) raw.openDB({ name: LMDB_DBS.taskSeq, encoding: 'binary' }).put(key, o.seq);
    else raw.openDB({ name: LMDB_DBS.taskSeq, useRecords: false } as never).put(key, o.seq);
    raw.openDB({ name: LMDB_DBS.tasksByState, dupSort: true, encoding: 'ordered-binary' }).put('working', key);
  });
  await raw.close();
}

const told = (seen: StoreCorruptError[]) => seen.map((e) => `${e.record} ${e.id}`);

t.test('lmdb: a damaged legacy task seq is reported and replaced by the write that meets it', async (t) => {
  const path = await withDir(t);
  await plantLegacy(path, { id: 'bytes', seq: NOT_MSGPACK });
  await plantLegacy(path, { id: 'word', seq: 'four' });
  const seen: StoreCorruptError[] = [];
  const s = await openLmdbStore({ path, onCorrupt: (e) => seen.push(e) });
  t.teardown(() => s.close());

  for (const id of ['bytes', 'word']) {
    const next = { ...sampleTask({ id, state: 'input-required' }), seq: 5 };
    t.equal(await s.tasks.put(next, { expectSeq: 4 }), true, `${id}: the write goes ahead (read as a legacy task without a seq)`);
    t.equal((await s.tasks.get('ws-a', id))?.status.state, 'input-required', `${id}: and is stored`);
    t.ok(told(seen).includes(`task-seq ws-a/${id}`), `${id}: the damaged seq is reported by kind and id`);
    t.equal(await s.tasks.put({ ...next, seq: 6 }, { expectSeq: 4 }), false, `${id}: the seq now kept in task-state guards the next write`);
    t.equal(await s.tasks.put({ ...next, seq: 6 }, { expectSeq: 5 }), true, `${id}: and admits the writer at it`);
  }
  t.notMatch(JSON.stringify(seen.map((e) => e.message)), /c1c1|0xC1|four/i, 'never the stored value');
});

t.test('lmdb: a damaged value under the ping key leaves /readyz ready and is logged once, by kind and id', async (t) => {
  const dataDir = await withDir(t);
  const s0 = await openLmdbStore({ path: join(dataDir, 'store') });
  await s0.close();
  const raw: RootDatabase = open({ path: join(dataDir, 'store'), noSubdir: false, maxDbs: 32 });
  await raw.openDB({ name: LMDB_DBS.meta, encoding: 'binary' }).put('ping', NOT_MSGPACK);
  await raw.close();

  const bare = await openLmdbStore({ path: join(dataDir, 'store') });
  const failed = await bare.ping().then(
    () => undefined,
    (e: unknown) => e,
  );
  await bare.close();
  t.match(failed, { name: 'StoreCorruptError', record: 'meta', id: 'ping' }, 'without a listener, the ping fails naming the damaged record');

  const lines: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
  const gw = await startTestGateway({ dataDir, log: (msg, fields) => lines.push({ msg, fields }) });
  t.teardown(() => gw.close());
  for (let i = 0; i < 3; i++) {
    const r = await fetch(`${gw.url}/readyz`);
    t.equal(r.status, 200, `readyz ${i + 1}: ready (the store answers)`);
    t.same(await r.json(), { ok: true });
  }
  const logged = lines.filter((l) => l.msg.startsWith('damaged stored record'));
  t.equal(logged.length, 1, 'logged once for three probes');
  t.match(logged[0]?.fields, { record: 'meta', id: 'ping' });
});

// Found in the same sweep: moving an older version's delivery lists on open read them with a raw range read, so a
// list whose bytes do not decode threw msgpackr's error out of the open: the gateway did not start.
t.test("lmdb: an older version's delivery list whose bytes do not decode is dropped and reported; the store opens", async (t) => {
  const path = await withDir(t);
  const s0 = await openLmdbStore({ path });
  await s0.close();
  const good = { id: 'job-1', taskId: 'task-1', configId: 'cfg', attempts: 1, result: 'delivered', status: 200, error: null, at: Date.UTC(2026, 0, 1) };
  const raw: RootDatabase = open({ path, noSubdir: false, maxDbs: 32 });
  await raw.openDB({ name: LMDB_DBS.dashboardDeliveries, encoding: 'binary' }).put('ws-bad', NOT_MSGPACK);
  await raw.openDB({ name: LMDB_DBS.dashboardDeliveries, useRecords: false } as never).put('ws-a', [good]);
  await raw.close();

  const seen: StoreCorruptError[] = [];
  const s = await openLmdbStore({ path, onCorrupt: (e) => seen.push(e) });
  t.teardown(() => s.close());
  t.ok(told(seen).includes('delivery ws-bad'), 'the damaged list is reported by kind and workspace');
  t.strictSame(await s.dashboard.deliveries('ws-bad'), [], 'and dropped, as a list no schema reads is');
  t.match(await s.dashboard.deliveries('ws-a'), [{ id: 'job-1' }], 'the good list is moved all the same');
});
