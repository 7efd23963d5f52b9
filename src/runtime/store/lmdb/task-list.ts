// The LMDB listing index (`task-list`, `task-list-at`, `task-list-count`): each task under three scopes (its workspace;
// its workspace and context; its workspace and state), newest status first, ties by id, so a listing page is a range
// read of its scope from a keyset cursor. A context and a state together read the context's scope, whose entries hold
// the task's state (a context holds few tasks). Each entry holds the task's agent, so a listing limited to agents
// keeps its entries without reading a task it will not show. One count record per workspace and one per agent of it
// (tasks, and per state) give the totals without a range count. Kept in the task's own write transaction; a write
// that moves nothing writes nothing.
import { createHash } from 'node:crypto';
import type { Database, Key, RootDatabase } from 'lmdb';
import { Task, type TaskState } from '../../../protocol/model.js';
import type { ListCursor, ListPageQuery } from '../types.js';
import { taskKey } from '../types.js';
import { checked, listed, type OnCorrupt } from '../validate.js';
import { getDecoded } from './decoded.js';
import { agentListed, LIST_WALK, statusTime } from '../list-page.js';
import { AFTER_ANY_STRING } from './ranges.js';

/** What a task is indexed under; `task-list-at` keeps it per task key, so a later write or the sweep finds the old entries. */
interface Listed {
  time: number;
  contextId: string;
  state: TaskState;
  agentId: string;
}

export interface LmdbTaskListOptions {
  /** [scope..., -status time, id] -> the task's agent (the context scope: [state, agent]) */
  entries: Database<unknown, Key>;
  /** task key -> [status time, contextId, state, agent]: where its entries are, and what it is counted under */
  at: Database<unknown, string>;
  /** ['n', workspace] and ['n', workspace, agent] -> { '': tasks, [state]: tasks in it } (a listing's total without a count of the range) */
  counts: Database<unknown, Key>;
}

/** Marks, in the count database, that the index holds every task stored before it existed (a string key: scopes are arrays). */
const BUILT = 'built';

/** A status time as the index's sort key: newest first; -0 would encode apart from 0 */
const rank = (time: number): number => -time || 0;

const listedOf = (t: Task): Listed => ({ time: statusTime(t), contextId: t.contextId, state: t.status.state, agentId: t.agentId });

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

const sameKey = (a: Key[], b: Key[]) => a.length === b.length && a.every((part, j) => part === b[j]);

/** The three scopes a task is listed under, in a fixed order (so a rewrite compares them pairwise). */
function scopes(ws: string, l: Omit<Listed, 'time'>): Key[][] {
  return [scopeKey(['w', ws]), scopeKey(['c', ws, l.contextId]), scopeKey(['s', ws, l.state])];
}

/** The context scope's entries hold the state and the agent (a context-and-state listing filters them); the others the agent. */
const CONTEXT_SCOPE = 1;

/** What an entry's value says of its task: its agent, and in the context scope its state. */
function entryOf(value: unknown): { agentId?: string; state?: string } {
  if (typeof value === 'string') return { agentId: value };
  if (Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'string') return { state: value[0], agentId: value[1] };
  return {};
}

/** The scope a listing query reads: the narrowest that its filters name (a context before a state). */
function scopeOf(q: { workspaceId: string; contextId?: string; state?: TaskState }): Key[] {
  if (q.contextId !== undefined) return scopeKey(['c', q.workspaceId, q.contextId]);
  if (q.state !== undefined) return scopeKey(['s', q.workspaceId, q.state]);
  return scopeKey(['w', q.workspaceId]);
}

function readListed(raw: unknown): Listed | undefined {
  if (!Array.isArray(raw) || raw.length !== 4) return undefined;
  const [time, contextId, state, agentId] = raw as unknown[];
  if (typeof time !== 'number' || typeof contextId !== 'string' || typeof state !== 'string' || typeof agentId !== 'string') return undefined;
  return { time, contextId, state: state as TaskState, agentId };
}

type Counts = Record<string, number>;
const readCounts = (raw: unknown): Counts => (typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? { ...(raw as Counts) } : {});

