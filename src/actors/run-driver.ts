// The run driver: starts a task's agent turn when its machine enters `working`, feeds the turn's events back, ends it on exit.
import type { AgentEvent, AgentRunResult } from '../protocol/agent-events.js';
import type { Message, Task } from '../protocol/model.js';
import { TurnCancel, type TurnSignal } from '../runtime/agents/turn-signal.js';
import { eventBytes, passingBytes, taskContentBytes } from './output-size.js';
import type { TaskActorRef, TaskMachineEvent, TurnEffects, TurnEnd } from './task-machine.js';

/** Runs one agent turn (the agent registry does): reports progress with `onEvent`, honours the signal, never rejects. */
export interface AgentPort {
  runTurn(o: { task: Task; message: Message; signal: TurnSignal; onEvent: (ev: AgentEvent) => void }): Promise<AgentRunResult>;
}

export interface RunDriverOptions {
  /** the content (artifacts, messages of both sides) one task may hold; a turn that would pass it is stopped and fails */
  maxTaskBytes?: number;
}

/** The reason a turn stopped for outgrowing its task carries, beside `timeout`, `worker_crash`, `agent_protocol`. */
const OUTPUT_TOO_LARGE = 'output_too_large';

const lastUserMessage = (t: Task): Message => {
  for (let i = t.history.length - 1; i >= 0; i--) if (t.history[i]!.role === 'user') return t.history[i]!;
  throw new Error(`task ${t.id} has no user message`);
};

/**
 * Owns the turns in flight, one per actor in `working`. The path of a turn's events is one stage: what the agent
 * reports within one event-loop turn (a burst, or its last events with its end) reaches the machine as one
 * `AGENT_EVENTS`, so it costs one transition and one stored change (split only so a batch holds one status).
 */
export class RunDriver implements TurnEffects {
  private readonly runs = new Map<TaskActorRef, () => void>();

  constructor(
    private readonly agents: AgentPort,
    private readonly o: RunDriverOptions = {},
  ) {}

  start(actor: TaskActorRef, task: Task): void {
    this.runs.set(
      actor,
      this.begin(task, (e) => actor.send(e)),
    );
  }

  /** Leaving `working` (an end, a cancel) or stopping the actor: the run is aborted if it has not returned. */
  end(actor: TaskActorRef): void {
    const end = this.runs.get(actor);
    if (!end) return;
    this.runs.delete(actor);
    end();
  }

  get inFlight(): number {
    return this.runs.size;
  }

  private begin(task: Task, send: (e: TaskMachineEvent) => void): () => void {
    const ac = new TurnCancel();
    const started = performance.now();
    const workerMs = () => Math.round((performance.now() - started) * 1000) / 1000;
    // every runner's events pass here: the one place a task's growth is bounded, counted as each event arrives
    const maxBytes = this.o.maxTaskBytes ?? Infinity;
    let bytes = maxBytes === Infinity ? 0 : taskContentBytes(task);
    let overgrown = false;
    let finished = false;
    let ended = false;
    let batch: AgentEvent[] = [];
    let flushing = false;
    const flush = (end?: TurnEnd) => {
      flushing = false;
      if (ended || (batch.length === 0 && !end)) return;
      // one status per batch: a stored change shows one status, and every status the agent reports is an event
      const segments: AgentEvent[][] = [[]];
      for (const ev of batch) {
        const seg = segments[segments.length - 1]!;
        if (ev.type === 'status' && seg.some((e) => e.type === 'status')) segments.push([ev]);
        else seg.push(ev);
      }
      batch = [];
      for (let i = 0; i < segments.length && !ended; i++) {
        send({ type: 'AGENT_EVENTS', events: segments[i]!, ...(end && i === segments.length - 1 && { end }) });
      }
    };
    const onEvent = (event: AgentEvent) => {
      if (overgrown || ended) return;
      if (maxBytes !== Infinity) {
        bytes += eventBytes(event);
        if (bytes > maxBytes || passingBytes(event) > maxBytes) {
          // what came before this event is kept; the end leaves `working`, whose exit aborts the run as a cancel does
          overgrown = true;
          const message = `The agent's output took this task past its limit of ${maxBytes} bytes (tasks.maxTaskBytes), counted over its messages and artifacts; the turn was stopped and its output up to the limit kept`;
          flush({ ok: false, error: { reason: OUTPUT_TOO_LARGE, message }, workerMs: workerMs() });
          return;
        }
      }
      batch.push(event);
      if (!flushing) {
        flushing = true;
        setImmediate(() => flushing && flush());
      }
    };
    void this.agents.runTurn({ task, message: lastUserMessage(task), signal: ac, onEvent }).then((r) => {
      finished = true;
      if (overgrown) return;
      const ms = workerMs();
      flush(r.ok ? { ok: true, workerMs: ms } : { ok: false, error: r.error, workerMs: ms });
    });
    // after a normal end there is nothing to abort (and abort() would build a DOMException per task for nothing)
    return () => {
      ended = true;
      if (!finished) ac.abort();
    };
  }
}
