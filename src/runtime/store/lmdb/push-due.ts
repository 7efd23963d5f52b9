// The LMDB push jobs' due index: one entry [at, queue] -> workspace id per queue that holds jobs, `at` being when the queue's
// head may be claimed (eligibleAt: its due time, or the end of a lease on it). Claims and wake-ups read it from its
// start, in claim order (ordered-binary sorts [number, string] keys by the number, then the string's UTF-8 bytes:
// claimOrder), so they meet only the heads already claimable, never the jobs held behind a head or waiting out their
// backoff; a head passed over for its workspace's share is passed over by its entry's value, its job left unread.
// Every change to a queue goes through `change`, in the same write transaction, which moves the queue's entry
// to match its head afterwards; `rebuild` derives the whole index from the jobs (once per open, see push-jobs.ts).
import type { Database, Key } from 'lmdb';
import { StoreCorruptError } from '../errors.js';
import { getDecoded } from './decoded.js';
import { eligibleAt, jobId, readStored } from './push-job-record.js';

export interface DueEntry {
  at: number;
  queue: string;
  /** the head job's workspace ('' for a head that does not read) */
  workspace: string;
}

type Filing = Omit<DueEntry, 'queue'>;

export interface DueIndex {
  /** the key of the queue's first job, or undefined when the queue is empty */
  headKey(queue: string): Key | undefined;
  /**
   * How the index files the queue: at its head's eligibleAt, under its workspace; at 0 for a head that does not read (so
   * claims meet it at once and report it, as they did when they read every head); undefined for an empty queue.
   */
  filingOf(queue: string): Filing | undefined;
  /** Inside a write transaction: runs `fn` (a change to these queues), then files each queue by its head after it. */
  change<T>(queues: Iterable<string>, fn: () => T): T;
  /** Inside a write transaction: one entry, which did not match its queue, filed again from the queue's head. */
  refile(entry: DueEntry): void;
  /** The entries in claim order, read lazily (no write may happen while one is being iterated). */
  entries(): Iterable<DueEntry>;
  /** Inside a write transaction: the index derived afresh from every queue's head. Returns how many queues. */
  rebuild(): number;
}

export function lmdbDueIndex(o: { jobs: Database<unknown, Key>; due: Database<string, Key> }): DueIndex {
  const { jobs, due } = o;

  function headKey(queue: string): Key | undefined {
    for (const key of jobs.getKeys({ start: [queue], end: [queue, Number.POSITIVE_INFINITY], limit: 1 })) return key;
    return undefined;
  }

  function filingOf(queue: string): Filing | undefined {
    const key = headKey(queue);
    if (key === undefined) return undefined;
    try {
      const s = readStored(getDecoded({ db: jobs, key, record: 'push-job', id: jobId(key) }), key);
      return { at: eligibleAt(s), workspace: s.job.workspaceId };
    } catch (e) {
      if (e instanceof StoreCorruptError) return { at: 0, workspace: '' };
      throw e;
    }
  }

  function file(queue: string, from: Filing | undefined, to: Filing | undefined): void {
    if (from?.at === to?.at && from?.workspace === to?.workspace) return;
    if (from !== undefined) due.remove([from.at, queue]);
    if (to !== undefined) due.put([to.at, queue], to.workspace);
  }

  return {
    headKey,
    filingOf,
    change(queues, fn) {
      const before = new Map<string, Filing | undefined>();
      for (const q of queues) if (!before.has(q)) before.set(q, filingOf(q));
      const out = fn();
      for (const [q, filing] of before) file(q, filing, filingOf(q));
      return out;
    },
    refile({ at, queue }) {
      due.remove([at, queue]);
      file(queue, undefined, filingOf(queue));
    },
    *entries() {
      for (const { key, value } of due.getRange({})) {
        if (Array.isArray(key) && typeof key[0] === 'number' && typeof key[1] === 'string') {
          yield { at: key[0], queue: key[1], workspace: typeof value === 'string' ? value : '' };
        }
      }
    },
    rebuild() {
      for (const key of [...due.getKeys({})]) due.remove(key);
      let n = 0;
      let last: unknown;
      const queues: string[] = [];
      for (const key of jobs.getKeys({})) {
        const q = Array.isArray(key) ? key[0] : undefined;
        if (typeof q !== 'string' || (n > 0 && q === last)) continue;
        last = q;
        n++;
        queues.push(q);
      }
      for (const q of queues) file(q, undefined, filingOf(q));
      return queues.length;
    },
  };
}
