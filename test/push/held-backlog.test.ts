// A claim's cost does not grow with the held-back backlog: 5,000 jobs waiting out their backoff or queued behind a
// head whose attempt is under way (a down receiver's pile) are never read by a claim or a wake-up, on either engine,
// and the one due job is still claimed; data written before the LMDB due index existed is still delivered.
//
// Redis: the real server under a prefix of this test's own; what a claim reads is seen through MONITOR on a
// connection of its own (commands run inside a script are listed too). LMDB: a real environment in a temp dir; the
// job store runs over lmdb-js's own databases behind a proxy that counts the entries each read yields.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, type Key, open } from 'lmdb';
import t from 'tap';
import type { PushJob } from '../../src/protocol/records.js';
import { redisKeys } from '../../src/runtime/redis/keys.js';
import { LMDB_DBS, openLmdbStore } from '../../src/runtime/store/lmdb/index.js';
import { lmdbPushJobStore } from '../../src/runtime/store/lmdb/push-jobs.js';
import { queueOf } from '../../src/runtime/store/push-queues.js';
import { openRedisStore } from '../../src/runtime/store/redis/index.js';
import { type PushJobStore, taskKey } from '../../src/runtime/store/types.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { samplePushJob } from '../support/store-records.js';
import { createClient } from 'redis';

const T = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const lease = { leaseMs: 40_000 };

const job = (ws: string, task: string, seq: number, dueAt: number): PushJob => {
  const key = taskKey(ws, task);
  return { ...samplePushJob({ queue: queueOf(key, 'cfg'), seq, dueAt }), id: `msg_${ws}_${task}_${seq}`, taskKey: key, workspaceId: ws };
};

/**
 * The held backlog of workspace A (its receiver is down): 4,000 tasks whose update waits out a backoff (due in an
 * hour), and one task with 1,000 updates behind the head whose attempt is under way (leased at T). Then B's one due
 * job. Returns B's job id.
 */
async function heldBacklog(jobs: PushJobStore): Promise<string> {
  const behind = Array.from({ length: 1_000 }, (_, i) => job('A', 'busy', i + 1, T));
  for (let i = 0; i < behind.length; i += 500) await jobs.enqueue(behind.slice(i, i + 500));
  const busy = await jobs.claim({ now: T, ...lease, limit: 16 });
  if (busy.length !== 1) throw new Error(`expected the busy queue's head alone to be claimed, got ${busy.length}`);
  const backoff = Array.from({ length: 4_000 }, (_, i) => job('A', `down${i}`, 1, T + HOUR + i));
  for (let i = 0; i < backoff.length; i += 500) await jobs.enqueue(backoff.slice(i, i + 500));
  const due = job('B', 'ok', 1, T + 5);
  await jobs.enqueue([due]);
  return due.id;
}

t.test('Redis: a claim and a wake-up read only what is due, not the 5,000 held jobs', async (t) => {
  const prefix = testPrefix('push-held');
  const store = await openRedisStore({ url: REDIS_URL, prefix });
  const k = redisKeys(prefix);
  const raw = createClient({ url: REDIS_URL });
  raw.on('error', () => {});
  await raw.connect();
  const monitor = raw.duplicate();
  monitor.on('error', () => {});
  t.teardown(async () => {
    monitor.destroy();
    raw.destroy();
    await store.close();
    await cleanupPrefix(REDIS_URL, prefix);
  });
  const dueId = await heldBacklog(store.pushJobs);

  await monitor.connect();
  const mark = `${prefix}monitor-mark`;
  let marked: () => void = () => {};
  let seen: string[][] = [];
  await monitor.monitor((line: string) => {
    if (line.includes(mark)) marked();
    else if (line.includes(prefix)) seen.push([...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!));
  });
  /** the commands on this test's keys that `step` caused (MONITOR lists in the order Redis ran them) */
  const commandsOf = async (step: () => Promise<unknown>): Promise<string[][]> => {
    seen = [];
    await step();
    const done = new Promise<void>((resolve) => (marked = resolve));
    await raw.exists(mark);
    await done;
    return seen;
  };
  /** push-due entries the commands asked for (a ZRANGE by rank answers stop - start + 1 of them at most) */
  const dueEntriesRead = (cmds: string[][]): number =>
    cmds.filter((c) => c[0]?.toUpperCase() === 'ZRANGE' && c[1] === k.pushDue).reduce((n, c) => n + Number(c[3]) - Number(c[2]) + 1, 0);

  let claimed: Awaited<ReturnType<PushJobStore['claim']>> = [];
  const claimCmds = await commandsOf(async () => {
    claimed = await store.pushJobs.claim({ now: T + 10, ...lease, limit: 16, perWorkspace: { max: 8, held: new Map() } });
  });
  t.strictSame(
    claimed.map((c) => c.job.id),
    [dueId],
    "B's due job is claimed, no held one",
  );
  t.ok(claimCmds.length > 0, 'the claim was seen');
  t.ok(dueEntriesRead(claimCmds) <= 1, `the claim read ${dueEntriesRead(claimCmds)} due-queue entries (one is due; 4,001 held)`);
  t.strictSame(
    claimCmds.filter((c) => c.some((a) => a.includes('down') || a.includes('busy'))),
    [],
    'no held job nor its queue was touched',
  );

  let next: number | undefined;
  const wakeCmds = await commandsOf(async () => {
    next = await store.pushJobs.nextDueAt({ passOver: { max: 8, held: new Map([['B', 1]]) }, now: T + 10 });
  });
  t.equal(next, T + lease.leaseMs, "the wake-up's answer: the busy head's lease end");
  t.ok(dueEntriesRead(wakeCmds) <= 8, `the wake-up read ${dueEntriesRead(wakeCmds)} due-queue entries, not a page of the backlog`);
});

