// What an agent is, as code: an async generator over one turn of a task. Shared by builtins and module agents.
import type { AgentEvent, AgentRunInput } from '../../protocol/agent-events.js';
import type { Message } from '../../protocol/model.js';
import type { CallFn } from './call.js';

export interface AgentContext {
  task: AgentRunInput['task'];
  message: Message;
  /**
   * Aborted when the worker gives up on the run while the agent is still suspended (for instance
   * after an invalid event), so the agent's own timers and I/O stop. A cancel or timeout from the
   * pool terminates the whole worker instead, which also stops agents that never look at this.
   */
  signal: AbortSignal;
  options: Record<string, unknown>;
  /**
   * Calls a remote agent over one of the workspace's outbound connections (client mode), as this agent: the
   * connection must allow it (its agent list, trust level and data types).
   *
   * `message` is a string (one text part) or `{ parts, metadata?, extensions?, taskId?, contextId? }` (parts in the
   * internal model; `extensions` are the URIs of the A2A extensions the message uses, at most 64, sent to the remote;
   * `taskId`/`contextId` answer a remote task that asked for input).
   *
   * - `await ctx.call(name, message, { signal })` resolves with the remote's final task
   *   (`{ id, contextId, status, artifacts, history? }`): completed, failed, canceled or input-required.
   * - `for await (const ev of ctx.call(name, message, { stream: true, signal }))` yields each event as it arrives
   *   (`{ kind: 'status', status, final }`, `{ kind: 'artifact', artifact }`, `{ kind: 'task', task }`); the last is
   *   always `{ kind: 'task', task }` with the final task, and then the loop ends. Breaking out cancels the call.
   *
   * A failure rejects (or throws out of the loop) a CallError with a stable `code` ('no_connection', 'not_permitted',
   * 'trust_refused', 'data_type_refused', 'unreachable', 'timeout', 'remote_error' with `remoteCode`, 'canceled',
   * 'invalid_request' for bad arguments or a message larger than `tasks.maxTaskBytes`, 'client_mode_off' when the gateway has no client mode...) and a message.
   * Aborting `signal` rejects at once with 'canceled' and the gateway stops the call.
   */
  call: CallFn;
}

/** Builtins are typed; module agents are checked event by event at run time, so they may yield anything. */
export type AgentFn = (ctx: AgentContext) => AsyncIterable<AgentEvent>;

/** The text of a message's text parts, joined by newlines. */
export const messageText = (message: Pick<Message, 'parts'>): string => {
  let out = '';
  for (const part of message.parts) {
    if (part.kind === 'text') out = out === '' ? part.text : `${out}\n${part.text}`;
  }
  return out;
};
