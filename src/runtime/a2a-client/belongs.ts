// Answers that belong to what was asked: a task answer is the task asked about, in the context it was in, and a
// stream's events are about its one task. A remote that answers with another task (a confused server, a shared cache,
// a hostile agent) must not have that task taken for ours: its state, messages and artifacts would reach our caller
// and our stored result.
import type { RemoteEvent, RemoteTask } from '../../protocol/connections.js';
import { TERMINAL_STATES } from '../../protocol/model.js';
import { OutboundError } from './types.js';

/** A remote's id in an error: as JSON (an empty id shows), cut short. */
const shown = (id: string): string => JSON.stringify(id.slice(0, 100));

/** The task an event is about; '' when it names none (then it is about the stream's task). */
export const eventTaskId = (ev: RemoteEvent): string => (ev.kind === 'task' ? ev.task.id : ev.taskId);

/** `task` when it is the task `asked` about (nothing asked: any); a bad_response naming both ids otherwise. */
export function ownTask(task: RemoteTask, asked: string | undefined, method: string): RemoteTask {
  if (asked === undefined || task.id === asked) return task;
  throw new OutboundError('bad_response', `the remote's ${method} answer is about another task: asked for task ${shown(asked)}, got ${shown(task.id)}`);
}

/**
 * The context a stream's event leaves the stream's task in (`ownContext`'s rule): a status or artifact event naming
 * another context than the task's is refused as a whole task answer saying so would be.
 */
export function ownEventContext(ev: RemoteEvent, streamTask: string | undefined, known: string | undefined, method: string): string | undefined {
  const subject = ev.kind === 'task' ? ev.task : { id: ev.taskId || streamTask || '', ...(ev.contextId !== undefined && { contextId: ev.contextId }) };
  return ownContext(subject, known, method);
}

/**
 * Checks that a stream's event is about the stream's task (`streamTask`: the task asked about, or the one its first
 * events named); returns the stream's task as now known. One foreign event fails the whole call (docs/decisions.md).
 */
export function ownEvent(ev: RemoteEvent, streamTask: string | undefined, method: string): string | undefined {
  const id = eventTaskId(ev);
  if (id === '') return streamTask;
  if (streamTask === undefined || streamTask === '') return id;
  if (id === streamTask) return streamTask;
  throw new OutboundError(
    'bad_response',
    `an event of the remote's ${method} stream is about another task: the stream is task ${shown(streamTask)}, the event is task ${shown(id)}`,
  );
}

/**
 * The context a remote task is in, as `task` leaves it: `known` (the context a follow-up was sent in, or the one an
 * earlier answer named) when `task` names none or the same; a bad_response naming both when it names another. A task
 * does not change context: an answer that says so is not to be trusted, and taking it would re-associate our task.
 */
export function ownContext(task: Pick<RemoteTask, 'id' | 'contextId'>, known: string | undefined, method: string): string | undefined {
  const c = task.contextId || undefined;
  if (c === undefined || known === undefined || c === known) return known ?? c;
  throw new OutboundError(
    'bad_response',
    `the remote's ${method} answer puts task ${shown(task.id)} in another context: it was in context ${shown(known)}, the answer says ${shown(c)}`,
  );
}

/** The task and the context an answer or event names (the context: undefined when it names none). */
export interface NamedIds {
  taskId: string;
  contextId: string | undefined;
}
export const taskIds = (t: RemoteTask): NamedIds => ({ taskId: t.id, contextId: t.contextId });
export const eventIds = (ev: RemoteEvent): NamedIds => (ev.kind === 'task' ? taskIds(ev.task) : { taskId: ev.taskId, contextId: ev.contextId });

/**
 * The ids an answer names as the remote sent them: `asSent` is the answer as sent, present only when a lone surrogate
 * in it was read as U+FFFD (remote-json.ts); undefined when there is none, or it does not decode.
 */
export function sentIds(asSent: unknown, decode: (v: unknown) => NamedIds): NamedIds | undefined {
  if (asSent === undefined) return undefined;
  try {
    return decode(asSent);
  } catch {
    return undefined;
  }
}

/**
 * Checks that the task and context ids an answer names (`read`) are the ones the remote sent (`sent`, from sentIds). A
 * lone UTF-16 surrogate is read as U+FFFD, which is right for text but not for an id: the remote knows its task and
 * context by the ids it sent, so a follow-up, poll or cancel by the id we read would name nothing of the remote's, or
 * something else. Such an id is refused (docs/decisions.md), naming it as sent (JSON escapes show the surrogate).
 */
export function keptIds(read: NamedIds, sent: NamedIds | undefined, method: string): void {
  if (sent === undefined) return;
  const why = 'an id holding a lone UTF-16 surrogate (an unpaired \\uD800-\\uDFFF escape) cannot be kept as sent';
  if (read.taskId !== sent.taskId) {
    throw new OutboundError(
      'bad_response',
      `the remote's ${method} answer names task ${shown(sent.taskId)}: ${why}, so the task could not be followed up, polled or canceled`,
    );
  }
  if ((read.contextId ?? '') !== (sent.contextId ?? '')) {
    throw new OutboundError(
      'bad_response',
      `the remote's ${method} answer puts task ${shown(sent.taskId)} in context ${shown(sent.contextId ?? '')}: ${why}, so a follow-up could not continue it`,
    );
  }
}

/**
 * `task` when its id can be used: a task the call leaves waiting (for input, or still working, to be polled) must name
 * it, else a follow-up or poll would go to no task. A finished task without an id is taken (nothing follows it).
 */
export function followable(task: RemoteTask, method: string): RemoteTask {
  if (task.id !== '' || TERMINAL_STATES.has(task.status.state)) return task;
  const then = task.status.state === 'input-required' ? 'continued' : 'polled';
  throw new OutboundError(
    'bad_response',
    `the remote's ${method} answer leaves its task ${task.status.state} without naming it (no task id): it could not be ${then}`,
  );
}
