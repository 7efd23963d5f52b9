// What an agent is, as code: an async generator over one turn of a task. Shared by builtins and module agents.
import type { AgentEvent, AgentRunInput } from '../../protocol/agent-events.js';
import type { Message } from '../../protocol/model.js';

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
