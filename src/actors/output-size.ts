// What a task's content weighs (the bytes its artifacts and messages, the agent's and the caller's, add to the
// record), and the refusal of a caller's message that would take it past `tasks.maxTaskBytes`.
import { lastingContent, type AgentEvent } from '../protocol/agent-events.js';
import { RpcError } from '../protocol/errors.js';
import type { Message, Task } from '../protocol/model.js';

const jsonBytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v));

/**
 * A message or artifact that is part of a task is never changed (each change copies: task-updates.ts), so each one is
 * measured once: a new task's message is measured by the send's room check and read back at its turn's start (a
 * stringify of a small message costs about 5 µs in a busy gateway, the same again for each measure).
 */
const measured = new WeakMap<object, number>();
function partBytes(v: object): number {
  let n = measured.get(v);
  if (n === undefined) {
    n = jsonBytes(v);
    measured.set(v, n);
  }
  return n;
}

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
  // the artifacts as one JSON array: their texts, the commas between them and the brackets
  let bytes = task.artifacts.length > 0 ? task.artifacts.length + 1 : 0;
  for (const a of task.artifacts) bytes += partBytes(a);
  for (const m of task.history) bytes += partBytes(m);
  return bytes;
}

/**
 * A caller's message that would take its task past `maxBytes` is refused: -32602 naming the limit and the setting,
 * before anything is stored. `adding`: a follow-up, not yet in `task`; a new task holds its first message already.
 */
export function checkTaskRoom(o: { task: Task; adding?: Message; maxBytes: number | undefined }): void {
  if (o.maxBytes === undefined) return;
  const bytes = taskContentBytes(o.task) + (o.adding ? partBytes(o.adding) : 0);
  if (bytes <= o.maxBytes) return;
  throw new RpcError('INVALID_PARAMS', {
    message:
      `Invalid params: params.message: with this message task ${o.task.id} would hold ${bytes} bytes of messages and artifacts, ` +
      `past its limit of ${o.maxBytes} bytes (tasks.maxTaskBytes); nothing was stored. Send less, or start a new task (it may share the contextId)`,
    data: { path: 'params.message', limit: o.maxBytes, bytes },
  });
}
