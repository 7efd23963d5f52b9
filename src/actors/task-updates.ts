// Pure updates of a task record: status changes and folding agent events (artifact chunks, messages) into it.
import { randomUUID } from 'node:crypto';
import type { AgentEvent } from '../protocol/agent-events.js';
import { extensionsOf, type Artifact, type Message, type Task, type TaskState } from '../protocol/model.js';

/** The task machine's context: the task, and how the agent asked to end the turn under way. */
export interface TaskContext {
  task: Task;
  /** the state the agent asked to end its turn in, and its message; applied when its run returns */
  pendingFinal: 'completed' | 'input-required' | 'failed' | undefined;
  pendingMessage?: Message;
}

const agentMessage = (task: Task, m: Pick<Message, 'parts' | 'metadata' | 'extensions'>): Message => ({
  role: 'agent',
  parts: m.parts,
  messageId: randomUUID(),
  taskId: task.id,
  contextId: task.contextId,
  ...(m.metadata !== undefined && { metadata: m.metadata }),
  ...extensionsOf(m),
});

// tasks changing state in the same millisecond (most of them, under load) share one formatted timestamp
let lastMs = Number.NaN;
let lastIso = '';
const isoTime = (ms: number): string => {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
};

export function withStatus(task: Task, o: { state: TaskState; now: number; message?: Message; failure?: { reason: string; message: string } }): Task {
  let message = o.message;
  if (o.failure) {
    message = agentMessage(task, { parts: [{ kind: 'text', text: o.failure.message }], metadata: { reason: o.failure.reason } });
  }
  return {
    ...task,
    status: { state: o.state, ...(message && { message }), timestamp: isoTime(o.now) },
    updatedAt: o.now,
  };
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The stored breakdown, or none when absent or malformed (a plain check: this runs at the end of every turn). */
function costOf(v: unknown): { worker_ms: number; turns: number } {
  if (typeof v === 'object' && v !== null && 'worker_ms' in v && 'turns' in v && finite(v.worker_ms) && finite(v.turns)) {
    return { worker_ms: v.worker_ms, turns: v.turns };
  }
  return { worker_ms: 0, turns: 0 };
}

/** Adds a turn's worker time to the internal `cost_breakdown` (the sanitizer keeps it from every caller). */
export function withCost(task: Task, ev: { workerMs: number } | undefined): Task {
  if (ev === undefined) return task;
  const before = costOf(task.metadata.cost_breakdown);
  return { ...task, metadata: { ...task.metadata, cost_breakdown: { worker_ms: before.worker_ms + ev.workerMs, turns: before.turns + 1 } } };
}

function mergeArtifact(task: Task, chunk: Extract<AgentEvent, { type: 'artifact' }>['artifact']): Artifact[] {
  const list = task.artifacts;
  const at =
    chunk.artifactId !== undefined
      ? list.findIndex((a) => a.artifactId === chunk.artifactId)
      : chunk.index !== undefined
        ? list.findIndex((a) => a.index === chunk.index)
        : -1;
  if (chunk.append && at >= 0) {
    const prev = list[at]!;
    const merged: Artifact = { ...prev, parts: [...prev.parts, ...chunk.parts], ...(chunk.lastChunk !== undefined && { lastChunk: chunk.lastChunk }) };
    return list.map((a, i) => (i === at ? merged : a));
  }
  const index = chunk.index ?? (list.length === 0 ? 0 : Math.max(...list.map((a) => a.index)) + 1);
  const fresh: Artifact = { ...chunk, artifactId: chunk.artifactId ?? `${task.id}-artifact-${index}`, index };
  return at >= 0 ? list.map((a, i) => (i === at ? fresh : a)) : [...list, fresh];
}

export function applyAgentEvent(ctx: TaskContext, ev: AgentEvent, now: number): Partial<TaskContext> {
  const task = ctx.task;
  switch (ev.type) {
    case 'artifact':
      return { task: { ...task, artifacts: mergeArtifact(task, ev.artifact), updatedAt: now } };
    case 'message': {
      const m = agentMessage(task, ev.message);
      return { task: { ...task, history: [...task.history, m], updatedAt: now } };
    }
    case 'status': {
      const m = ev.message && agentMessage(task, ev.message);
      if (ev.state === 'working') return { task: withStatus(task, { state: 'working', message: m, now }) };
      // a closing status ends the turn when the run returns; its message joins the history now
      const history = m ? [...task.history, m] : task.history;
      return { task: { ...task, history, updatedAt: now }, pendingFinal: ev.state, pendingMessage: m };
    }
  }
}
