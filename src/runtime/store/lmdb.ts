// The embedded store engine: one LMDB environment in a directory, shared by the server and CLI processes.
//
// Layout (named sub-databases, values msgpack via lmdb-js's built-in msgpackr encoder):
//   keys            key id -> KeyRecord
//   key-hash        key hash -> key id                 (string values)
//   tasks           task id -> Task
//   task-state      task id -> its indexed state       (string values; lets a put find the old
//                                                       index entry without decoding the old task)
//   tasks-by-state  state -> task ids                  (dupSort index; listByState reads it, no scan)
//   task-seq        task id -> its record's seq        (read uncached by every task write's check)
//   tasks-ended     [endedAt, task id] -> true         (terminal tasks by when they ended: retention sweeps it)
//   push-configs    [taskId, configId] -> StoredPushConfig
//   meta            key -> any value
//   events          [taskKey, firstSeq] -> TaskEvent or TaskEvent[]  (one value per append, its events in seq
//                                                       order; range reads replay after a seq; trimmed per task)
//   push-jobs       [queue, seq] -> {job, lease?}        (webhook deliveries waiting; see lmdb-push-jobs.ts)
// Every multi-entry write (a record plus its index) is one LMDB transaction.
//
// Freshness: the CLI revokes keys while the server runs, so no lmdb-js object cache (`cache: false`, but for tasks)
// and every read first drops lmdb-js's reused read snapshot. lmdb-js otherwise keeps one snapshot
// until a zero-delay timer fires, so two requests handled in the same event-loop turn could both
// miss another process's commit. The reset is a reader-slot release, cheap next to decoding.
import { mkdir } from 'node:fs/promises';
import { open, type Database, type Key, type RootDatabase } from 'lmdb';
import { TaskEvent } from '../../protocol/events.js';
import { Task, TERMINAL_STATES, type TaskState } from '../../protocol/model.js';
import { KeyRecord, StoredPushConfig } from '../../protocol/records.js';
import { checked } from './validate.js';
import { lmdbPushJobs } from './lmdb-push-jobs.js';
import type { Store, TaskPutOptions } from './types.js';
import { taskKey } from './types.js';

/** Sub-database names; exported so tests can reach the raw layout (e.g. to plant a corrupt value). */
export const LMDB_DBS = {
  keys: 'keys',
  keyHash: 'key-hash',
  tasks: 'tasks',
  taskState: 'task-state',
  tasksByState: 'tasks-by-state',
  taskSeq: 'task-seq',
  tasksEnded: 'tasks-ended',
  pushConfigs: 'push-configs',
  meta: 'meta',
  events: 'events',
  pushJobs: 'push-jobs',
} as const;

/** Sorts after every string element of an ordered-binary array key (UTF-8 has no 0xff byte): ends a [taskId, *] range. */
const AFTER_ANY_STRING = new Uint8Array([0xff]);

