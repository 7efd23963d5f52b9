// What a push job is made of: its queue name (task + config), its webhook-id, and the body fixed at enqueue time.
import { codecs } from '../../protocol/codec.js';
import type { Task } from '../../protocol/model.js';
import type { PushJob, StoredPushConfig } from '../../protocol/records.js';
import { taskView, type TaskViewOptions } from '../../protocol/views.js';
import { randomBase62 } from '../clock.js';
import { toSanitizedJson } from '../sanitizer.js';
import { queueOf } from '../store/push-queues.js';
import { taskKey } from '../store/types.js';

/**
 * The longest queue name (UTF-8 bytes) a config may make. A job is stored under [queue, seq], and LMDB refuses a key
 * over 1,978 bytes (the seq and the key's framing take 12): every write of the task would then fail. Ids are bounded
 * in characters, but JSON writes a control character or a lone surrogate as 6 bytes, so two ids of 256 such
 * characters name a queue of about 3 KB.
 */
export const MAX_QUEUE_BYTES = 1960;

/** The byte length of the queue a config would make (an absent config id is a random UUID: 36 characters). */
export const queueBytes = (taskKeyValue: string, configId: string | undefined): number =>
  Buffer.byteLength(queueOf(taskKeyValue, configId ?? '00000000-0000-0000-0000-000000000000'));

/** What a receiver may be sent: what the key that registered its config may read (results.read, results.files). */
export type PushView = Pick<TaskViewOptions, 'results' | 'files'>;

/**
 * The webhook body: the whole Task in the task's own dialect (a 1.0 task as a StreamResponse, `{task}`), gated like
 * tasks/get, through the exit sanitizer.
 */
export function notificationBody(task: Task, view: PushView): string {
  return toSanitizedJson(codecs[task.dialect].pushBody(taskView(task, view)));
}

/** A job per config for one stored change of `task` (its seq orders the queue); each config's view gates its body. */
export function jobsFor(o: { task: Task; configs: ReadonlyArray<{ config: StoredPushConfig; view: PushView }>; now: number }): PushJob[] {
  const key = taskKey(o.task.workspaceId, o.task.id);
  const bodies = new Map<string, string>();
  const bodyFor = (v: PushView) => {
    const k = `${v.results ? 1 : 0}${v.files ? 1 : 0}`;
    let body = bodies.get(k);
    if (body === undefined) bodies.set(k, (body = notificationBody(o.task, v)));
    return body;
  };
  const seq = o.task.seq ?? 0;
  return o.configs.map(({ config: c, view }) => ({
    id: `msg_${randomBase62(18)}`,
    queue: queueOf(key, c.id),
    seq,
    taskKey: key,
    configId: c.id,
    workspaceId: o.task.workspaceId,
    agentId: o.task.agentId,
    body: bodyFor(view),
    attempts: 0,
    dueAt: o.now,
    createdAt: o.now,
  }));
}
