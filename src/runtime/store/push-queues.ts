// How push queues are named, and so which of them hold one workspace's jobs: both engines find a workspace's waiting
// jobs by its queues' common prefix, without an index the task write would have to keep.
import type { PushJob } from '../../protocol/records.js';

/** One queue per task and config; JSON keeps any characters of either id from making two names meet. */
export const queueOf = (taskKeyValue: string, configId: string): string => JSON.stringify([taskKeyValue, configId]);

/**
 * What every queue of the workspace's tasks begins with: `["` then the task key's `${workspace}/` as JSON writes it
 * (character by character, so a prefix of the string is a prefix of its JSON). A workspace id has no '/', so no other
 * workspace's queues share it.
 */
export const workspaceQueuePrefix = (workspaceId: string): string => `[${JSON.stringify(`${workspaceId}/`).slice(0, -1)}`;

/** What every queue of one task begins with: `[`, the task key as JSON, `,` (its closing quote ends the key). */
export const taskQueuePrefix = (taskKeyValue: string): string => `[${JSON.stringify(taskKeyValue)},`;

/** The task key a queue name holds (undefined for a name no queueOf made). */
export function taskKeyOfQueue(queue: string): string | undefined {
  try {
    const v: unknown = JSON.parse(queue);
    return Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined;
  } catch {
    return undefined;
  }
}

/** The order the dashboard shows waiting jobs in: soonest due first, then by queue and seq (a strict total order). */
export function dueBefore(a: PushJob, b: PushJob): boolean {
  if (a.dueAt !== b.dueAt) return a.dueAt < b.dueAt;
  if (a.queue !== b.queue) return a.queue < b.queue;
  return a.seq < b.seq;
}

/**
 * The order claims hand queue heads out in, on both engines: the one claimable first (due, or its lease lapsed)
 * first, then by queue name in UTF-8 byte order (Redis's order of equal scores in a sorted set). Negative when `a`
 * goes first.
 */
export function claimOrder(a: { at: number; queue: string }, b: { at: number; queue: string }): number {
  if (a.at !== b.at) return a.at - b.at;
  if (a.queue === b.queue) return 0;
  return Buffer.compare(Buffer.from(a.queue), Buffer.from(b.queue));
}
