// The embedded store engine: one LMDB environment in a directory, shared by the server and CLI processes.
//
// This file opens the environment and composes the sub-stores (one file each: keys, tasks, push-configs, meta,
// events, push-jobs, connections, results, dashboard). Layout (named sub-databases, values msgpack via lmdb-js's built-in msgpackr encoder):
//   keys            key id -> KeyRecord
//   key-hash        key hash -> key id                 (string values)
//   tasks           task id -> Task
//   task-state      task id -> "state seq"             (string values, read uncached by every task write's check;
//                                                       lets a put find the old index entry without decoding the task)
//   tasks-by-state  unfinished state -> task ids       (dupSort index; recovery's listByState reads it, no scan;
//                                                       a terminal task has no entry, and is listed through tasks-ended)
//   task-seq        task id -> its record's seq        (only in data dirs written before the seq moved into
//                                                       task-state; read and dropped by the task's next write or sweep)
//   tasks-ended     [endedAt, task id] -> true         (terminal tasks by when they ended: retention sweeps it)
//   task-list-4     [scope..., -statusTime, id] -> agent (the listing index: each task under its workspace, context
//                                                       (the entry holds [state, agent]) and state, newest first; task-list.ts)
//   task-list-at-4  task key -> [statusTime, contextId, state, agent] (where a task's listing entries are)
//   task-list-count-4 ['n', workspace] -> its tasks, per state, per agent and per agent and state (a listing's
//                                         total; 'built' marks the build done)
//   (task-list, -at, -count, and their -3: the layouts of the builds before, emptied on open)
//   push-configs    [taskId, configId] -> StoredPushConfig
//   meta            key -> any value
//   meta-expires    key -> expiresAt                   (meta entries put with an expiry; see meta.ts)
//   meta-expiry     [expiresAt, key] -> true            (those entries by expiry: each expiring put sweeps a few)
//   events          [taskKey, firstSeq] -> TaskEvent or TaskEvent[]  (one value per append, its events in seq
//                                                       order; range reads replay after a seq; trimmed per task)
//   push-jobs       [queue, seq] -> {job, lease?}        (webhook deliveries waiting; see push-jobs.ts)
//   push-due        [at, queue] -> workspace id          (each queue by when its head may be claimed: push-due.ts;
//                                                       derived afresh once per open, at the first claim)
//   connections     [workspace, name] -> ConnectionRecord (outbound connections; credentials sealed inside)
//   relays          [workspace, name] -> RelayRecord (relay connections and their agents' trust)
//   relay-keys      key id -> [workspace, name] of the relay it opens (kept with the records; store/lmdb/relays.ts)
//   connection-status [workspace, name] -> ConnectionStatus (what each connection's actor last reported)
//   results         [workspace, id] -> StoredResult      (outbound results)
//   results-expiry  [expiresAt, workspace, id] -> true    (results by when they expire: the result sweep reads it)
//   dashboard-sessions        id -> DashboardSession      (dashboard sign-ins; see dashboard.ts)
//   dashboard-session-expiry  [expiresAt, id] -> true      (sessions by expiry: each new session sweeps a few)
//   dashboard-key-used        key id -> ms                 (keys' last use, flushed by the server periodically)
//   dashboard-delivery-log    [workspace, seq] -> DeliveryRecord (recent webhook deliveries, one per attempt, bounded)
//   dashboard-deliveries      workspace -> DeliveryRecord[] (an older version's layout: moved to the log on open)
// Every multi-entry write (a record plus its index) is one LMDB transaction, and fails (if it fails) before its first
// change: lmdb-js commits what a transaction put before its callback threw (key sizes: key-size.ts).
//
// Freshness: the CLI revokes keys while the server runs, so no lmdb-js object cache (`cache: false`, but for tasks)
// and every read first drops lmdb-js's reused read snapshot. lmdb-js otherwise keeps one snapshot
// until a zero-delay timer fires, so two requests handled in the same event-loop turn could both
// miss another process's commit. The reset is a reader-slot release, cheap next to decoding.
import { mkdir } from 'node:fs/promises';
import { open, type Database, type Key, type RootDatabase } from 'lmdb';
import type { Store } from '../types.js';
import { listed, type OnCorrupt } from '../validate.js';
import { getDecoded } from './decoded.js';
import { lmdbConnectionStore } from './connections.js';
import { lmdbDashboardStore, upgradeDeliveryLists } from './dashboard.js';
import { lmdbRelayStore } from './relays.js';
import { lmdbEventStore } from './events.js';
import { lmdbKeyStore } from './keys.js';
import { lmdbMetaStore } from './meta.js';
import { lmdbPushConfigStore } from './push-configs.js';
import { lmdbPushJobStore } from './push-jobs.js';
import { lmdbDueIndex } from './push-due.js';
import { lmdbResultStore } from './results.js';
import { buildTaskList, dropOldTaskList, lmdbTaskList } from './task-list.js';
import { lmdbTaskStore } from './tasks.js';

