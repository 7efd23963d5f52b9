// The LMDB listing index (`task-list`, `task-list-at`, `task-list-count`): each task under four scopes (its workspace;
// its workspace and context; its workspace and state; all three), newest status first, ties by id, so a listing page
// is a range read of its scope cut at an offset, and its total a counter. Kept in the task's own write transaction.
import { createHash } from 'node:crypto';
import type { Database, Key, RootDatabase } from 'lmdb';
import { Task, type TaskState } from '../../../protocol/model.js';
import type { ListPageQuery } from '../types.js';
import { taskKey } from '../types.js';
import { checked, listed, type OnCorrupt } from '../validate.js';
import { getDecoded } from './decoded.js';
import { statusTime } from '../list-page.js';
import { AFTER_ANY_STRING } from './ranges.js';

/** What a task is indexed under; `task-list-at` keeps it per task key, so a later write or the sweep finds the old entries. */
interface Listed {
  time: number;
  contextId: string;
  state: TaskState;
}

export interface LmdbTaskListOptions {
  /** [scope..., -status time, id] -> true */
  entries: Database<true, Key>;
  /** task key -> [status time, contextId, state]: where its entries are */
  at: Database<unknown, string>;
  /** [scope...] -> how many entries the scope holds (a listing's total without a count of the range) */
  counts: Database<number, Key>;
}

/** Marks, in `task-list-count`, that every task stored before the index existed has been indexed (a string key: scopes are arrays). */
const BUILT = 'built';

/** A status time as the index's sort key: newest first; -0 would encode apart from 0 */
const rank = (time: number): number => -time || 0;

const listedOf = (t: Task): Listed => ({ time: statusTime(t), contextId: t.contextId, state: t.status.state });

/**
 * UTF-8 bytes a scope may take in a key as it is; a longer one (a workspace id of a thousand characters: they are not
 * bounded) is named by its digest, so that an entry fits LMDB's key limit wherever its task key does. Most scopes stay
 * readable in the raw data; a digest collision could only add entries that the listing's check skips.
 */
const SCOPE_BYTES = 1_024;

function scopeKey(parts: string[]): Key[] {
  let bound = 0;
  for (const p of parts) bound += p.length * 3 + 2;
  if (bound <= SCOPE_BYTES) return parts;
  return ['#', createHash('sha256').update(JSON.stringify(parts)).digest('base64url')];
}

/** The four scopes a task is listed under, in a fixed order (so a rewrite compares them pairwise). */
function scopes(ws: string, l: Omit<Listed, 'time'>): Key[][] {
  return [scopeKey(['w', ws]), scopeKey(['c', ws, l.contextId]), scopeKey(['s', ws, l.state]), scopeKey(['cs', ws, l.contextId, l.state])];
}

/** The scope a listing query reads: the narrowest of the four that its filters name. */
function scopeOf(q: { workspaceId: string; contextId?: string; state?: TaskState }): Key[] {
  if (q.contextId !== undefined && q.state !== undefined) return scopeKey(['cs', q.workspaceId, q.contextId, q.state]);
  if (q.contextId !== undefined) return scopeKey(['c', q.workspaceId, q.contextId]);
  if (q.state !== undefined) return scopeKey(['s', q.workspaceId, q.state]);
  return scopeKey(['w', q.workspaceId]);
}

function readListed(raw: unknown): Listed | undefined {
  if (!Array.isArray(raw) || raw.length !== 3) return undefined;
  const [time, contextId, state] = raw as unknown[];
  if (typeof time !== 'number' || typeof contextId !== 'string' || typeof state !== 'string') return undefined;
  return { time, contextId, state: state as TaskState };
}

