// The store contract that both engines (LMDB embedded, Redis shared) implement; one test suite proves both.
import type { TaskEvent } from '../../protocol/events.js';
import type { Task, TaskState } from '../../protocol/model.js';
import type { ConnectionRecord, ConnectionStatus, StoredResult } from '../../protocol/connections.js';
import type { DashboardSession, DeliveryRecord } from '../../protocol/dashboard.js';
import type { KeyRecord, PushJob, StoredPushConfig } from '../../protocol/records.js';
import type { RelayRecord } from '../../protocol/relays.js';
import type { Versioned } from './versioned.js';

export interface KeyStore {
  put(rec: KeyRecord): Promise<void>;
  get(id: string): Promise<KeyRecord | undefined>;
  /** the key whose stored hash is exactly `hash` (a record found through a stale index entry is not returned) */
  getByHash(hash: string): Promise<KeyRecord | undefined>;
  list(filter?: { workspaceId?: string }): Promise<KeyRecord[]>;
  /** the key with its version, for putIfVersion (store/versioned.ts) */
  getVersioned(id: string): Promise<Versioned<KeyRecord> | undefined>;
  /**
   * Stores `rec` only while the stored key of its id is at `version`, and with it `successor` (a new key), in one
   * atomic step: false, nothing written, when another write changed the key since it was read (or it is gone).
   */
  putIfVersion(o: { rec: KeyRecord; version: string; successor?: KeyRecord }): Promise<boolean>;
}

/**
 * Task ids are scoped by workspace: two workspaces may use the same (client-chosen, rev A) id, and
 * one workspace can never reach another's task by id. Workspace ids never contain '/'.
 */
export const taskKey = (workspaceId: string, id: string): string => `${workspaceId}/${id}`;
/** A task key's workspace and id (a workspace id holds no '/'; an id may); undefined for a key that is not one. */
export const splitTaskKey = (key: string): { workspaceId: string; id: string } | undefined => {
  const cut = key.indexOf('/');
  return cut < 0 ? undefined : { workspaceId: key.slice(0, cut), id: key.slice(cut + 1) };
};

/** The events of a change, stored in the same atomic write as its record, and only if that write is accepted. */
export interface TaskWriteEvents {
  events?: readonly TaskEvent[];
  /** events kept per task (older ones are trimmed in the same write) */
  retainEvents?: number;
  /**
   * Webhook deliveries the change causes, enqueued (as PushJobStore.enqueue does) in the same atomic write: a crash
   * keeps both the change and its notifications or neither, and a refused write enqueues nothing.
   */
  pushJobs?: readonly PushJob[];
  /**
   * The writer did not read the task's push configs (it knows of none): if the task holds any, the write is refused
   * (TaskHasPushConfigsError, nothing written) and the writer reads them and writes again with their jobs. Checked in
   * the write's own atomic step, so a config stored before it, by any instance or the CLI, is never missed; one
   * stored after it is judged at the next write, as a config read before a write always was.
   */
  withoutPushConfigs?: boolean;
}

export interface TaskPutOptions extends TaskWriteEvents {
  /** refuse unless the stored task's `seq` is this one (0 for a record without one): another writer moved it */
  expectSeq?: number;
}

/** One page of a workspace's listing, read from the listing index (see TaskStore.listPage). */
export interface ListPageQuery {
  workspaceId: string;
  contextId?: string;
  state?: TaskState;
  /** only tasks whose status time is at or after this (ms) */
  since?: number;
  /** the page starts just after this place in the listing order (absent: at its top) */
  after?: ListCursor;
  /** only tasks of these agents, or of any agent but these (a key limited to agents, an agent's URL, an agent refusing the key); absent: every agent's */
  agents?: ListAgents;
  limit: number;
}

/** Which agents' tasks a listing keeps: a finite list either way (a key's agents, or the registry's agents refusing it). */
export type ListAgents = { only: readonly string[] } | { except: readonly string[] };

/** A place in the listing order: a task's status time (ms) and id (newest first, ties by id as UTF-8 bytes). */
export interface ListCursor {
  time: number;
  id: string;
}

export interface ListPage {
  /** the page, newest status first (ties by id); an index entry whose task is gone or no longer matches is left out */
  tasks: Task[];
  /** how many tasks the query matches, before the page is cut (whatever `after` is) */
  total: number;
  /** where the next page starts (the page's last index entry, read or left out); absent when nothing follows */
  next?: ListCursor;
}

