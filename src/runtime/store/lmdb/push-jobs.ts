// The LMDB push job queues: one sub-database keyed [queue, seq], each value the job plus its lease (if claimed), and
// the due index (push-due.ts: [at, queue] per queue, by when its head may be claimed) kept in the same transactions.
//
// A claim reads the due index from its start and stops at the first head not yet claimable: it meets the due heads
// only, oldest first (claimOrder, as on Redis), never the jobs behind a head or waiting out their backoff, so its cost
// does not grow with a down receiver's backlog. (It does read the due heads it passes over for their workspace's
// share, as the Redis claim does.) The index is derived afresh once per open, at the first claim, wake-up or lease
// release: data written by a build without it, or by an older build run in between, is filed before it is claimed.
// Every read-then-write (claim, complete, retry) is one LMDB write transaction, so two processes
// on the same files never lease one head twice.
import type { Database, Key, RootDatabase } from 'lmdb';
import type { PushJob } from '../../../protocol/records.js';
import { TopK } from '../../top-k.js';
import { dueBefore, taskQueuePrefix, workspaceQueuePrefix } from '../push-queues.js';
import type { ClaimedPushJob, PushJobStore, WorkspaceCap } from '../types.js';
import { listed, type OnCorrupt } from '../validate.js';
import { heldByEarlierRun, leaseToken } from '../lease-holder.js';
import { capGate, isFull } from '../workspace-cap.js';
import { assertKeysFit } from './key-size.js';
import { getDecoded, rangeDecoded } from './decoded.js';
import { eligibleAt, jobId, keyOf, readStored as read, type StoredJob } from './push-job-record.js';
import { type DueEntry, type DueIndex, lmdbDueIndex } from './push-due.js';

