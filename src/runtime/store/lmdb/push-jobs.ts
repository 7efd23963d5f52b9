// The LMDB push job queues: one sub-database keyed [queue, seq], each value the job plus its lease (if claimed).
//
// A claim scans the waiting jobs in key order, takes the first one of each queue (its head) and hands the due heads
// out oldest first (claimOrder, as on Redis); that is O(waiting jobs), fine for the embedded engine whose queues drain
// as they are delivered.
// Every read-then-write (claim, complete, retry) is one LMDB write transaction, so two processes
// on the same files never lease one head twice.
import type { Database, Key, RootDatabase } from 'lmdb';
import { z } from 'zod';
import { PushJob } from '../../../protocol/records.js';
import { TopK } from '../../top-k.js';
import { claimOrder, dueBefore, taskQueuePrefix, workspaceQueuePrefix } from '../push-queues.js';
import type { ClaimedPushJob, PushJobStore } from '../types.js';
import { checked, listed, type OnCorrupt } from '../validate.js';
import { heldByEarlierRun, leaseToken } from '../lease-holder.js';
import { capGate, isFull } from '../workspace-cap.js';
import { assertKeysFit } from './key-size.js';
import { getDecoded, rangeDecoded } from './decoded.js';

const StoredJob = z.object({
  job: PushJob,
  lease: z.object({ token: z.string(), until: z.number() }).optional(),
});
type StoredJob = z.infer<typeof StoredJob>;

/** keys per range read of a workspace's jobs; the event loop is given back between reads */
const SLICE = 1_000;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

const jobId = (key: Key): string => JSON.stringify(key);

const keyOf = (job: { queue: string; seq: number }): Key => [job.queue, job.seq];

/** When a head may be claimed: its due time, or later while someone's lease on it runs. */
const eligibleAt = (s: StoredJob): number => (s.lease && s.lease.until > s.job.dueAt ? s.lease.until : s.job.dueAt);

export function lmdbPushJobStore(o: {
  root: RootDatabase;
  db: Database<unknown, Key>;
  fresh: () => void;
  /** where claims report a damaged head they pass over (none: a damaged head fails the claim) */
  onCorrupt?: OnCorrupt;
}): PushJobStore {
  const { root, db } = o;
  const read = (value: unknown, key: Key) => checked({ schema: StoredJob, value, record: 'push-job', id: jobId(key) });

  /**
   * Each queue's first job, in key order. A damaged head (with onCorrupt) is reported and passed over with its queue,
   * which waits behind it (a queue keeps its order), so that it does not hold up every other queue's deliveries.
   */
  function heads(): Array<{ key: Key; stored: StoredJob }> {
    const out: Array<{ key: Key; stored: StoredJob }> = [];
    let started = false;
    let last: unknown;
    for (const entry of rangeDecoded({ db, range: {}, record: 'push-job', idOf: jobId })) {
      const { key } = entry;
      const queue = Array.isArray(key) ? key[0] : undefined;
      if (started && queue === last) continue;
      started = true;
      last = queue;
      const stored = listed(o.onCorrupt, () => read(entry.value, key));
      if (stored) out.push({ key, stored });
    }
    return out;
  }

  /** Runs `fn` on the stored job if `c` still holds its lease. */
  function withLease(c: ClaimedPushJob, fn: (key: Key, s: StoredJob) => void): Promise<boolean> {
    return root.transaction(() => {
      const key = keyOf(c.job);
      const v = getDecoded({ db, key, record: 'push-job', id: jobId(key) });
      if (v === undefined) return false;
      const s = read(v, key);
      if (s.lease?.token !== c.lease) return false;
      fn(key, s);
      return true;
    });
  }

  return {
    async enqueue(jobs) {
      if (jobs.length === 0) return;
      await root.transaction(() => putPushJobs(db, jobs));
    },
    async claim({ now, leaseMs, limit, holder, perWorkspace }) {
      if (limit <= 0) return [];
      // most looks find nothing due: answer those from a read, without a write transaction
      o.fresh();
      const look = capGate(perWorkspace);
      if (!heads().some(({ stored }) => eligibleAt(stored) <= now && look.admit(stored.job.workspaceId))) return [];
      return root.transaction(() => {
        const token = leaseToken(holder);
        const gate = capGate(perWorkspace);
        const out: ClaimedPushJob[] = [];
        // oldest first, as on Redis (claimOrder), not in key order: a workspace whose name sorts first must not go
        // before updates that waited longer
        const due = heads()
          .map((h) => ({ ...h, at: eligibleAt(h.stored), queue: h.stored.job.queue }))
          .filter((h) => h.at <= now)
          .sort(claimOrder);
        for (const { key, stored } of due) {
          if (out.length >= limit) break;
          // its workspace holds its share: the queue waits (in order) and the next workspace's head is looked at
          if (!gate.admit(stored.job.workspaceId)) continue;
          db.put(key, { job: stored.job, lease: { token, until: now + leaseMs } } satisfies StoredJob);
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
    releaseEarlierLeases(holder) {
      return root.transaction(() => {
        // every record read (a damaged one throws) before the first change: a throw must leave nothing half done
        const freed: Array<{ key: Key; job: PushJob }> = [];
        for (const entry of rangeDecoded({ db, range: {}, record: 'push-job', idOf: jobId })) {
          const s = listed(o.onCorrupt, () => read(entry.value, entry.key));
          const { key } = entry;
          if (s?.lease && heldByEarlierRun(s.lease.token, holder)) freed.push({ key, job: s.job });
        }
        for (const { key, job } of freed) db.put(key, { job } satisfies StoredJob);
        return freed.length;
      });
    },
    async nextDueAt({ passOver } = {}) {
      o.fresh();
      let min: number | undefined;
      for (const { stored } of heads()) {
        if (isFull(passOver, stored.job.workspaceId)) continue;
        const at = eligibleAt(stored);
        if (min === undefined || at < min) min = at;
      }
      return min;
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
        for (const key of gone) db.remove(key);
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
 * queues. Every key is checked before the first put, so a job that cannot be stored leaves none of them behind.
 */
export function putPushJobs(db: Database<unknown, Key>, jobs: readonly PushJob[]): void {
  assertKeysFit({ record: 'push-job', keys: jobs.map(keyOf) });
  for (const job of jobs) db.put(keyOf(job), { job } satisfies StoredJob);
}
