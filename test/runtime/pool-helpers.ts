// Test helpers for the agent pool: run inputs and a subscriber that records events with their arrival time.
import { fileURLToPath } from 'node:url';
import { AgentSpec, type AgentEvent, type AgentRunInput } from '../../src/protocol/agent-events.js';
import type { Message } from '../../src/protocol/model.js';

export const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/agents/${name}`, import.meta.url));

let seq = 0;

export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  seq++;
  return { role: 'user', parts: [{ kind: 'text', text }], messageId: `m-${seq}`, ...extra };
}

export function runInput(opts: { agent: Partial<AgentSpec> & { id: string }; message?: Message; history?: Message[] }): AgentRunInput {
  return {
    agent: AgentSpec.parse({ name: opts.agent.id, ...opts.agent }),
    task: { id: 'task-1', contextId: 'ctx-1', history: opts.history ?? [], artifacts: [], metadata: {} },
    message: opts.message ?? userMessage('hello'),
  };
}

/** Collects events in order; `first` resolves on the first one, so a test can act while the run is live. */
export function recorder(): { events: AgentEvent[]; at: number[]; onEvent: (ev: AgentEvent) => void; first: Promise<void> } {
  const events: AgentEvent[] = [];
  const at: number[] = [];
  let markFirst: () => void = () => {};
  const first = new Promise<void>((resolve) => {
    markFirst = resolve;
  });
  return {
    events,
    at,
    first,
    onEvent: (ev) => {
      events.push(ev);
      at.push(performance.now());
      markFirst();
    },
  };
}
