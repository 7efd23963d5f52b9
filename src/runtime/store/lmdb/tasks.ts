// The LMDB tasks: `tasks` and their indexes (`task-state`, `tasks-by-state`, `tasks-ended`, the listing's `task-list`,
// and the legacy `task-seq`); one write path, one sweep.
import type { Database, Key, RootDatabase } from 'lmdb';
import type { TaskEvent } from '../../../protocol/events.js';
import { Task, TERMINAL_STATES, type TaskState } from '../../../protocol/model.js';
import type { TaskPutOptions, TaskStore } from '../types.js';
import { taskKey } from '../types.js';
import { checked, listed, replacing, type OnCorrupt } from '../validate.js';
import { StoreCorruptError } from '../errors.js';
import { getDecoded } from './decoded.js';
import { dropEvents, putEvents } from './events.js';
import { dropPushConfigs, holdsPushConfigs } from './push-configs.js';
import { TaskHasPushConfigsError } from '../errors.js';
import { assertKeysFit } from './key-size.js';
import { putPushJobs } from './push-jobs.js';
import type { DueIndex } from './push-due.js';
import type { LmdbTaskList } from './task-list.js';
import { matchesListQuery } from '../list-page.js';
import { optionsWith } from '../../../protocol/copy-with.js';

export interface LmdbTaskStoreOptions {
  root: RootDatabase;
  /** task key -> Task (lmdb-js's object cache on: only the server process writes tasks) */
  tasks: Database<unknown, Key>;
  /** task key -> its indexed state and record seq (`indexValue`) */
  taskState: Database<string, string>;
  /** unfinished state -> task keys (dupSort); terminal tasks are listed through `ended` */
  byState: Database<unknown, string>;
  /** task key -> its record's seq, for records written before the seq moved into `taskState` (read, then dropped) */
  taskSeq: Database<number, string>;
  /** [endedAt, task key] -> true */
  ended: Database<true, Key>;
  /** the events a task write carries go in its transaction; a swept task's events go with it */
  events: Database<unknown, Key>;
  /** a swept task's push configs go with it; a write that read none checks there are none */
  pushConfigs: Database<unknown, Key>;
  /** the push jobs a task write carries go in its transaction, filed in the due index (push-due.ts) there too */
  pushJobs: { db: Database<unknown, Key>; due: Pick<DueIndex, 'change'> };
  /** the listing index (task-list.ts), written in each task write and sweep */
  list: LmdbTaskList;
  /** drops lmdb-js's reused read snapshot, so a read sees other processes' commits */
  fresh: () => void;
  /** where listings report the damaged tasks they leave out (none: a damaged task fails the listing) */
  onCorrupt?: OnCorrupt;
}

