// Every Redis name the gateway uses (the store's keys, the limiter's keys, the bus's channels), built in this one place.
import type { TaskState } from '../../protocol/model.js';

/** The prefixes of the store's per-id keys: a Lua script that meets ids in its data builds those keys from these. */
export interface RedisIdPrefixes {
  readonly task: string;
  readonly taskRev: string;
  readonly events: string;
  readonly pushConfigs: string;
  readonly pushJob: string;
  readonly pushQueue: string;
  /** + a workspace's queue prefix (workspaceQueuePrefix): the sorted set of its queues leased now, by lease end */
  readonly pushInflight: string;
  readonly results: string;
  readonly workspaceTasks: string;
  /** before a listing index's scope (see RedisKeys.taskList; the sweep and repair scripts build them from the record) */
  readonly taskList: string;
}

/** A listing index's scope: a workspace, and optionally one context and one state. */
export interface TaskListScope {
  workspaceId: string;
  contextId?: string;
  state?: TaskState;
}

export interface RedisKeys {
  /** hash: key id -> KeyRecord */
  readonly keyRecords: string;
  /** hash: key hash -> key id */
  readonly keyIdByHash: string;
  /** hash: key id -> key hash (lets a put drop the old hash entry without decoding the old record) */
  readonly keyHashById: string;
  /** string: one Task */
  task(id: string): string;
  /** string `<seq>:<end|open>`: one task's seq and whether it is terminal, checked by every task write */
  taskRev(id: string): string;
  /** sorted set: ids of terminal tasks, scored by when they ended (retention sweeps it) */
  readonly tasksEnded: string;
  /** set: ids of the tasks whose stored state is `state` */
  tasksInState(state: TaskState): string;
  /** set: the task keys of one workspace (an instance older than the listing sets reads it for tasks/list; every task write adds to it, the sweep removes, the repair pass adds what an older writer left out) */
  workspaceTasks(workspace: string): string;
  /**
   * sorted set: the task keys of one listing scope (workspace; + context; + state; + both), scored by minus the
   * status time, so rank order is the listing's (newest first, ties by id); every task write moves its own entries
   */
  taskList(scope: TaskListScope): string;
  /** string: present once the listing sorted sets hold every task stored before they existed */
  readonly taskListBuilt: string;
  /**
   * hash: a workspace's listed task keys -> `<state>:<agent>` (what each is counted under in taskListAgentCounts); the
   * write script, the sweep and the repair pass keep it (the Lua scripts build the name from the prefix: `o:<ws>`)
   */
  taskListPlaced(workspace: string): string;
  /** hash: `a:<state>:<agent>` and `a::<agent>` -> how many of the workspace's tasks (a listing's total for a key limited to agents; `n:<ws>`) */
  taskListAgentCounts(workspace: string): string;
  /** string: present once the two hashes above hold every task stored before they existed */
  readonly taskListAgentsBuilt: string;
  /** string: present once the workspace task sets hold every task stored before they existed (see store/redis/workspace-index.ts) */
  readonly workspaceTasksBuilt: string;
  /** string expiring after the repair period: present while one instance's claim on the current workspace set repair pass stands */
  readonly workspaceTasksRepair: string;
  /** hash: config id -> StoredPushConfig, one hash per task */
  pushConfigs(taskId: string): string;
  /** hash: meta key -> value */
  readonly meta: string;
  /** sorted set: the meta keys put with an expiry, scored by it (each expiring put sweeps a few) */
  readonly metaExpiry: string;
  /** sorted set: one task's events, scored by seq */
  events(taskKey: string): string;
  /** hash {data: packed PushJob, due: dueAt}: one waiting webhook delivery */
  pushJob(id: string): string;
  /** sorted set: the job ids of one push queue (task + config), scored by seq */
  pushQueue(queue: string): string;
  /** sorted set: every push queue that has jobs, scored by when its head may be claimed (due, or lease end) */
  readonly pushDue: string;
  /** hash: push queue -> the lease token of whoever holds its head */
  readonly pushLeases: string;
  /** hash: connectionField(workspace, name) -> ConnectionRecord */
  readonly connections: string;
  /** hash: connectionField(workspace, name) -> ConnectionStatus */
  readonly connectionStatus: string;
  /** hash: connectionField(workspace, name) -> RelayRecord */
  readonly relays: string;
  /** hash: key id -> connectionField of the relay it opens (kept with the records by the relay store's scripts) */
  readonly relayKeys: string;
  /** hash: result id -> StoredResult, one hash per workspace */
  results(workspace: string): string;
  /** sorted set: resultMember(workspace, id) of every stored result, scored by its expiresAt (the result sweep reads it) */
  readonly resultExpiry: string;
  /** string with a TTL until its expiry: one packed DashboardSession */
  dashboardSession(id: string): string;
  /** hash: key id -> when it was last used (ms), raised by each instance's periodic flush */
  readonly keyLastUsed: string;
  /** list: one workspace's recent webhook deliveries (packed DeliveryRecord), newest first, trimmed */
  recentDeliveries(workspace: string): string;
  /** what each per-id name above is, before its id */
  readonly idPrefix: RedisIdPrefixes;
}

/**
 * Ids go last in each name, after a fixed segment, so no id can make one kind of key collide
 * with another. To run on Redis Cluster, put a hash tag in the prefix (e.g. `{a2a}:`) so the
 * multi-key scripts and transactions stay in one slot.
 */