export interface TaskStore {
  /**
   * Inserts the task (and its events) under taskKey(workspaceId, id) only when no task is stored there: one atomic
   * insert-if-absent. false, and nothing written, when one is.
   */
  create(task: Task, o?: TaskWriteEvents): Promise<boolean>;
  /**
   * Writes the whole record (and appends its events) in one atomic step. Refused (false, nothing written) when the
   * stored task is terminal (a terminal state never changes again), or when `expectSeq` is given and the stored
   * task is absent or has another seq.
   */
  put(task: Task, o?: TaskPutOptions): Promise<boolean>;
  get(workspaceId: string, id: string): Promise<Task | undefined>;
  /** Tasks whose stored state is one of `states` (start-up recovery). */
  listByState(states: readonly TaskState[]): Promise<Task[]>;
  /**
   * One page of the workspace's tasks newest status first (ties by id, compared as UTF-8 bytes), filtered by
   * context, state and status time, from the listing index the task writes keep, from a keyset cursor: its cost
   * follows the page, not the workspace (O(log n + page); the total a counter, or a native count of the range; a
   * context and a state together walk the context's entries).
   */
  listPage(q: ListPageQuery): Promise<ListPage>;
  /**
   * Retention: deletes up to `limit` tasks that became terminal at or before `endedBy` (their terminal record's
   * `updatedAt`), with their state index entries, events and push configs. Returns their task keys (oldest first).
   */
  sweep(o: { endedBy: number; limit: number }): Promise<string[]>;
  /**
   * Index repair: true for the one caller, among every instance sharing the store, that should run a pass now (none
   * was claimed in the last `everyMs`). Always true where one process owns the data (LMDB).
   */
  claimIndexRepair(everyMs: number): Promise<boolean>;
  /**
   * One bounded step of an index repair pass: adds to the workspace index the stored tasks missing from it (on a
   * shared store an instance of an older version, during a rolling upgrade, writes tasks without it). Start with
   * cursor ''; pass back each cursor returned; '' again when the pass is done. `added` counts the entries added.
   * An engine whose every write keeps the index whole (LMDB: one transaction, one process) ends at once.
   */
  repairIndexStep(cursor: string): Promise<{ cursor: string; added: number }>;
}

/** What an add did: stored the config, or refused it because the task holds `held` configs, its bound. */
export type PushConfigAdd = { stored: true } | { stored: false; held: number };

/** Push configs are kept per task under its taskKey. */
export interface PushConfigStore {
  /** Stores the config whatever the task holds (a config of its id is replaced): updates of a config already kept. */
  put(cfg: StoredPushConfig): Promise<void>;
  /**
   * Stores a caller's config if its task has room, in one atomic step (another instance's add cannot slip between
   * the count and the write): a config of its id already stored is replaced and not counted; otherwise it is refused,
   * nothing written, when the task holds `maxPerTask` configs or more.
   */
  add(cfg: StoredPushConfig, o: { maxPerTask: number }): Promise<PushConfigAdd>;
  get(taskId: string, id: string): Promise<StoredPushConfig | undefined>;
  list(taskId: string): Promise<StoredPushConfig[]>;
  /** true when something was deleted */
  delete(taskId: string, id: string): Promise<boolean>;
}

/**
 * Who claims push jobs: a gateway instance (its stable id) and this run of it (a fresh id per start). A run that died
 * with leases taken is never coming back for them, and no other live process shares its instance id (start-up task
 * recovery relies on that too), so the instance's next run may free them at once instead of waiting them out.
 */
export interface LeaseHolder {
  instance: string;
  boot: string;
}

/** A job handed to one claimer: `lease` is the token that alone may finish or reschedule it. */
export interface ClaimedPushJob {
  job: PushJob;
  lease: string;
}

/**
 * Webhook deliveries waiting to be made, kept so that a restart loses none. Jobs sit in queues (one
 * per task and config, ordered by seq); only a queue's head is ever handed out, and only to one
 * claimer at a time (a lease that lapses after `leaseMs`, so a crashed instance's job is taken up
 * again): job n+1 of a queue goes out only after job n was completed (delivered, given up, dropped).
 */
/**
 * A claim's fairness bound: at most `max` attempts in flight per workspace (`held`: this instance's under way, by id).
 * A store shared by several instances (Redis) counts every instance's unlapsed leases as well: a workspace holds the
 * larger of the two, so its share holds across instances.
 */
export interface WorkspaceCap {
  max: number;
  held: ReadonlyMap<string, number>;
}

