// The record the LMDB push-jobs sub-database holds per waiting job ([queue, seq] -> {job, lease?}), and when a queue's
// head may be claimed: shared by the job store (push-jobs.ts) and the due index kept with it (push-due.ts).
import type { Key } from 'lmdb';
import { z } from 'zod';
import { PushJob } from '../../../protocol/records.js';
import { checked } from '../validate.js';

export const StoredJob = z.object({
  job: PushJob,
  lease: z.object({ token: z.string(), until: z.number() }).optional(),
});
export type StoredJob = z.infer<typeof StoredJob>;

/** How a job's key is named in errors and reports. */
export const jobId = (key: Key): string => JSON.stringify(key);

export const keyOf = (job: { queue: string; seq: number }): Key => [job.queue, job.seq];

/** The stored value checked (a StoreCorruptError naming the job when it is not a job record). */
export const readStored = (value: unknown, key: Key): StoredJob => checked({ schema: StoredJob, value, record: 'push-job', id: jobId(key) });

/** When a head may be claimed: its due time, or later while someone's lease on it runs. */
export const eligibleAt = (s: StoredJob): number => (s.lease && s.lease.until > s.job.dueAt ? s.lease.until : s.job.dueAt);