export function lmdbTaskList(o: LmdbTaskListOptions) {
  const { entries, at, counts } = o;
  const bump = (scope: Key[], by: number) => {
    const n = (counts.get(scope) ?? 0) + by;
    if (n > 0) counts.put(scope, n);
    else counts.remove(scope);
  };

  /** Inside a write transaction: moves the task's entries to where `next` lists it (undefined: removes them). */
  const place = (ws: string, id: string, next: Listed | undefined): void => {
    const key = taskKey(ws, id);
    // an entry damaged or missing is read as none: the task is indexed afresh, its old entries (if any) left for
    // the listing to skip
    const prev = readListed(at.get(key));
    const from = prev && scopes(ws, prev);
    const to = next && scopes(ws, next);
    for (let i = 0; i < 4; i++) {
      const a = from?.[i];
      const b = to?.[i];
      const sameScope = a !== undefined && b !== undefined && a.length === b.length && a.every((part, j) => part === b[j]);
      if (sameScope && prev!.time === next!.time) continue;
      if (sameScope) {
        // the common rewrite (a new status time, same scope): the entry moves, the scope's count stays
        entries.remove([...a, rank(prev!.time), id]);
        entries.put([...b, rank(next!.time), id], true);
        continue;
      }
      if (a) {
        entries.remove([...a, rank(prev!.time), id]);
        bump(a, -1);
      }
      if (b) {
        entries.put([...b, rank(next!.time), id], true);
        bump(b, 1);
      }
    }
    if (next) at.put(key, [next.time, next.contextId, next.state]);
    else at.remove(key);
  };

  return {
    /** The keys a write of `task` puts (for the key-size check before its first change). */
    keysOf(task: Task): Key[] {
      const l = listedOf(task);
      return scopes(task.workspaceId, l).map((s) => [...s, rank(l.time), task.id]);
    },
    /** Inside the task's write transaction. */
    put(task: Task): void {
      place(task.workspaceId, task.id, listedOf(task));
    },
    /** Inside the sweep's transaction: the swept task's entries go with it. */
    remove(key: string): void {
      const slash = key.indexOf('/');
      if (slash < 0) return;
      place(key.slice(0, slash), key.slice(slash + 1), undefined);
    },
    /**
     * One page in listing order: the scope's range cut at the offset (lmdb-js steps over the offset in its native
     * cursor, without reading values). The total is the scope's counter, or with a time bound the range's count.
     */
    page(q: ListPageQuery): { keys: string[]; total: number } {
      const scope = scopeOf(q);
      const end = q.since === undefined ? [...scope, AFTER_ANY_STRING] : [...scope, rank(q.since), AFTER_ANY_STRING];
      const total = q.since === undefined ? (counts.get(scope) ?? 0) : entries.getCount({ start: scope, end });
      const keys: string[] = [];
      if (q.limit > 0 && q.offset < total) {
        for (const k of entries.getKeys({ start: scope, end, offset: q.offset, limit: q.limit })) {
          const id = Array.isArray(k) ? k[k.length - 1] : undefined;
          if (typeof id === 'string') keys.push(taskKey(q.workspaceId, id));
        }
      }
      return { keys, total };
    },
  };
}

export type LmdbTaskList = ReturnType<typeof lmdbTaskList>;

/**
 * On open, before the store serves: indexes every task the index lacks (a data dir of an earlier build, or one an
 * earlier build wrote to again after a downgrade), and drops the entries of tasks no longer stored (that build's
 * sweep leaves them), a slice per transaction. Skipped when the index was built and holds as many tasks as are stored
 * (two native key counts); a damaged record is left out (it cannot say where it is listed), so a dir holding one is
 * walked on every open, at a key read per task.
 */
export async function buildTaskList(o: {
  root: RootDatabase;
  tasks: Database<unknown, Key>;
  list: LmdbTaskList;
  at: Database<unknown, string>;
  counts: Database<number, Key>;
  onCorrupt?: OnCorrupt;
}): Promise<number> {
  if (o.counts.get(BUILT) !== undefined && o.at.getKeysCount() === o.tasks.getKeysCount()) return 0;
  let added = 0;
  let start: string | undefined;
  for (;;) {
    const slice: string[] = [];
    for (const k of o.tasks.getKeys({ ...(start !== undefined && { start }), limit: 1_001 })) {
      if (typeof k !== 'string' || k === start) continue;
      slice.push(k);
      if (slice.length === 1_000) break;
    }
    if (slice.length === 0) break;
    await o.root.transaction(() => {
      for (const key of slice) {
        if (o.at.get(key) !== undefined) continue;
        const task = listed(o.onCorrupt ?? (() => {}), () =>
          checked({ schema: Task, value: getDecoded({ db: o.tasks, key, record: 'task', id: key }), record: 'task', id: key }),
        );
        if (!task || taskKey(task.workspaceId, task.id) !== key) continue;
        o.list.put(task);
        added++;
      }
    });
    start = slice[slice.length - 1];
  }
  await dropGone(o);
  await o.counts.put(BUILT, 1);
  return added;
}

/** Takes out of the index every task no longer stored, a slice per transaction. */
async function dropGone(o: { root: RootDatabase; tasks: Database<unknown, Key>; list: LmdbTaskList; at: Database<unknown, string> }): Promise<void> {
  let start: string | undefined;
  for (;;) {
    const slice: string[] = [];
    for (const k of o.at.getKeys({ ...(start !== undefined && { start }), limit: 1_001 })) {
      if (typeof k !== 'string' || k === start) continue;
      slice.push(k);
      if (slice.length === 1_000) break;
    }
    if (slice.length === 0) return;
    const gone = slice.filter((key) => !o.tasks.doesExist(key));
    if (gone.length > 0) {
      await o.root.transaction(() => {
        for (const key of gone) o.list.remove(key);
      });
    }
    start = slice[slice.length - 1];
  }
}