/** Sub-database names; exported so tests can reach the raw layout (e.g. to plant a corrupt value). */
export const LMDB_DBS = {
  keys: 'keys',
  keyHash: 'key-hash',
  tasks: 'tasks',
  taskState: 'task-state',
  tasksByState: 'tasks-by-state',
  taskSeq: 'task-seq',
  tasksEnded: 'tasks-ended',
  taskList: 'task-list-4',
  taskListAt: 'task-list-at-4',
  taskListCount: 'task-list-count-4',
  pushConfigs: 'push-configs',
  meta: 'meta',
  metaExpires: 'meta-expires',
  metaExpiry: 'meta-expiry',
  events: 'events',
  pushJobs: 'push-jobs',
  pushDue: 'push-due',
  connections: 'connections',
  connectionStatus: 'connection-status',
  relays: 'relays',
  relayKeys: 'relay-keys',
  results: 'results',
  resultsExpiry: 'results-expiry',
  dashboardSessions: 'dashboard-sessions',
  dashboardSessionExpiry: 'dashboard-session-expiry',
  dashboardKeyUsed: 'dashboard-key-used',
  dashboardDeliveries: 'dashboard-deliveries',
  dashboardDeliveryLog: 'dashboard-delivery-log',
} as const;

export async function openLmdbStore(opts: {
  path: string;
  /** Damaged records a listing left out (see `listed`); none: a damaged record fails the listing. */
  onCorrupt?: OnCorrupt;
}): Promise<Store> {
  const { onCorrupt } = opts;
  await mkdir(opts.path, { recursive: true });
  // noSubdir false: lmdb-js would otherwise treat a path with a dot in it as a file name. maxDbs is a per-open setting,
  // not stored: 30 databases are opened now (with the listing index's emptied old layout), so room is kept ahead.
  const root: RootDatabase = open({ path: opts.path, noSubdir: false, maxDbs: 64, cache: false });
  // plain msgpack: with no shared structures, msgpackr's records would carry and re-define their shape in every
  // value. lmdb-js passes `useRecords` on to msgpackr; its typings do not list it, hence the untyped spread.
  const plain: Record<string, unknown> = { useRecords: false };
  const db = (name: string) => root.openDB<unknown, Key>({ name, cache: false, ...plain });
  const keys = db(LMDB_DBS.keys);
  const keyHash = root.openDB<string, string>({ name: LMDB_DBS.keyHash, encoding: 'string', cache: false });
  // Only the server process writes tasks, so lmdb-js's object cache is safe here (and the CLI never reads them):
  // a cached value is the same object until this process writes that task again.
  const tasks = root.openDB<unknown, Key>({ name: LMDB_DBS.tasks, cache: true, ...plain });
  const taskState = root.openDB<string, string>({ name: LMDB_DBS.taskState, encoding: 'string', cache: false });
  const byState: Database<unknown, string> = root.openDB<unknown, string>({
    name: LMDB_DBS.tasksByState,
    dupSort: true,
    encoding: 'ordered-binary',
    cache: false,
  });
  const taskSeq = root.openDB<number, string>({ name: LMDB_DBS.taskSeq, cache: false, ...plain });
  const ended = root.openDB<true, Key>({ name: LMDB_DBS.tasksEnded, encoding: 'msgpack', keyEncoding: 'ordered-binary', cache: false });
  const listAt = root.openDB<unknown, string>({ name: LMDB_DBS.taskListAt, cache: false, ...plain });
  // plain msgpack here too: a count record is an object whose fields vary, and shared structures would store a new
  // one for each shape it takes
  const listCounts = root.openDB<unknown, Key>({ name: LMDB_DBS.taskListCount, encoding: 'msgpack', keyEncoding: 'ordered-binary', cache: false, ...plain });
  const listEntries = root.openDB<unknown, Key>({ name: LMDB_DBS.taskList, encoding: 'msgpack', keyEncoding: 'ordered-binary', cache: false, ...plain });
  const list = lmdbTaskList({ entries: listEntries, at: listAt, counts: listCounts });
  await buildTaskList({ root, tasks, list, at: listAt, counts: listCounts, ...(onCorrupt && { onCorrupt }) });
  await dropOldTaskList(root);
  const pushConfigs = db(LMDB_DBS.pushConfigs);
  const meta = db(LMDB_DBS.meta);
  const events = db(LMDB_DBS.events);
  const pushJobs = db(LMDB_DBS.pushJobs);
  const pushDue = root.openDB<string, Key>({ name: LMDB_DBS.pushDue, encoding: 'msgpack', keyEncoding: 'ordered-binary', cache: false });
  const connections = db(LMDB_DBS.connections);
  const connectionStatus = db(LMDB_DBS.connectionStatus);
  const relays = db(LMDB_DBS.relays);
  const results = db(LMDB_DBS.results);
  const resultsExpiry = root.openDB<true, Key>({ name: LMDB_DBS.resultsExpiry, encoding: 'msgpack', keyEncoding: 'ordered-binary', cache: false });
  const fresh = () => root.resetReadTxn();
  const deliveryLog = db(LMDB_DBS.dashboardDeliveryLog);
  await upgradeDeliveryLists({ root, lists: db(LMDB_DBS.dashboardDeliveries), deliveryLog, onCorrupt });
  const dashboard = lmdbDashboardStore({
    root,
    sessions: db(LMDB_DBS.dashboardSessions),
    sessionExpiry: root.openDB<true, Key>({ name: LMDB_DBS.dashboardSessionExpiry, encoding: 'msgpack', keyEncoding: 'ordered-binary', cache: false }),
    keyUsed: db(LMDB_DBS.dashboardKeyUsed),
    deliveryLog,
    fresh,
    onCorrupt,
  });
  let closing: Promise<void> | undefined;

  return {
    kind: 'lmdb',
    keys: lmdbKeyStore({ root, keys, keyHash, fresh, onCorrupt }),
    tasks: lmdbTaskStore({
      root,
      tasks,
      taskState,
      byState,
      taskSeq,
      ended,
      events,
      pushConfigs,
      pushJobs: { db: pushJobs, due: lmdbDueIndex({ jobs: pushJobs, due: pushDue }) },
      list,
      fresh,
      onCorrupt,
    }),
    pushConfigs: lmdbPushConfigStore({ root, db: pushConfigs, fresh }),
    pushJobs: lmdbPushJobStore({ root, db: pushJobs, due: pushDue, fresh, onCorrupt }),
    events: lmdbEventStore({ root, db: events, fresh }),
    meta: lmdbMetaStore({
      root,
      db: meta,
      expires: db(LMDB_DBS.metaExpires),
      expiry: root.openDB<true, Key>({ name: LMDB_DBS.metaExpiry, encoding: 'msgpack', keyEncoding: 'ordered-binary', cache: false }),
      fresh,
      onCorrupt,
    }),
    connections: lmdbConnectionStore({ root, db: connections, status: connectionStatus, fresh, onCorrupt }),
    relays: lmdbRelayStore({ root, db: relays, index: db(LMDB_DBS.relayKeys), fresh, onCorrupt }),
    results: lmdbResultStore({ root, db: results, expiry: resultsExpiry, fresh }),
    dashboard,
    async ping() {
      fresh();
      // a read of the store, not of a record: bytes there that do not decode are a damaged record (reported, as a
      // listing's are), not a store that cannot be reached; without a listener, the StoreCorruptError naming it
      listed(onCorrupt, () => getDecoded({ db: meta, key: 'ping', record: 'meta', id: 'ping' }));
    },
    close() {
      closing ??= root.close();
      return closing;
    },
  };
}