export function redisKeys(prefix: string): RedisKeys {
  const idPrefix: RedisIdPrefixes = {
    task: `${prefix}task:`,
    taskRev: `${prefix}task-rev:`,
    events: `${prefix}events:`,
    pushConfigs: `${prefix}push:`,
    pushJob: `${prefix}push-job:`,
    pushQueue: `${prefix}push-queue:`,
    pushInflight: `${prefix}push-inflight:`,
    results: `${prefix}results:`,
    workspaceTasks: `${prefix}tasks:workspace:`,
    taskList: `${prefix}tasks:list:`,
  };
  return {
    keyRecords: `${prefix}keys`,
    keyIdByHash: `${prefix}keys:by-hash`,
    keyHashById: `${prefix}keys:hash-of`,
    task: (id) => `${idPrefix.task}${id}`,
    taskRev: (id) => `${idPrefix.taskRev}${id}`,
    tasksEnded: `${prefix}tasks:ended`,
    tasksInState: (state) => `${prefix}tasks:state:${state}`,
    workspaceTasks: (workspace) => `${idPrefix.workspaceTasks}${workspace}`,
    taskList: (scope) => `${idPrefix.taskList}${taskListSuffix(scope)}`,
    taskListBuilt: `${prefix}tasks:list-index-built`,
    taskListPlaced: (ws) => `${idPrefix.taskList}o:${ws}`,
    taskListAgentCounts: (ws) => `${idPrefix.taskList}n:${ws}`,
    taskListAgentsBuilt: `${prefix}tasks:list-agents-built`,
    workspaceTasksBuilt: `${prefix}tasks:workspace-index-built`,
    workspaceTasksRepair: `${prefix}tasks:workspace-index-repair`,
    pushConfigs: (taskId) => `${idPrefix.pushConfigs}${taskId}`,
    meta: `${prefix}meta`,
    metaExpiry: `${prefix}meta-expiry`,
    events: (taskKey) => `${idPrefix.events}${taskKey}`,
    pushJob: (id) => `${idPrefix.pushJob}${id}`,
    pushQueue: (queue) => `${idPrefix.pushQueue}${queue}`,
    pushDue: `${prefix}push-due`,
    pushLeases: `${prefix}push-leases`,
    connections: `${prefix}connections`,
    connectionStatus: `${prefix}connections:status`,
    relays: `${prefix}relays`,
    relayKeys: `${prefix}relays:keys`,
    results: (workspace) => `${idPrefix.results}${workspace}`,
    resultExpiry: `${prefix}result-expiry`,
    dashboardSession: (id) => `${prefix}dashboard:session:${id}`,
    keyLastUsed: `${prefix}dashboard:key-used`,
    recentDeliveries: (workspace) => `${prefix}dashboard:deliveries:${workspace}`,
    idPrefix,
  };
}

/**
 * A listing scope's name after its prefix. A workspace id is written with its UTF-8 length before it wherever a
 * context id follows, so no pair of ids can name another pair's set (the Lua scripts write the same, string.len
 * counting bytes); a state name has no ':'.
 */
function taskListSuffix(s: TaskListScope): string {
  const wsAndContext = (ctx: string) => `${Buffer.byteLength(s.workspaceId)}:${s.workspaceId}${ctx}`;
  if (s.contextId !== undefined && s.state !== undefined) return `cs:${s.state}:${wsAndContext(s.contextId)}`;
  if (s.contextId !== undefined) return `c:${wsAndContext(s.contextId)}`;
  if (s.state !== undefined) return `s:${s.state}:${s.workspaceId}`;
  return `w:${s.workspaceId}`;
}

/**
 * What follows the state in the names of a task's two state-bearing listing sets (`s:<state>` and `cs:<state>`
 * after the prefix): a write script names the sets of a state the task leaves from these.
 */
export const taskListStateTails = (workspaceId: string, contextId: string): { state: string; both: string } => ({
  state: `:${workspaceId}`,
  both: `:${Buffer.byteLength(workspaceId)}:${workspaceId}${contextId}`,
});

/** A connection's field in the connection hashes. A name has no '/', so the field names one (workspace, name) pair. */
export const connectionField = (workspace: string, name: string): string => `${workspace}/${name}`;

/** A result's member in `resultExpiry`. A workspace id has no '/' (see taskKey), so a script splits it at the first one. */
export const resultMember = (workspace: string, id: string): string => `${workspace}/${id}`;

/** The pub/sub channels of the event bus (channels are not keys: `events:` here does not meet the store's `events:` keys). */
export interface RedisChannels {
  /** one task's live events, packed {origin, events} */
  events(taskKey: string): string;
  /** cancel asks (heard by every instance; the one that runs the task acts) and their answers (each to its asker) */
  readonly cancel: string;
  /** messages to one instance, by its bus origin (relay turns forwarded to the instance holding the tunnel) */
  instance(origin: string): string;
  /** messages to every instance (who holds which relay tunnel) */
  readonly instances: string;
}

export function redisChannels(prefix: string): RedisChannels {
  return {
    events: (taskKey) => `${prefix}events:${taskKey}`,
    cancel: `${prefix}control:cancel`,
    instance: (origin) => `${prefix}control:instance:${origin}`,
    instances: `${prefix}control:instances`,
  };
}

/** The limiter's prefix under the gateway's Redis prefix: the limiter's keys are `limiterKeys(limiterPrefix(prefix), key)`. */
export const limiterPrefix = (prefix: string): string => `${prefix}limit:`;

/**
 * The minute and hour lists of one limited key under the limiter's own prefix. The `{key}` hash tag puts both
 * in one cluster slot, which a single script touching both requires.
 */
export function limiterKeys(prefix: string, key: string): [minute: string, hour: string] {
  const base = `${prefix}{${key}}`;
  return [`${base}:minute`, `${base}:hour`];
}

/** A SCAN pattern for everything under a limiter prefix (tests and benches clean up with it). */
export function limiterKeyPattern(prefix: string): string {
  return `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
}