export async function openLmdbStore(opts: { path: string }): Promise<Store> {
  await mkdir(opts.path, { recursive: true });
  // noSubdir false: lmdb-js would otherwise treat a path with a dot in it as a file name.
  const root: RootDatabase = open({ path: opts.path, noSubdir: false, maxDbs: 16, cache: false });
  // plain msgpack: with no shared structures, msgpackr's records would carry and re-define their shape in every
  // value. lmdb-js passes `useRecords` on to msgpackr; its typings do not list it, hence the untyped spread.
  const plain: Record<string, unknown> = { useRecords: false };
  const db = (name: string) => root.openDB<unknown, Key>({ name, cache: false, ...plain });
  const keys = db(LMDB_DBS.keys);
  const keyHash = root.openDB<string, string>({ name: LMDB_DBS.keyHash, encoding: 'string', cache: false });
  // Only the server process writes tasks, so lmdb-js's object cache is safe here (and the CLI never reads them):
  // a cached value is the same object until this process writes that task again, which lets a validated read
  // be remembered instead of parsed on every tasks/get.
  const tasks = root.openDB<unknown, Key>({ name: LMDB_DBS.tasks, cache: true, ...plain });
  const validTasks = new WeakMap<object, Task>();
  const taskState = root.openDB<string, string>({ name: LMDB_DBS.taskState, encoding: 'string', cache: false });
  const byState: Database<unknown, string> = root.openDB<unknown, string>({
    name: LMDB_DBS.tasksByState,
    dupSort: true,
    encoding: 'ordered-binary',
    cache: false,
  });
  const taskSeq = root.openDB<number, string>({ name: LMDB_DBS.taskSeq, cache: false, ...plain });
  const ended = root.openDB<true, Key>({ name: LMDB_DBS.tasksEnded, encoding: 'msgpack', keyEncoding: 'ordered-binary', cache: false });
  const push = db(LMDB_DBS.pushConfigs);
  const meta = db(LMDB_DBS.meta);
  const events = db(LMDB_DBS.events);
  const pushJobs = db(LMDB_DBS.pushJobs);

  const fresh = () => root.resetReadTxn();
  // Key records are read on every request and may be changed by another process (a CLI revoke), so they are
  // never cached as objects. The stored bytes are read every time instead (cheap, no decoding); when they equal
  // the bytes last decoded for that key, the record decoded then is still exactly what is stored.
  const keyMemo = new Map<string, { bytes: Buffer; rec: KeyRecord }>();
  const readKey = (id: string): KeyRecord | undefined => {
    const raw = keys.getBinary(id);
    if (raw === undefined) {
      keyMemo.delete(id);
      return undefined;
    }
    const hit = keyMemo.get(id);
    if (hit && hit.bytes.equals(raw)) return hit.rec;
    const v = keys.get(id);
    if (v === undefined) return undefined;
    const rec = checked({ schema: KeyRecord, value: v, record: 'key', id });
    if (keyMemo.size >= 10_000) keyMemo.delete(keyMemo.keys().next().value as string);
    keyMemo.set(id, { bytes: raw, rec });
    return rec;
  };
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
  const writeTask = (task: Task, o: TaskPutOptions & { create: boolean }): Promise<boolean> => {
    const state = task.status.state;
    const key = taskKey(task.workspaceId, task.id);
    return root.transaction(() => {
      // the check reads the uncached index entries, never the task cache (another store instance may have written)
      const prev = taskState.get(key);
      if (!admits({ state: prev, seq: taskSeq.get(key), create: o.create, expectSeq: o.expectSeq })) return false;
      if (prev !== undefined && prev !== state) byState.remove(prev, key);
      tasks.put(key, task);
      taskSeq.put(key, task.seq ?? 0);
      if (prev !== state) {
        taskState.put(key, state);
        byState.put(state, key);
      }
      if (TERMINAL_STATES.has(state)) ended.put([task.updatedAt, key], true);
      const list = o.events ?? [];
      if (list.length > 0) {
        // one value per write (a group commit's events): one B-tree write instead of one per event
        events.put([key, list[0]!.seq], list.length === 1 ? list[0] : list);
        const cut = list[list.length - 1]!.seq - (o.retainEvents ?? Number.MAX_SAFE_INTEGER);
        if (cut > 0) trimEvents(events, key, cut);
      }
      return true;
    });
  };

  let closing: Promise<void> | undefined;

  return {
    kind: 'lmdb',
    keys: {
      async put(rec) {
        await root.transaction(() => {
          // A changed hash must stop resolving to this key, or a replaced secret would still authenticate.
          const prev = hashOf(keys.get(rec.id));
          if (prev !== undefined && prev !== rec.hash && keyHash.get(prev) === rec.id) keyHash.remove(prev);
          keys.put(rec.id, rec);
          keyHash.put(rec.hash, rec.id);
        });
      },
      async get(id) {
        fresh();
        return readKey(id);
      },
      async getByHash(hash) {
        fresh();
        const id = keyHash.get(hash);
        if (id === undefined) return undefined;
        const rec = readKey(id);
        return rec?.hash === hash ? rec : undefined;
      },
      async list(filter) {
        fresh();
        const out: KeyRecord[] = [];
        for (const { key, value } of keys.getRange()) {
          const rec = checked({ schema: KeyRecord, value, record: 'key', id: String(key) });
          if (filter?.workspaceId === undefined || rec.workspaceId === filter.workspaceId) out.push(rec);
        }
        return out;
      },
    },
    tasks: {
      create(task, o) {
        return writeTask(task, { ...o, create: true });
      },
      put(task, o) {
        return writeTask(task, { ...o, create: false });
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
            for (const e of events.getKeys({ start: [key, 0], end: [key, Number.MAX_SAFE_INTEGER] })) events.remove(e);
            for (const c of push.getKeys({ start: [key], end: [key, AFTER_ANY_STRING] })) push.remove(c);
            gone.push(key);
          }
          return gone;
        });
      },
    },
    pushConfigs: {
      async put(cfg) {
        await push.put([cfg.taskId, cfg.id], cfg);
      },
      async get(taskId, id) {
        fresh();
        const v = push.get([taskId, id]);
        return v === undefined ? undefined : checked({ schema: StoredPushConfig, value: v, record: 'push-config', id });
      },
      async list(taskId) {
        fresh();
        const out: StoredPushConfig[] = [];
        for (const { value } of push.getRange({ start: [taskId], end: [taskId, AFTER_ANY_STRING] })) {
          out.push(checked({ schema: StoredPushConfig, value, record: 'push-config', id: taskId }));
        }
        return out;
      },
      async delete(taskId, id) {
        // lmdb-js resolves remove() with true even when nothing was there, so look inside the write.
        return root.transaction(() => {
          const k = [taskId, id];
          if (!push.doesExist(k)) return false;
          push.remove(k);
          return true;
        });
      },
    },
    pushJobs: lmdbPushJobs({ root, db: pushJobs, fresh }),
    events: {
      async append(key, list, retain) {
        if (list.length === 0) return;
        const first = list[0]!.seq;
        const last = list[list.length - 1]!.seq;
        await root.transaction(() => {
          // one value per append (a group commit's events): one B-tree write instead of one per event
          events.put([key, first], list.length === 1 ? list[0] : list);
          const cut = last - retain;
          if (cut > 0) trimEvents(events, key, cut);
        });
      },
      async after(key, after) {
        fresh();
        const out: TaskEvent[] = [];
        // the value holding seq after+1 may start before it: begin at the last value whose first seq is <= after+1
        let start: Key = [key, after + 1];
        for (const k of events.getKeys({ start: [key, after + 1], end: [key, 0], reverse: true, limit: 1 })) start = k;
        for (const { value } of events.getRange({ start, end: [key, Number.MAX_SAFE_INTEGER] })) {
          for (const v of eventsIn(value)) {
            const ev = checked({ schema: TaskEvent, value: v, record: 'event', id: key });
            if (ev.seq > after) out.push(ev);
          }
        }
        return out;
      },
    },
    meta: {
      async get(key) {
        fresh();
        return meta.get(key);
      },
      async put(key, value) {
        await meta.put(key, value);
      },
    },
    async ping() {
      fresh();
      meta.get('ping');
    },
    close() {
      closing ??= root.close();
      return closing;
    },
  };
}

/** A stored events value: one event, or the events of one append in seq order. */
const eventsIn = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : [value]);

/** Inside a write transaction: drops a task's events with seq <= cut; a value that straddles the cut keeps its newer events. */
function trimEvents(events: Database<unknown, Key>, key: string, cut: number): void {
  for (const { key: k, value } of events.getRange({ start: [key, 0], end: [key, cut + 1] })) {
    events.remove(k);
    const kept = eventsIn(value).filter((v) => seqOf(v) > cut);
    if (kept.length > 0) events.put([key, seqOf(kept[0])], kept.length === 1 ? kept[0] : kept);
  }
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

const seqOf = (v: unknown): number => (typeof v === 'object' && v !== null && 'seq' in v && typeof v.seq === 'number' ? v.seq : 0);

function hashOf(v: unknown): string | undefined {
  return typeof v === 'object' && v !== null && 'hash' in v && typeof v.hash === 'string' ? v.hash : undefined;
}
