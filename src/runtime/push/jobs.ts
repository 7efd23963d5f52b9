// What a push job is made of: its queue name (task + config), its webhook-id, and the body fixed at enqueue time.
import { codecs } from '../../protocol/codec.js';
import type { Task } from '../../protocol/model.js';
import type { PushJob, StoredPushConfig } from '../../protocol/records.js';
import { taskView } from '../../protocol/views.js';
import { randomBase62 } from '../clock.js';
import { toSanitizedJson } from '../sanitizer.js';
import { taskKey } from '../store/types.js';

/** One queue per task and config; JSON keeps any characters of either id from making two names meet. */
export const queueOf = (taskKeyValue: string, configId: string): string => JSON.stringify([taskKeyValue, configId]);

/** The webhook body: the whole Task in the task's own dialect, through the exit sanitizer. */
export function notificationBody(task: Task): string {
  return toSanitizedJson(codecs[task.dialect].task(taskView(task, { results: true, files: true })));
}

/** A job per config for one stored change of `task` (its seq orders the queue). */
export function jobsFor(o: { task: Task; configs: readonly StoredPushConfig[]; now: number }): PushJob[] {
  const key = taskKey(o.task.workspaceId, o.task.id);
  const body = notificationBody(o.task);
  const seq = o.task.seq ?? 0;
  return o.configs.map((c) => ({
    id: `msg_${randomBase62(18)}`,
    queue: queueOf(key, c.id),
    seq,
    taskKey: key,
    configId: c.id,
    workspaceId: o.task.workspaceId,
    body,
    attempts: 0,
    dueAt: o.now,
    createdAt: o.now,
  }));
}