export interface PushJobStore {
  /** adds jobs to their queues (a job with a queue and seq already stored replaces it) */
  enqueue(jobs: readonly PushJob[]): Promise<void>;
  /**
   * leases up to `limit` queue heads that are due at `now` and not leased by anyone else (to `holder`, when given),
   * oldest first: by the time the head became claimable (its due time, or a lapsed lease's end), then by queue name
   * (UTF-8 byte order), so both engines hand heads out in the same order; with `perWorkspace`, a head is passed over
   * (its queue keeps waiting, in order) while its workspace already holds `max` attempts (see WorkspaceCap) plus those
   * this claim takes. Every due head is within reach, however many are passed over before it.
   */
  claim(o: { now: number; leaseMs: number; limit: number; holder?: LeaseHolder; perWorkspace?: WorkspaceCap }): Promise<ClaimedPushJob[]>;
  /**
   * Frees every lease taken by another run of `holder.instance` (its heads are claimable again at their due time);
   * returns how many. Called once at start-up: that earlier run is dead, its attempts with it.
   */
  releaseEarlierLeases(holder: LeaseHolder): Promise<number>;
  /** removes the job and frees its queue; false (and nothing changed) when the lease is no longer this one */
  complete(c: ClaimedPushJob): Promise<boolean>;
  /** keeps the job at the head of its queue with the update, due again at `dueAt`, and frees the lease; false as for complete */
  retry(c: ClaimedPushJob, update: { attempts: number; dueAt: number; lastError?: string }): Promise<boolean>;
  /**
   * the earliest time a queue head becomes claimable (due, or its lease lapses); undefined when no job waits. With
   * `passOver`, heads of a workspace holding `max` attempts are left out (a claim would pass over them until one of
   * those attempts ends); `now` is the caller's clock, by which a shared store judges which leases still count
   * (without it, only `held` does).
   */
  nextDueAt(o?: { passOver?: WorkspaceCap; now?: number }): Promise<number | undefined>;
  /** every waiting job, each queue in seq order (operators and tests) */
  list(): Promise<PushJob[]>;
  /**
   * Up to `limit` of one workspace's waiting jobs, soonest due first (dueBefore), and how many of its jobs wait in
   * all. Reads that workspace's queues only, a bounded slice per read with the event loop (or Redis) free between
   * slices: one workspace's admin page must not cost every workspace a read of every job (the dashboard).
   */
  listWorkspace(o: { workspaceId: string; limit: number }): Promise<{ jobs: PushJob[]; total: number }>;
  /** removes every waiting job of these tasks (retention deleted them); returns how many went */
  dropTasks(taskKeys: readonly string[]): Promise<number>;
}

/** Each task's events, kept for replay (resubscribe with Last-Event-ID), bounded per task. */
export interface EventStore {
  /** appends events whose seqs increase (the task's owner assigns them); keeps the last `retain` per task */
  append(taskKey: string, events: readonly TaskEvent[], retain: number): Promise<void>;
  /** the retained events with seq > `after`, in order */
  after(taskKey: string, after: number): Promise<TaskEvent[]>;
}

/**
 * When a meta entry may be collected: once some later expiring put runs at a `now` at or past `expiresAt`, the entry and its
 * expiry go (a bounded batch per put, on both engines, judged on the caller's clock rather than the engine's).
 */
export interface MetaExpiry {
  expiresAt: number;
  now: number;
}

/** A small key-value area for server-wide values (e.g. per-workspace webhook secrets, instance beats). */
export interface MetaStore {
  /** the value as stored (an expired entry not yet collected included: whether it is stale is the caller's to judge) */
  get(key: string): Promise<unknown>;
  /** stores the value; with `expiry`, collectable after it (see MetaExpiry), without, kept for good (any earlier expiry dropped) */
  put(key: string, value: unknown, expiry?: MetaExpiry): Promise<void>;
  /** the value with its version, for putIfVersion (store/versioned.ts) */
  getVersioned(key: string): Promise<Versioned<unknown> | undefined>;
  /**
   * stores the value for good (as put without an expiry) only while the entry is at `version` (null: only while there
   * is none), checked inside the write; false, nothing written, when another write came first
   */
  putIfVersion(key: string, value: unknown, version: string | null): Promise<boolean>;
}

/** Outbound connections, per workspace by name; with each one's last reported status (its actor writes it). */
export interface ConnectionStore {
  /** stores the record unless one is stored under (workspace, name) already, in one step; true when it stored it */
  insert(rec: ConnectionRecord): Promise<boolean>;
  get(workspace: string, name: string): Promise<ConnectionRecord | undefined>;
  /** the record with its version, for putIfVersion (store/versioned.ts) */
  getVersioned(workspace: string, name: string): Promise<Versioned<ConnectionRecord> | undefined>;
  /**
   * stores the record only while the one under (workspace, name) is at `version`, checked inside the write: an update
   * racing another update or a remove loses neither; false, nothing written, when it changed or is gone
   */
  putIfVersion(rec: ConnectionRecord, version: string): Promise<boolean>;
  /** every connection, or one workspace's, ordered by workspace then name */
  list(filter?: { workspace?: string }): Promise<ConnectionRecord[]>;
  /** removes the record and its status; true when there was one */
  delete(workspace: string, name: string): Promise<boolean>;
  /** ignored when no such connection is stored: a status write racing a remove leaves nothing behind */
  putStatus(workspace: string, name: string, status: ConnectionStatus): Promise<void>;
  getStatus(workspace: string, name: string): Promise<ConnectionStatus | undefined>;
}