/** keys per range read of a workspace's jobs; the event loop is given back between reads */
const SLICE = 1_000;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export function lmdbPushJobStore(o: {
  root: RootDatabase;
  db: Database<unknown, Key>;
  /** the due index (push-due.ts) */
  due: Database<string, Key>;
  fresh: () => void;
  /** where claims report a damaged head they pass over (none: a damaged head fails the claim) */
  onCorrupt?: OnCorrupt;
}): PushJobStore {
  const { root, db } = o;
  const index = lmdbDueIndex({ jobs: db, due: o.due });
  let filed: Promise<void> | undefined;

  /** The index derived from the jobs, once per open (lazily: the CLI, which never claims, never pays for it). */
  function ensureFiled(): Promise<void> {
    filed ??= root
      .transaction(() => {
        index.rebuild();
      })
      .catch((e: unknown) => {
        filed = undefined;
        throw e;
      });
    return filed;
  }

  /**
   * The claimable heads in claim order, up to `limit` admitted by the gate, read from the due index: it stops at the
   * first entry not yet claimable. A damaged head (with onCorrupt) is reported and passed over with its queue, which
   * waits behind it (a queue keeps its order). An entry that does not match its queue's head (`stale`) is left for the
   * caller to refile.
   */
  function claimable(c: { now: number; limit: number; perWorkspace: WorkspaceCap | undefined }) {
    const gate = capGate(c.perWorkspace);
    const take: Array<{ key: Key; stored: StoredJob }> = [];
    const stale: DueEntry[] = [];
    for (const entry of index.entries()) {
      if (entry.at > c.now || take.length >= c.limit) break;
      // its workspace holds its share: the queue waits (in order), its head unread, and the next one is looked at
      if (entry.workspace !== '' && !gate.hasRoom(entry.workspace)) continue;
      const key = index.headKey(entry.queue);
      if (key === undefined) {
        stale.push(entry);
        continue;
      }
      const stored = listed(o.onCorrupt, () => read(getDecoded({ db, key, record: 'push-job', id: jobId(key) }), key));
      if (!stored) continue;
      if (eligibleAt(stored) !== entry.at || stored.job.workspaceId !== entry.workspace) stale.push(entry);
      else if (gate.admit(stored.job.workspaceId)) take.push({ key, stored });
    }
    return { take, stale };
  }

  /** Runs `fn` on the stored job if `c` still holds its lease (its queue filed again afterwards). */
  function withLease(c: ClaimedPushJob, fn: (key: Key, s: StoredJob) => void): Promise<boolean> {
    return root.transaction(() => {
      const key = keyOf(c.job);
      const v = getDecoded({ db, key, record: 'push-job', id: jobId(key) });
      if (v === undefined) return false;
      const s = read(v, key);
      if (s.lease?.token !== c.lease) return false;
      index.change([c.job.queue], () => fn(key, s));
      return true;
    });
  }

  return {
    async enqueue(jobs) {
      if (jobs.length === 0) return;
      await root.transaction(() => putPushJobs({ db, due: index }, jobs));
    },
    async claim({ now, leaseMs, limit, holder, perWorkspace }) {
      if (limit <= 0) return [];
      await ensureFiled();
      // most looks find nothing due: answer those from a read, without a write transaction
      o.fresh();
      const look = claimable({ now, limit: 1, perWorkspace });
      if (look.take.length === 0 && look.stale.length === 0) return [];
      return root.transaction(() => {
        const token = leaseToken(holder);
        const { take, stale } = claimable({ now, limit, perWorkspace });
        for (const entry of stale) index.refile(entry);
        const out: ClaimedPushJob[] = [];
        for (const { key, stored } of take) {
          index.change([stored.job.queue], () => db.put(key, { job: stored.job, lease: { token, until: now + leaseMs } } satisfies StoredJob));
          out.push({ job: stored.job, lease: token });
        }
        return out;
      });
    },
    complete(c) {
      return withLease(c, (key) => db.remove(key));
    },
    retry(c, update) {
      return withLease(c, (key, s) => {
        const { lastError: _drop, ...rest } = s.job;
        const job: PushJob = {
          ...rest,
          attempts: update.attempts,
          dueAt: update.dueAt,
          ...(update.lastError !== undefined && { lastError: update.lastError }),
        };
        db.put(key, { job } satisfies StoredJob);
      });
    },
    async releaseEarlierLeases(holder) {
      await ensureFiled();
      return root.transaction(() => {
        // every record read (a damaged one throws) before the first change: a throw must leave nothing half done
        const freed: Array<{ key: Key; job: PushJob }> = [];
        for (const entry of rangeDecoded({ db, range: {}, record: 'push-job', idOf: jobId })) {
          const s = listed(o.onCorrupt, () => read(entry.value, entry.key));
          const { key } = entry;
          if (s?.lease && heldByEarlierRun(s.lease.token, holder)) freed.push({ key, job: s.job });
        }
        for (const { key, job } of freed) index.change([job.queue], () => db.put(key, { job } satisfies StoredJob));
        return freed.length;
      });
    },
    async nextDueAt({ passOver } = {}) {
      await ensureFiled();
      o.fresh();
      // the first queue in the index (claim order: the soonest) whose workspace is below its share; a damaged head is
      // left out, as claims pass it over
      for (const { at, queue, workspace } of index.entries()) {
        if (workspace !== '' && isFull(passOver, workspace)) continue;
        const key = index.headKey(queue);
        if (key === undefined) continue;
        const stored = listed(o.onCorrupt, () => read(getDecoded({ db, key, record: 'push-job', id: jobId(key) }), key));
        if (stored && !isFull(passOver, stored.job.workspaceId)) return at;
      }
      return undefined;
    },
    dropTasks(taskKeys) {
      const drop = new Set(taskKeys);
      if (drop.size === 0) return Promise.resolve(0);
      return root.transaction(() => {
        // Keys are [queue, seq] and a task's queues all begin with its prefix, which ends in ',': the range from
        // [prefix] up to [prefix with '-' for its ','] ('-' follows ',') holds them and nothing else (the queue name
        // is the task's by construction), so only the swept tasks' own jobs are met, and all of them go. A job too
        // damaged to read is reported and removed with the rest: its task is gone, and failing here left every job
        // of the batch behind and ended the sweep (keys are read without values, so bytes that are not msgpack do
        // not fail the range read itself).
        const gone: Key[] = [];
        for (const tk of drop) {
          const prefix = taskQueuePrefix(tk);
          for (const key of db.getKeys({ start: [prefix], end: [`${prefix.slice(0, -1)}-`] })) {
            listed(o.onCorrupt ?? (() => {}), () => read(getDecoded({ db, key, record: 'push-job', id: jobId(key) }), key));
            gone.push(key);
          }
        }
        const queues = gone.map((key) => (Array.isArray(key) ? String(key[0]) : ''));
        index.change(queues, () => {
          for (const key of gone) db.remove(key);
        });
        return gone.length;
      });
    },
    async list() {
      o.fresh();
      const out: PushJob[] = [];
      for (const { key, value } of rangeDecoded({ db, range: {}, record: 'push-job', idOf: jobId })) out.push(read(value, key).job);
      return out;
    },
    async listWorkspace({ workspaceId, limit }) {
      o.fresh();
      // keys are [queue, seq] and the workspace's queues all begin with its prefix, which ends in '/': the range from
      // [prefix] up to [prefix with '0' for its '/'] ('0' follows '/') holds them and nothing else. Each slice is its
      // own range read, starting just after the last key read, so no read (nor the loop) outlives a slice.
      const prefix = workspaceQueuePrefix(workspaceId);
      const end: Key = [`${prefix.slice(0, -1)}0`];
      let start: Key = [prefix];
      const top = new TopK<PushJob>(limit, dueBefore);
      for (;;) {
        let n = 0;
        let last: Key | undefined;
        for (const { key, value } of rangeDecoded({ db, range: { start, end, limit: SLICE }, record: 'push-job', idOf: jobId })) {
          n++;
          last = key;
          const { job } = read(value, key);
          if (job.workspaceId === workspaceId) top.offer(job);
        }
        if (n < SLICE || !Array.isArray(last)) break;
        // a seq is an integer: the next key of the same queue, or of the next queue, comes at or after this one
        start = [last[0] as string, Number(last[1]) + 1];
        await yieldToLoop();
      }
      return { jobs: top.sorted(), total: top.offered };
    },
  };
}

/**
 * Inside a write transaction (an enqueue, or a task write carrying the jobs its change causes): adds jobs to their
 * queues and files each queue in the due index. Every key is checked before the first put, so a job that cannot be
 * stored leaves none of them behind (an index key [at, queue] is no longer than the job's [queue, seq]).
 */
export function putPushJobs(o: { db: Database<unknown, Key>; due: Pick<DueIndex, 'change'> }, jobs: readonly PushJob[]): void {
  assertKeysFit({ record: 'push-job', keys: jobs.map(keyOf) });
  o.due.change(
    jobs.map((j) => j.queue),
    () => {
      for (const job of jobs) o.db.put(keyOf(job), { job } satisfies StoredJob);
    },
  );
}
