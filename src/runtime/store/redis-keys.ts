// Every Redis key name the store uses, built from the instance prefix in this one place.
import type { TaskState } from '../../protocol/model.js';

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
  /** hash: config id -> StoredPushConfig, one hash per task */
  pushConfigs(taskId: string): string;
  /** hash: meta key -> value */
  readonly meta: string;
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
}

/**
 * Ids go last in each name, after a fixed segment, so no id can make one kind of key collide
 * with another. To run on Redis Cluster, put a hash tag in the prefix (e.g. `{a2a}:`) so the
 * multi-key scripts and transactions stay in one slot.
 */
export function redisKeys(prefix: string): RedisKeys {
  return {
    keyRecords: `${prefix}keys`,
    keyIdByHash: `${prefix}keys:by-hash`,
    keyHashById: `${prefix}keys:hash-of`,
    task: (id) => `${prefix}task:${id}`,
    taskRev: (id) => `${prefix}task-rev:${id}`,
    tasksEnded: `${prefix}tasks:ended`,
    tasksInState: (state) => `${prefix}tasks:state:${state}`,
    pushConfigs: (taskId) => `${prefix}push:${taskId}`,
    meta: `${prefix}meta`,
    events: (taskKey) => `${prefix}events:${taskKey}`,
    pushJob: (id) => `${prefix}push-job:${id}`,
    pushQueue: (queue) => `${prefix}push-queue:${queue}`,
    pushDue: `${prefix}push-due`,
    pushLeases: `${prefix}push-leases`,
  };
}
