// Pure updates of a task record: status changes and folding agent events (artifact chunks, messages) into it.
import { randomUUID } from 'node:crypto';
import type { AgentEvent } from '../protocol/agent-events.js';
import { extensionsOf, type Artifact, type Message, type Task, type TaskState } from '../protocol/model.js';
import { copyWith } from '../protocol/copy-with.js';

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

type Chunk = Extract<AgentEvent, { type: 'artifact' }>['artifact'];

/**
 * A task being changed by one batch of agent events. Nobody sees the task between the events of a batch, so the
 * arrays the batch copies are its own until it ends: later events of the batch add to them in place. A burst of n
 * chunks then costs one copy of what the task held before it, not n (copying per event made a long stream of tiny
 * chunks quadratic, long enough to stall every other call on the main thread).
 */
class TaskDraft {
  task: Task;
  private artifacts: Artifact[] | undefined;
  private history: Message[] | undefined;
  /** artifacts (by position) whose object and parts array this batch made */
  private readonly fresh = new Set<number>();
  /** where each artifact id and index sits; built on the first chunk of the batch */
  private byId: Map<string, number> | undefined;
  private byIndex: Map<number, number> | undefined;
  private maxIndex = -1;

  constructor(task: Task) {
    this.task = task;
  }

  private list(): Artifact[] {
    if (this.artifacts) return this.artifacts;
    const list = this.task.artifacts.slice();
    this.artifacts = list;
    this.task = { ...this.task, artifacts: list };
    return list;
  }

  /** The first artifact with each id and each index, as a search of the list would find them. */
  private lookup(): { byId: Map<string, number>; byIndex: Map<number, number> } {
    if (this.byId && this.byIndex) return { byId: this.byId, byIndex: this.byIndex };
    const list = this.list();
    const byId = new Map<string, number>();
    const byIndex = new Map<number, number>();
    this.maxIndex = -1;
    for (let i = 0; i < list.length; i++) {
      const a = list[i]!;
      if (!byId.has(a.artifactId)) byId.set(a.artifactId, i);
      if (!byIndex.has(a.index)) byIndex.set(a.index, i);
      if (a.index > this.maxIndex) this.maxIndex = a.index;
    }
    this.byId = byId;
    this.byIndex = byIndex;
    return { byId, byIndex };
  }

  artifact(chunk: Chunk, now: number): void {
    const list = this.list();
    const { byId, byIndex } = this.lookup();
    const at = chunk.artifactId !== undefined ? byId.get(chunk.artifactId) : chunk.index !== undefined ? byIndex.get(chunk.index) : undefined;
    if (chunk.append && at !== undefined) {
      const prev = list[at]!;
      if (this.fresh.has(at)) {
        for (const p of chunk.parts) prev.parts.push(p);
        if (chunk.lastChunk !== undefined) prev.lastChunk = chunk.lastChunk;
      } else {
        list[at] = { ...prev, parts: prev.parts.concat(chunk.parts), ...(chunk.lastChunk !== undefined && { lastChunk: chunk.lastChunk }) };
        this.fresh.add(at);
      }
    } else {
      const index = chunk.index ?? this.maxIndex + 1;
      const made: Artifact = { ...chunk, parts: chunk.parts.slice(), artifactId: chunk.artifactId ?? `${this.task.id}-artifact-${index}`, index };
      if (at === undefined) {
        const pos = list.push(made) - 1;
        this.fresh.add(pos);
        if (!byId.has(made.artifactId)) byId.set(made.artifactId, pos);
        if (!byIndex.has(index)) byIndex.set(index, pos);
        if (index > this.maxIndex) this.maxIndex = index;
      } else {
        const prev = list[at]!;
        list[at] = made;
        this.fresh.add(at);
        // a replacement under another id or index: the lookups are built again when next needed (rare)
        if (prev.artifactId !== made.artifactId || prev.index !== made.index) {
          this.byId = undefined;
          this.byIndex = undefined;
        }
      }
    }
    this.touch(now);
  }

  message(m: Message, now: number): void {
    if (!this.history) {
      this.history = this.task.history.slice();
      this.task = { ...this.task, history: this.history };
    }
    this.history.push(m);
    this.touch(now);
  }

  private touch(now: number): void {
    if (this.task.updatedAt !== now) this.task = { ...this.task, updatedAt: now };
  }
}

/** Folds a batch of agent events (one delivery from the run driver) into the task, in order. */
export function applyAgentEvents(ctx: TaskContext, events: readonly AgentEvent[], now: number): TaskContext {
  if (events.length === 0) return ctx;
  const draft = new TaskDraft(ctx.task);
  let out = ctx;
  for (const ev of events) {
    switch (ev.type) {
      case 'artifact':
        draft.artifact(ev.artifact, now);
        break;
      case 'message':
        draft.message(agentMessage(draft.task, ev.message), now);
        break;
      case 'status': {
        const m = ev.message && agentMessage(draft.task, ev.message);
        if (ev.state === 'working') {
          // a bare `working` over a bare `working` changes nothing a reader sees (no event is made of it): left out,
          // it costs no write and no webhook
          if (m || draft.task.status.state !== 'working' || draft.task.status.message)
            draft.task = withStatus(draft.task, { state: 'working', message: m, now });
          break;
        }
        // a closing status ends the turn when the run returns; its message joins the history now
        if (m) draft.message(m, now);
        else if (draft.task.updatedAt !== now) draft.task = { ...draft.task, updatedAt: now };
        out = copyWith(out, { pendingFinal: ev.state, pendingMessage: m });
        break;
      }
    }
  }
  return { ...out, task: draft.task };
}
