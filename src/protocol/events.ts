// Task events in the internal model: what streams and replays carry, each with its per-task sequence number.
import { z } from 'zod';
import { Artifact, TaskStatus, SETTLED_STATES, type Task } from './model.js';

/** the request id of the call that caused the event (logs, the dashboard); no codec writes it to a caller */
const RequestId = z.string().max(200).optional();

export const TaskEvent = z.discriminatedUnion('kind', [
  z.object({ seq: z.number().int().positive(), kind: z.literal('status'), status: TaskStatus, final: z.boolean(), requestId: RequestId }),
  z.object({
    seq: z.number().int().positive(),
    kind: z.literal('artifact'),
    requestId: RequestId,
    /** the chunk: for an appended chunk only the new parts */
    artifact: Artifact,
    append: z.boolean(),
    lastChunk: z.boolean(),
  }),
]);
export type TaskEvent = z.infer<typeof TaskEvent>;

type Unsequenced<T> = T extends unknown ? Omit<T, 'seq'> : never;
export type NewTaskEvent = Unsequenced<TaskEvent>;

const sameStatus = (a: Task['status'], b: Task['status']) => a.state === b.state && a.message?.messageId === b.message?.messageId;

/**
 * Whether `next` is `prev` with parts added at its end. An appended chunk keeps the very part objects before it and a
 * replacement brings new ones, so the two ends of the old list tell, in constant time: a check of every part made a
 * long stream of chunks quadratic.
 */
const grewFrom = (prev: readonly unknown[], next: readonly unknown[]): boolean =>
  prev.length === 0 || (next[0] === prev[0] && next[prev.length - 1] === prev[prev.length - 1]);

/**
 * The events that take a task from `prev` to `next`: artifact chunks first, then a status change.
 * A status event is final when the state is terminal or input-required (the stream ends there).
 */
export function diffTask(prev: Task | undefined, next: Task): NewTaskEvent[] {
  const out: NewTaskEvent[] = [];
  // the call that drives the task now (its creation, a follow-up, a cancel) stamps what it caused
  const rid = next.metadata.request_id;
  const requestId = typeof rid === 'string' ? { requestId: rid } : undefined;
  const before = new Map((prev?.artifacts ?? []).map((a) => [a.artifactId, a]));
  for (const a of next.artifacts) {
    const old = before.get(a.artifactId);
    if (old === a) continue;
    if (old && old.parts.length < a.parts.length && grewFrom(old.parts, a.parts)) {
      out.push({
        kind: 'artifact',
        artifact: { ...a, parts: a.parts.slice(old.parts.length), append: true },
        append: true,
        lastChunk: a.lastChunk ?? false,
        ...requestId,
      });
    } else if (!old || old.parts !== a.parts || old.lastChunk !== a.lastChunk) {
      out.push({ kind: 'artifact', artifact: a, append: false, lastChunk: a.lastChunk ?? true, ...requestId });
    }
  }
  if (!prev || !sameStatus(prev.status, next.status)) {
    out.push({ kind: 'status', status: next.status, final: SETTLED_STATES.has(next.status.state), ...requestId });
  }
  return out;
}
