// The LMDB tasks: `tasks` and their indexes (`task-state`, `tasks-by-state`, `task-seq`, `tasks-ended`); one write path, one sweep.
import type { Database, Key, RootDatabase } from 'lmdb';
import { Task, TERMINAL_STATES, type TaskState } from '../../../protocol/model.js';
import type { TaskPutOptions, TaskStore } from '../types.js';
import { taskKey } from '../types.js';
import { checked } from '../validate.js';
import { dropEvents, putEvents } from './events.js';
import { dropPushConfigs } from './push-configs.js';

export interface LmdbTaskStoreOptions {
  root: RootDatabase;
  /** task key -> Task (lmdb-js's object cache on: only the server process writes tasks) */
  tasks: Database<unknown, Key>;
  /** task key -> its indexed state */
  taskState: Database<string, string>;
  /** state -> task keys (dupSort) */
  byState: Database<unknown, string>;
  /** task key -> its record's seq */
  taskSeq: Database<number, string>;
  /** [endedAt, task key] -> true */
  ended: Database<true, Key>;
  /** the events a task write carries go in its transaction; a swept task's events go with it */
  events: Database<unknown, Key>;
  /** a swept task's push configs go with it */
  pushConfigs: Database<unknown, Key>;
  /** drops lmdb-js's reused read snapshot, so a read sees other processes' commits */
  fresh: () => void;
}

export function lmdbTaskStore(o: LmdbTaskStoreOptions): TaskStore {
  const { root, tasks, taskState, byState, taskSeq, ended, events, fresh } = o;
  // a cached value is the same object until this process writes that task again, which lets a validated read
  // be remembered instead of parsed on every tasks/get
  const validTasks = new WeakMap<object, Task>();
  const readTask = (id: string): Task | undefined => {
    const v = tasks.get(id);
    if (v === undefined) return undefined;
    const known = typeof v === 'object' && v !== null ? validTasks.get(v) : undefined;
    if (known) return known;
    const task = checked({ schema: Task, value: v, record: 'task', id });
    if (typeof v === 'object' && v !== null) validTasks.set(v, task);
    return task;
  };

  /**
   * The one task write path: check and write inside one write transaction, so two writers can never both pass the
   * check (create: nothing stored; put: stored task not terminal, and at `expectSeq` when given).
   */
  const writeTask = (task: Task, w: TaskPutOptions & { create: boolean }): Promise<boolean> => {
    const state = task.status.state;
    const key = taskKey(task.workspaceId, task.id);
    return root.transaction(() => {
      // the check reads the uncached index entries, never the task cache (another store instance may have written)
      const prev = taskState.get(key);
      if (!admits({ state: prev, seq: taskSeq.get(key), create: w.create, expectSeq: w.expectSeq })) return false;
      if (prev !== undefined && prev !== state) byState.remove(prev, key);
      tasks.put(key, task);
      taskSeq.put(key, task.seq ?? 0);
      if (prev !== state) {
        taskState.put(key, state);
        byState.put(state, key);
      }
      if (TERMINAL_STATES.has(state)) ended.put([task.updatedAt, key], true);
      const list = w.events ?? [];
      // one value per write (a group commit's events): one B-tree write instead of one per event
      if (list.length > 0) putEvents(events, key, list, w.retainEvents);
      return true;
    });
  };

  return {
    create(task, w) {
      return writeTask(task, { ...w, create: true });
    },
    put(task, w) {
      return writeTask(task, { ...w, create: false });
    },
    async get(workspaceId, id) {
      fresh();
      return readTask(taskKey(workspaceId, id));
    },
    async listByState(states) {
      fresh();
      const out: Task[] = [];
      for (const state of new Set(states)) {
        for (const id of byState.getValues(state)) {
          if (typeof id !== 'string') continue;
          const task = readTask(id);
          if (task) out.push(task);
        }
      }
      return out;
    },
    async listByWorkspace(workspaceId) {
      fresh();
      // task keys are `${workspace}/${id}`: the range from `${workspace}/` up to `${workspace}0` ('0' follows '/') holds
      // them all, and a workspace whose id starts with this one's and a slash is read back out by the filter
      const out: Task[] = [];
      for (const key of tasks.getKeys({ start: `${workspaceId}/`, end: `${workspaceId}0` })) {
        if (typeof key !== 'string') continue;
        const task = readTask(key);
        if (task && task.workspaceId === workspaceId) out.push(task);
      }
      return out;
    },
    sweep({ endedBy, limit }) {
      return root.transaction(() => {
        const gone: string[] = [];
        for (const { key: k } of ended.getRange({ start: [0], end: [endedBy + 1], limit })) {
          const key = Array.isArray(k) ? k[1] : undefined;
          ended.remove(k);
          if (typeof key !== 'string') continue;
          const state = taskState.get(key);
          if (state !== undefined) byState.remove(state, key);
          taskState.remove(key);
          taskSeq.remove(key);
          tasks.remove(key);
          dropEvents(events, key);
          dropPushConfigs(o.pushConfigs, key);
          gone.push(key);
        }
        return gone;
      });
    },
  };
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