export function lmdbTaskList(o: LmdbTaskListOptions) {
  const { entries, at, counts } = o;
  const countKey = (ws: string) => scopeKey(['n', ws]);
  /** An agent's own count record, apart from the workspace's: its size does not grow with the workspace's agents. */
  const agentCountKey = (ws: string, agentId: string) => scopeKey(['n', ws, agentId]);
  /** Adds `moves` ([state, by]) to a count record ('' is its total), in one read and one put. */
  const move = (key: Key[], moves: Array<[TaskState, number]>) => {
    const n = readCounts(counts.get(key));
    const add = (field: string, by: number) => {
      const v = (typeof n[field] === 'number' ? n[field] : 0) + by;
      if (v > 0) n[field] = v;
      else delete n[field];
    };
    for (const [state, by] of moves) {
      add(state, by);
      add('', by);
    }
    if (Object.keys(n).length > 0) counts.put(key, n);
    else counts.remove(key);
  };
  /**
   * Only when a task comes, goes or changes state (or agent): the workspace's count record, and the agent's (one read
   * and one put each; one record for both ends when the agent is kept).
   */
  const recount = (ws: string, from: Listed | undefined, to: Listed | undefined) => {
    const moves: Array<[TaskState, number]> = [];
    if (from !== undefined) moves.push([from.state, -1]);
    if (to !== undefined) moves.push([to.state, 1]);
    move(countKey(ws), moves);
    if (from !== undefined && to !== undefined && from.agentId === to.agentId) move(agentCountKey(ws, to.agentId), moves);
    else {
      if (from !== undefined) move(agentCountKey(ws, from.agentId), [[from.state, -1]]);
      if (to !== undefined) move(agentCountKey(ws, to.agentId), [[to.state, 1]]);
    }
  };

  /** Inside a write transaction: moves the task's entries to where `next` lists it (undefined: removes them). */
  const place = (ws: string, id: string, next: Listed | undefined): void => {
    const key = taskKey(ws, id);
    // an entry damaged or missing is read as none: the task is indexed afresh, its old entries (if any) left for
    // the listing to skip
    const prev = readListed(at.get(key));
    if (!prev && !next) return;
    // the common rewrite of a task (an artifact, a message, the same state and time) moves nothing and writes nothing
    if (prev && next && prev.time === next.time && prev.contextId === next.contextId && prev.state === next.state && prev.agentId === next.agentId) return;
    const from = prev && scopes(ws, prev);
    const to = next && scopes(ws, next);
    const sameAgent = prev !== undefined && next !== undefined && prev.agentId === next.agentId;
    for (let i = 0; i < 3; i++) {
      const a = from?.[i];
      const b = to?.[i];
      const sameScope = a !== undefined && b !== undefined && sameKey(a, b);
      // a scope, time and agent kept: only the context scope's held state may need a put
      if (sameScope && sameAgent && prev!.time === next!.time && (i !== CONTEXT_SCOPE || prev!.state === next!.state)) continue;
      if (a && !(sameScope && prev!.time === next!.time)) entries.remove([...a, rank(prev!.time), id]);
      if (b) entries.put([...b, rank(next!.time), id], i === CONTEXT_SCOPE ? [next!.state, next!.agentId] : next!.agentId);
    }
    if (!prev || !next || prev.state !== next.state || !sameAgent) recount(ws, prev, next);
    if (next) at.put(key, [next.time, next.contextId, next.state, next.agentId]);
    else at.remove(key);
  };

  /** Whether an entry key [scope..., rank, id] is the cursor's own (a range read starts there, inclusive). */
  const isCursor = (k: Key, after: ListCursor | undefined): boolean =>
    after !== undefined && Array.isArray(k) && k[k.length - 1] === after.id && k[k.length - 2] === rank(after.time);

  return {
    /** The keys a write of `task` puts (for the key-size check before its first change). */
    keysOf(task: Task): Key[] {
      const l = listedOf(task);
      return [
        ...scopes(task.workspaceId, l).map((s) => [...s, rank(l.time), task.id]),
        countKey(task.workspaceId),
        agentCountKey(task.workspaceId, task.agentId),
      ];
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
     * One page in listing order: the scope's range read from just after the cursor, one entry past the page to know
     * whether another follows (O(log n + page)). The total is the workspace's count record (its agents' fields for a
     * listing limited to agents), or a native count of the range (a time bound); a context walks the context's entries.
     * A listing limited to agents steps over at most LIST_WALK entries of others' tasks per page.
     */
    page(q: ListPageQuery): { keys: string[]; total: number; next?: ListCursor } {
      const scope = scopeOf(q);
      const end = q.since === undefined ? [...scope, AFTER_ANY_STRING] : [...scope, rank(q.since), AFTER_ANY_STRING];
      const start = q.after === undefined ? scope : [...scope, rank(q.after.time), q.after.id];
      const agents = q.agents;
      const inContext = q.contextId !== undefined;
      /** whether an entry's task is one the query keeps (its state in the context scope, its agent) */
      const keeps = (value: unknown): boolean => {
        if (!inContext && agents === undefined) return true;
        const e = entryOf(value);
        if (inContext && q.state !== undefined && e.state !== q.state) return false;
        return agents === undefined || (e.agentId !== undefined && agentListed(agents, e.agentId));
      };
      const filtered = (inContext && q.state !== undefined) || agents !== undefined;
      let total: number;
      if (inContext || (q.since !== undefined && agents !== undefined)) {
        // a context holds few tasks; a time bound with agents is a walk of the range's entries (no task read)
        total = 0;
        for (const { value } of entries.getRange({ start: scope, end })) if (keeps(value)) total++;
      } else if (q.since === undefined) {
        const read = (key: Key[]) => {
          const v = readCounts(counts.get(key))[q.state ?? ''];
          return typeof v === 'number' ? v : 0;
        };
        const all = agents === undefined || 'except' in agents ? read(countKey(q.workspaceId)) : 0;
        const named = agents === undefined ? [] : [...new Set('only' in agents ? agents.only : agents.except)];
        const theirs = named.reduce((sum, a) => sum + read(agentCountKey(q.workspaceId, a)), 0);
        total = agents === undefined ? all : 'only' in agents ? theirs : Math.max(0, all - theirs);
      } else {
        total = entries.getCount({ start: scope, end });
      }
      const keys: string[] = [];
      let next: ListCursor | undefined;
      let last: ListCursor | undefined;
      // a context is walked whole (few tasks); a listing limited to agents up to its bound
      const walk = agents !== undefined && !inContext ? LIST_WALK : Number.POSITIVE_INFINITY;
      let walked = 0;
      if (q.limit > 0) {
        for (const { key: k, value } of entries.getRange({ start, end, ...(!filtered && { limit: q.limit + 2 }) })) {
          if (isCursor(k, q.after) || !Array.isArray(k)) continue;
          const id = k[k.length - 1];
          const r = k[k.length - 2];
          if (typeof id !== 'string' || typeof r !== 'number') continue;
          // the walk's bound reached with an entry left: the next page starts after the last one stepped over
          if (walked === walk) {
            next = last;
            break;
          }
          walked++;
          if (!keeps(value)) {
            if (keys.length < q.limit) last = { time: -r || 0, id };
            continue;
          }
          // the page is full and a task it would show follows
          if (keys.length === q.limit) {
            next = last;
            break;
          }
          keys.push(taskKey(q.workspaceId, id));
          last = { time: -r || 0, id };
        }
      }
      return { keys, total, ...(next && { next }) };
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
  counts: Database<unknown, Key>;
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

/**
 * The layouts of the builds before (`task-list`, `-at`, `-count`: four scopes; the same names with `-3`: entries
 * without the agent) are emptied, not kept up: a build of either run on this dir again (a downgrade) finds no marker
 * and indexes every task afresh, rather than read entries this build stopped moving. Their databases stay (lmdb-js
 * cannot drop one without opening it).
 */
export async function dropOldTaskList(root: RootDatabase): Promise<void> {
  for (const suffix of ['', '-3']) {
    const counts = root.openDB<unknown, Key>({ name: `task-list-count${suffix}`, encoding: 'msgpack', keyEncoding: 'ordered-binary', cache: false });
    if (counts.getKeysCount() === 0) continue;
    for (const name of ['task-list', 'task-list-at']) await root.openDB({ name: `${name}${suffix}`, cache: false }).clearAsync();
    await counts.clearAsync();
  }
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