/** Wraps an lmdb-js database so that every entry its reads yield is counted (everything else passes through). */
function counted<V>(db: Database<V, Key>, reads: { n: number }): Database<V, Key> {
  const iterable = (inner: Iterable<unknown>) => ({
    [Symbol.iterator]() {
      const it = inner[Symbol.iterator]();
      return {
        next() {
          const step = it.next();
          if (!step.done) reads.n++;
          return step;
        },
        return(value?: unknown) {
          it.return?.(value);
          return { done: true as const, value };
        },
      };
    },
  });
  return new Proxy(db, {
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop, target);
      if (typeof v !== 'function') return v;
      if (prop === 'getRange' || prop === 'getKeys') return (...a: unknown[]) => iterable(v.apply(target, a) as Iterable<unknown>);
      if (prop === 'get' || prop === 'getBinary') {
        return (...a: unknown[]) => {
          reads.n++;
          return v.apply(target, a);
        };
      }
      return v.bind(target);
    },
  });
}

t.test('LMDB: a claim and a wake-up read only what is due, not the 5,000 held jobs', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'push-held-'));
  const root = open({ path: dir, noSubdir: false, maxDbs: 64, cache: false });
  t.teardown(async () => {
    await root.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const reads = { n: 0 };
  const jobs = lmdbPushJobStore({
    root,
    db: counted(root.openDB<unknown, Key>({ name: LMDB_DBS.pushJobs, cache: false, useRecords: false } as never), reads),
    due: counted(root.openDB<string, Key>({ name: LMDB_DBS.pushDue, encoding: 'msgpack', keyEncoding: 'ordered-binary', cache: false }), reads),
    fresh: () => root.resetReadTxn(),
  });
  const dueId = await heldBacklog(jobs);

  reads.n = 0;
  const claimed = await jobs.claim({ now: T + 10, ...lease, limit: 16, perWorkspace: { max: 8, held: new Map() } });
  t.strictSame(
    claimed.map((c) => c.job.id),
    [dueId],
    "B's due job is claimed, no held one",
  );
  t.ok(reads.n <= 20, `the claim read ${reads.n} entries (one job is due; 5,000 held)`);

  reads.n = 0;
  t.equal(await jobs.nextDueAt({ passOver: { max: 8, held: new Map([['B', 1]]) } }), T + lease.leaseMs, "the wake-up's answer: the busy head's lease end");
  t.ok(reads.n <= 10, `the wake-up read ${reads.n} entries`);
});

t.test('LMDB: jobs written by the build before the due index are delivered after the upgrade, in order', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'push-held-upgrade-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // the previous layout: push-jobs alone ([queue, seq] -> {job, lease?}), one head still leased by a dead run
  const before = open({ path: dir, noSubdir: false, maxDbs: 64, cache: false });
  const old = before.openDB<unknown, Key>({ name: LMDB_DBS.pushJobs, cache: false, useRecords: false } as never);
  const a1 = job('A', 'a', 1, T);
  const a2 = job('A', 'a', 2, T);
  const b1 = job('B', 'b', 1, T + 1);
  await before.transaction(() => {
    old.put([a1.queue, 1], { job: a1 });
    old.put([a2.queue, 2], { job: a2 });
    old.put([b1.queue, 1], { job: b1, lease: { token: 'an-old-run', until: T + 30 } });
  });
  await before.close();

  const store = await openLmdbStore({ path: dir });
  t.teardown(() => store.close());
  t.equal(await store.pushJobs.nextDueAt(), T, 'the wake-up sees the old jobs');
  const first = await store.pushJobs.claim({ now: T + 10, ...lease, limit: 16 });
  t.strictSame(
    first.map((c) => c.job.id),
    [a1.id],
    "the due head (A's first update; B's head is leased until T + 30)",
  );
  t.ok(await store.pushJobs.complete(first[0]!));
  const second = await store.pushJobs.claim({ now: T + 30, ...lease, limit: 16 });
  t.strictSame(
    second.map((c) => c.job.id),
    [a2.id, b1.id],
    "A's second update after its first; B's once its old lease lapsed",
  );
});