/** What a relay insert did: stored it, or found the name taken, or the key opening another relay. */
export type RelayInsert = 'stored' | 'name-taken' | 'key-taken';

/** Relay connections, per workspace by name (issue 9); each with its announced agents' trust and permissions. */
export interface RelayStore {
  /**
   * stores the record unless one is stored under (workspace, name) already, or another relay (of any workspace) is
   * opened by its key, checked inside the write through the key index kept with the records: of two adds at once one
   * stores. What it did, or what refused it. (No plain put: every write of a relay is an insert, a version-checked
   * write or a remove, so the key index stays in step; a relay's key never changes once added.)
   */
  insert(rec: RelayRecord): Promise<RelayInsert>;
  /** the relay (of any workspace) its key opens, through the key index: no pass over the relays */
  byKey(keyId: string): Promise<RelayRecord | undefined>;
  get(workspace: string, name: string): Promise<RelayRecord | undefined>;
  /** the record with its version, for putIfVersion (store/versioned.ts) */
  getVersioned(workspace: string, name: string): Promise<Versioned<RelayRecord> | undefined>;
  /**
   * stores the record only while the one under (workspace, name) is at `version`, checked inside the write: an
   * announcement racing an operator's edit (or a remove) loses neither; false, nothing written, when it changed or is gone
   */
  putIfVersion(rec: RelayRecord, version: string): Promise<boolean>;
  /** every relay, or one workspace's, ordered by workspace then name */
  list(filter?: { workspace?: string }): Promise<RelayRecord[]>;
  /** true when there was one; its key is free again (its index entry goes in the same write) */
  delete(workspace: string, name: string): Promise<boolean>;
}

/** Results of outbound calls, kept until their `expiresAt`. */
export interface ResultStore {
  put(r: StoredResult): Promise<void>;
  get(workspace: string, id: string): Promise<StoredResult | undefined>;
  /** one workspace's results (optionally one connection's), oldest first */
  list(filter: { workspace: string; connection?: string }): Promise<StoredResult[]>;
  /** retention: deletes up to `limit` results whose expiresAt is at or before `now`; returns how many went */
  sweep(o: { now: number; limit: number }): Promise<number>;
}

/**
 * Dashboard state every gateway instance on one store shares, so that a user behind a load balancer stays signed in
 * and sees whole pages: sign-in sessions, when each key was last used, each workspace's recent webhook deliveries.
 */
export interface DashboardStore {
  /**
   * Stores a session. `now` lets the engine collect abandoned ones (Redis: a TTL until `expiresAt`; LMDB: a bounded
   * sweep of expired sessions); whether a session is still valid is the caller's to judge on its clock.
   */
  putSession(s: DashboardSession, o: { now: number }): Promise<void>;
  /** the session as stored, expired or not */
  getSession(id: string): Promise<DashboardSession | undefined>;
  deleteSession(id: string): Promise<void>;
  /** raises each key's stored last use to the given time; a later stored time stays (instances flush out of order) */
  markKeysUsed(used: ReadonlyArray<readonly [keyId: string, at: number]>): Promise<void>;
  /** the stored last use of each of these keys that has one */
  keysLastUsed(keyIds: readonly string[]): Promise<Map<string, number>>;
  /** puts a delivery at the head of its workspace's list and keeps the newest `keep` */
  recordDelivery(workspace: string, d: DeliveryRecord, o: { keep: number }): Promise<void>;
  /** a workspace's recorded deliveries, newest first */
  deliveries(workspace: string): Promise<DeliveryRecord[]>;
}

export interface Store {
  readonly kind: 'lmdb' | 'redis';
  readonly keys: KeyStore;
  readonly tasks: TaskStore;
  readonly pushConfigs: PushConfigStore;
  readonly pushJobs: PushJobStore;
  readonly meta: MetaStore;
  readonly events: EventStore;
  readonly connections: ConnectionStore;
  readonly relays: RelayStore;
  readonly results: ResultStore;
  readonly dashboard: DashboardStore;
  /** resolves when the store answers now (readiness); rejects with the reason when it does not */
  ping(): Promise<void>;
  close(): Promise<void>;
}
