// On LMDB, stored bytes that are not msgpack at all (a damaged file, another program's write) in the meta, event,
// push-config, push-job, result and session sub-stores: a read of one is a StoreCorruptError naming the record's kind
// and id (never lmdb-js's bare decoder error), a claim passes over such a job, and a request that meets one gets
// -32603 with the log naming the record. Real LMDB in a temp dir; the real gateway on port 0.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { open as lmdbOpen } from 'lmdb';
import { StoreCorruptError } from '../../src/runtime/store/errors.js';
import { LMDB_DBS, openLmdbStore } from '../../src/runtime/store/lmdb/index.js';
import { msgB, startTestGateway } from '../support/gateway.js';
import { samplePushJob, sampleResult } from '../support/store-records.js';

/** 0xc1 is a code msgpack never uses */
const NOT_MSGPACK = Buffer.from([0xc1, 0xc1, 0xc1]);

async function plant(dataDir: string, records: Array<{ db: string; key: unknown }>): Promise<void> {
  const raw = lmdbOpen({ path: join(dataDir, 'store'), noSubdir: false, maxDbs: 32 });
  for (const r of records) await raw.openDB({ name: r.db, encoding: 'binary' }).put(r.key as never, NOT_MSGPACK);
  await raw.close();
}

async function corrupt(t: Test, p: Promise<unknown>, record: string, id: RegExp | string): Promise<void> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  t.ok(e instanceof StoreCorruptError, `${record}: a StoreCorruptError (got ${String(e)})`);
  t.match(e, { record, message: /is corrupt \(it does not decode\)/ });
  t.match((e as StoreCorruptError).id, id);
}

t.test('lmdb: a value that is not msgpack is a damaged record in every sub-store', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'a2a-undecodable-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const open = (onCorrupt?: (e: StoreCorruptError) => void) => openLmdbStore({ path: join(dataDir, 'store'), ...(onCorrupt && { onCorrupt }) });
  const s0 = await open();
  await s0.results.put(sampleResult({ id: 'r-good', expiresAt: Date.now() + 3_600_000 }));
  const good = samplePushJob({ queue: 'q-good', seq: 1, dueAt: 0 });
  await s0.pushJobs.enqueue([good, samplePushJob({ queue: 'q-bad', seq: 1, dueAt: 0 })]);
  await s0.close();
  await plant(dataDir, [
    { db: LMDB_DBS.meta, key: 'webhook-secret:ws-a' },
    { db: LMDB_DBS.events, key: ['ws-a/t1', 1] },
    { db: LMDB_DBS.pushConfigs, key: ['ws-a/t1', 'cfg'] },
    { db: LMDB_DBS.pushJobs, key: ['q-bad', 1] },
    { db: LMDB_DBS.results, key: ['ws-a', 'r-bad'] },
    { db: LMDB_DBS.dashboardSessions, key: 'sess-1' },
  ]);

  const told: StoreCorruptError[] = [];
  const s = await open((e) => told.push(e));
  t.teardown(() => s.close());
  await corrupt(t, s.meta.get('webhook-secret:ws-a'), 'meta', 'webhook-secret:ws-a');
  await corrupt(t, s.events.after('ws-a/t1', 0), 'event', /ws-a\/t1/);
  await corrupt(t, s.pushConfigs.get('ws-a/t1', 'cfg'), 'push-config', 'cfg');
  await corrupt(t, s.pushConfigs.list('ws-a/t1'), 'push-config', 'cfg');
  await corrupt(t, s.results.get('ws-a', 'r-bad'), 'result', 'ws-a/r-bad');
  await corrupt(t, s.results.list({ workspace: 'ws-a' }), 'result', 'ws-a/r-bad');
  await corrupt(t, s.dashboard.getSession('sess-1'), 'session', 'sess-1');
  await corrupt(t, s.pushJobs.list(), 'push-job', /q-bad/);

  const claimed = await s.pushJobs.claim({ now: 1, leaseMs: 1_000, limit: 10 });
  t.strictSame(
    claimed.map((c) => c.job.id),
    [good.id],
    'a claim passes over the damaged job and leases the good one',
  );
  t.ok(
    told.some((e) => e.record === 'push-job' && e.id.includes('q-bad')),
    'and reports it',
  );
  // each look met the damaged job inside lmdb-js's range read; one that left its reader behind ran out at 126
  for (let i = 0; i < 300; i++) await s.pushJobs.nextDueAt();
  t.pass('300 looks past the damaged job leave no reader behind (no MDB_READERS_FULL)');
  await s.dashboard.deleteSession('sess-1');
  t.equal(await s.dashboard.getSession('sess-1'), undefined, 'signing out removes a damaged session');
});

t.test('lmdb: a request that meets a value that is not msgpack gets -32603, the log naming the record', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'a2a-undecodable-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const first = await startTestGateway({ dataDir });
  const { key } = await first.key();
  const done = (await first.rpc({ key, method: 'message/send', params: msgB('hello') })).json.result;
  t.equal(done.status.state, 'completed');
  await first.close();
  await plant(dataDir, [{ db: LMDB_DBS.pushConfigs, key: [`ws1/${done.id}`, 'cfg'] }]);

  const lines: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
  const gw = await startTestGateway({ dataDir, log: (msg, fields) => lines.push({ msg, fields }) });
  t.teardown(() => gw.close());
  const got = await gw.rpc({ key, method: 'tasks/pushNotificationConfig/get', params: { id: done.id, pushNotificationConfigId: 'cfg' } });
  t.equal(got.json.error?.code, -32603, 'a clear internal error');
  t.notMatch(JSON.stringify(got.json), /MessagePack|buffer|stack/i, 'no decoder detail in the answer');
  const logged = lines.find((l) => l.msg === 'internal error');
  t.match(logged?.fields?.error, /stored push-config record "cfg" is corrupt \(it does not decode\)/, 'the log names the record');
});
