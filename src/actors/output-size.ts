// What an agent's output weighs in a task: the bytes its artifacts and messages add to the record, measured per event.
import type { AgentEvent } from '../protocol/agent-events.js';
import type { Task } from '../protocol/model.js';

const jsonBytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v));

/**
 * What one event adds: an artifact chunk in full (a replacement counts again: its earlier versions were events too),
 * a message or a closing status's message (both join the history). A `working` status replaces the status before
 * it, so it adds nothing that lasts; events of that kind are bounded by `streaming.eventRetention` in the store.
 */
export function eventBytes(ev: AgentEvent): number {
  switch (ev.type) {
    case 'artifact':
      return jsonBytes(ev.artifact);
    case 'message':
      return jsonBytes(ev.message);
    case 'status':
      return ev.state === 'working' || ev.message === undefined ? 0 : jsonBytes(ev.message);
  }
}

/** The agent output a task holds already (its artifacts, the agent's messages): read once when a turn starts. */
export function taskOutputBytes(task: Task): number {
  let bytes = task.artifacts.length > 0 ? jsonBytes(task.artifacts) : 0;
  for (const m of task.history) if (m.role === 'agent') bytes += jsonBytes(m);
  return bytes;
}
