// What a task's content weighs (the bytes its artifacts and messages, the agent's and the caller's, add to the
// record), and the refusal of a caller's message that would take it past `tasks.maxTaskBytes`.
import { lastingContent, type AgentEvent } from '../protocol/agent-events.js';
import { RpcError } from '../protocol/errors.js';
import type { Message, Task } from '../protocol/model.js';

const jsonBytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v));

/**
 * What one event adds: an artifact chunk in full (a replacement counts again: its earlier versions were events too),
 * a message or a closing status's message (both join the history). A `working` status replaces the status before
 * it, so it adds nothing that lasts; events of that kind are bounded by `streaming.eventRetention` in the store.
 */
export function eventBytes(ev: AgentEvent): number {
  const lasting = lastingContent(ev);
  return lasting === undefined ? 0 : jsonBytes(lasting);
}

/**
 * What one event carries on its way, lasting or not: a `working` status's message adds nothing that lasts, but it is
 * streamed, sent to webhooks and kept among the task's recent events, so one bigger than a whole task is refused too.
 */
export function passingBytes(ev: AgentEvent): number {
  return ev.type === 'status' && ev.state === 'working' && ev.message !== undefined ? jsonBytes(ev.message) : 0;
}

/**
 * The content a task holds already: its artifacts and its whole history, the caller's messages as well as the
 * agent's (a record is rewritten whole on every write, whoever made it big). Read once when a turn starts.
 */
export function taskContentBytes(task: Task): number {
  let bytes = task.artifacts.length > 0 ? jsonBytes(task.artifacts) : 0;
  for (const m of task.history) bytes += jsonBytes(m);
  return bytes;
}

/**
 * A caller's message that would take its task past `maxBytes` is refused: -32602 naming the limit and the setting,
 * before anything is stored. `adding`: a follow-up, not yet in `task`; a new task holds its first message already.
 */
export function checkTaskRoom(o: { task: Task; adding?: Message; maxBytes: number | undefined }): void {
  if (o.maxBytes === undefined) return;
  const bytes = taskContentBytes(o.task) + (o.adding ? jsonBytes(o.adding) : 0);
  if (bytes <= o.maxBytes) return;
  throw new RpcError('INVALID_PARAMS', {
    message:
      `Invalid params: params.message: with this message task ${o.task.id} would hold ${bytes} bytes of messages and artifacts, ` +
      `past its limit of ${o.maxBytes} bytes (tasks.maxTaskBytes); nothing was stored. Send less, or start a new task (it may share the contextId)`,
    data: { path: 'params.message', limit: o.maxBytes, bytes },
  });
}