export function lmdbTaskStore(o: LmdbTaskStoreOptions): TaskStore {
  const { root, tasks, taskState, byState, taskSeq, ended, events, list: listIndex, fresh, onCorrupt } = o;
  // a cached value is the same object until this process writes that task again, which lets a validated read
  // be remembered instead of parsed on every tasks/get
  const validTasks = new WeakMap<object, Task>();
  const readTask = (id: string): Task | undefined => {
    const v = getDecoded({ db: tasks, key: id, record: 'task', id });
    if (v === undefined) return undefined;
    const known = typeof v === 'object' && v !== null ? validTasks.get(v) : undefined;
    if (known) return known;
    const task = checked({ schema: Task, value: v, record: 'task', id });
    if (typeof v === 'object' && v !== null) validTasks.set(v, task);
    return task;
  };

  /**
   * Inside a write transaction: the seq an earlier build kept in `task-seq`. A damaged one (bytes that are not msgpack,
   * a value that is not a seq) is reported and read as absent, as a legacy record without a seq is: the write that
   * meets it drops it. Failing instead (msgpackr's bare error, or a seq that never matched) failed that task's every
   * later write for good.
   */
  const legacySeq = (key: string): number | undefined =>
    replacing(onCorrupt, () => {
      const v = getDecoded({ db: taskSeq as Database<unknown, Key>, key, record: 'task-seq', id: key });
      if (v !== undefined && !(typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) throw new StoreCorruptError({ record: 'task-seq', id: key });
      return v as number | undefined;
    });

  /**
   * The one task write path: check and write inside one write transaction, so two writers can never both pass the
   * check (create: nothing stored; put: stored task not terminal, and at `expectSeq` when given).
   */
  const writeTask = (task: Task, w: TaskPutOptions & { create: boolean }): Promise<boolean> => {
    const state = task.status.state;
    const key = taskKey(task.workspaceId, task.id);
    const written = root.transaction((): boolean | 'has-push-configs' => {
      // the check reads the uncached index entry, never the task cache (another store instance may have written)
      const prev = readIndex(taskState.get(key));
      const prevSeq = prev?.legacy ? legacySeq(key) : prev?.seq;
      if (!admits({ state: prev?.state, seq: prevSeq, create: w.create, expectSeq: w.expectSeq })) return false;
      // before any put: a refused write leaves nothing behind
      if (w.withoutPushConfigs && holdsPushConfigs(o.pushConfigs, key)) return 'has-push-configs';
      const terminal = TERMINAL_STATES.has(state);
      const list = w.events ?? [];
      // lmdb-js commits what an async transaction put before a throw: every key this write puts is checked before its
      // first change (values cannot fail: what reaches a task is plain JSON data, bounded in depth at the boundaries)
      assertKeysFit({ record: 'task', keys: [...writtenKeys({ key, terminal, endedAt: task.updatedAt, events: list }), ...listIndex.keysOf(task)] });
      // the webhooks this change causes, in its own commit, so that no crash keeps the change and loses them; first,
      // so that a job that cannot be stored fails the write before the task is touched
      if (w.pushJobs && w.pushJobs.length > 0) putPushJobs(o.pushJobs, w.pushJobs);
      // an admitted write never follows a terminal record, so a previous state is an unfinished, indexed one
      if (prev !== undefined && prev.state !== state) byState.remove(prev.state, key);
      tasks.put(key, task);
      taskState.put(key, indexValue(state, task.seq ?? 0));
      listIndex.put(task);
      if (prev?.legacy) taskSeq.remove(key);
      // only unfinished tasks are listed by state (recovery): a terminal one costs no entry there
      if (!terminal && prev?.state !== state) byState.put(state, key);
      if (terminal) ended.put([task.updatedAt, key], true);
      // a group commit's events in few values (events.ts): one B-tree write per value instead of one per event
      if (list.length > 0) putEvents(events, key, list, w.retainEvents);
      return true;
    });
    return written.then((r) => {
      if (r === 'has-push-configs') throw new TaskHasPushConfigsError(key);
      return r;
    });
  };

  return {
    create(task, w) {
      return writeTask(task, optionsWith(w, { create: true }));
    },
    put(task, w) {
      return writeTask(task, optionsWith(w, { create: false }));
    },
    async get(workspaceId, id) {
      fresh();
      return readTask(taskKey(workspaceId, id));
    },
    async listByState(states) {
      fresh();
      const out: Task[] = [];
      const wanted = new Set(states);
      for (const state of wanted) {
        if (TERMINAL_STATES.has(state)) continue;
        for (const id of byState.getValues(state)) {
          if (typeof id !== 'string') continue;
          const task = listed(onCorrupt, () => readTask(id));
          if (task) out.push(task);
        }
      }
      // terminal tasks have no by-state entry (recovery never asks for them): the ended index holds them all, each once
      if ([...wanted].some((s) => TERMINAL_STATES.has(s))) {
        for (const k of ended.getKeys()) {
          const key = Array.isArray(k) ? k[1] : undefined;
          if (typeof key !== 'string') continue;
          // chosen by the index entry, as the by-state lists are (the task cache may hold another instance's older record)
          const index = readIndex(taskState.get(key));
          const task = index !== undefined && wanted.has(index.state) ? listed(onCorrupt, () => readTask(key)) : undefined;
          if (task) out.push(task);
        }
      }
      return out;
    },
    async listPage(q) {
      fresh();
      const { keys, total, next } = listIndex.page(q);
      const out: Task[] = [];
      for (const key of keys) {
        const task = listed(onCorrupt, () => readTask(key));
        // the entry and the record are one transaction's: a mismatch is damage, left out rather than shown misfiled
        if (task && matchesListQuery(task, q)) out.push(task);
      }
      return { tasks: out, total, ...(next && { next }) };
    },
    sweep({ endedBy, limit }) {
      return root.transaction(() => {
        const gone: string[] = [];
        for (const { key: k } of ended.getRange({ start: [0], end: [endedBy + 1], limit })) {
          const key = Array.isArray(k) ? k[1] : undefined;
          ended.remove(k);
          if (typeof key !== 'string') continue;
          const index = readIndex(taskState.get(key));
          // a terminal task has a by-state entry only when written before terminal ones went unindexed
          if (index !== undefined && (index.legacy || !TERMINAL_STATES.has(index.state))) byState.remove(index.state, key);
          if (index?.legacy) taskSeq.remove(key);
          taskState.remove(key);
          tasks.remove(key);
          listIndex.remove(key);
          dropEvents(events, key);
          dropPushConfigs(o.pushConfigs, key);
          gone.push(key);
        }
        return gone;
      });
    },
    // a workspace's tasks are a key range of the records themselves, written by one process: nothing to repair
    async claimIndexRepair() {
      return true;
    },
    async repairIndexStep() {
      return { cursor: '', added: 0 };
    },
  };
}

/**
 * The keys a task write puts besides its push jobs' (checked by putPushJobs): the task key (record, state index,
 * by-state entry), its ended-index key when terminal, its events key. An events key's seq is a fixed-width number in
 * ordered-binary, so this one also stands for the keys a trim re-puts.
 */
function writtenKeys(o: { key: string; terminal: boolean; endedAt: number; events: readonly TaskEvent[] }): Key[] {
  const keys: Key[] = [o.key];
  if (o.terminal) keys.push([o.endedAt, o.key]);
  if (o.events.length > 0) keys.push([o.key, o.events[0]!.seq]);
  return keys;
}

/**
 * A task's `task-state` value: its state and its record's seq, so that a write's check reads one entry. A value
 * without a seq (no space) was written by an earlier build, which kept the seq in `task-seq` and indexed every
 * state, terminal ones too.
 */
const indexValue = (state: TaskState, seq: number): string => `${state} ${seq}`;

function readIndex(raw: string | undefined): { state: TaskState; seq: number; legacy: false } | { state: TaskState; legacy: true } | undefined {
  if (raw === undefined) return undefined;
  const space = raw.indexOf(' ');
  if (space < 0) return { state: raw as TaskState, legacy: true };
  return { state: raw.slice(0, space) as TaskState, seq: Number(raw.slice(space + 1)), legacy: false };
}

/**
 * Whether a task write may go ahead over the stored task's indexed state and seq (both undefined: no task). A task
 * stored before seqs were indexed has none: it is admitted as if at the expected seq.
 */
function admits(o: { state: string | undefined; seq: number | undefined; create: boolean; expectSeq: number | undefined }): boolean {
  if (o.state === undefined) return o.create || o.expectSeq === undefined;
  if (o.create || TERMINAL_STATES.has(o.state as TaskState)) return false;
  return o.expectSeq === undefined || o.seq === undefined || o.seq === o.expectSeq;
}
