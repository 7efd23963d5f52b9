// The task state machine (XState v5): the only authority on which state may follow which. Effects are injected.
import { assign, setup, type ActorRefFrom } from 'xstate';
import type { AgentEvent, AgentRunResult } from '../protocol/agent-events.js';
import type { Message, Task, TaskState } from '../protocol/model.js';
import type { Clock } from '../runtime/clock.js';
import { applyAgentEvent, withCost, withStatus } from './task-updates.js';

/** How an agent's turn ended: its run returned, or failed (error, crash, timeout). */
export type TurnEnd = { ok: true; workerMs: number } | { ok: false; error: { reason: string; message: string }; workerMs: number };

export type TaskMachineEvent =
  | { type: 'START' }
  /** what the agent reported since the last batch, and the end of its turn when that came with it */
  | { type: 'AGENT_EVENTS'; events: AgentEvent[]; end?: TurnEnd }
  | { type: 'CANCEL'; reason?: string }
  | { type: 'USER_MESSAGE'; message: Message };

export interface TaskContext {
  task: Task;
  /** the state the agent asked to end its turn in, and its message; applied when its run returns */
  pendingFinal: 'completed' | 'input-required' | 'failed' | undefined;
  pendingMessage?: Message;
}

/** Runs one agent turn; reports progress with `onEvent`; must honour the signal. Never rejects. */
export type RunAgentTurn = (o: { task: Task; message: Message; signal: AbortSignal; onEvent: (ev: AgentEvent) => void }) => Promise<AgentRunResult>;

export interface TaskMachineDeps {
  clock: Clock;
  runTurn: RunAgentTurn;
}

const lastUserMessage = (t: Task): Message => {
  for (let i = t.history.length - 1; i >= 0; i--) if (t.history[i]!.role === 'user') return t.history[i]!;
  throw new Error(`task ${t.id} has no user message`);
};

const endOf = (event: TaskMachineEvent): TurnEnd | undefined => (event.type === 'AGENT_EVENTS' ? event.end : undefined);

/** The state the agent asked to end its turn in, counting the batch at hand. */
function closingState(context: TaskContext, event: TaskMachineEvent): TaskContext['pendingFinal'] {
  let state = context.pendingFinal;
  if (event.type === 'AGENT_EVENTS') for (const ev of event.events) if (ev.type === 'status' && ev.state !== 'working') state = ev.state;
  return state;
}

/** Ends a run: aborts it unless it already returned; the run sends nothing after. */
type EndRun = () => void;

/** Each actor's agent run while it is in `working` (keyed by the actor). */
const runs = new WeakMap<object, EndRun>();

const endRunOf = (actor: object): void => {
  const end = runs.get(actor);
  if (!end) return;
  runs.delete(actor);
  end();
};

/** Stops a task actor and aborts its run if it has one: stopping an actor runs no exit actions. */
export function stopTaskActor(actor: TaskActor): void {
  actor.stop();
  endRunOf(actor);
}

/** Starts an agent turn for the task; what the agent reports reaches the machine through `send`. */
function startRun(deps: TaskMachineDeps, task: Task, send: (e: TaskMachineEvent) => void): EndRun {
  const ac = new AbortController();
  const started = performance.now();
  let finished = false;
  let ended = false;
  // events that arrive together (an agent's burst, its last events with its end) go to the machine as one
  // batch: one transition and one stored change instead of one each (a batch holds at most one status)
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
    batch.push(event);
    if (!flushing) {
      flushing = true;
      setImmediate(() => flushing && flush());
    }
  };
  void deps.runTurn({ task, message: lastUserMessage(task), signal: ac.signal, onEvent }).then((r) => {
    finished = true;
    const workerMs = Math.round((performance.now() - started) * 1000) / 1000;
    flush(r.ok ? { ok: true, workerMs } : { ok: false, error: r.error, workerMs });
  });
  // leaving `working` before the run ended (cancel) aborts it; after a normal end there is nothing
  // to abort (and abort() would build a DOMException per task for nothing)
  return () => {
    ended = true;
    if (!finished) ac.abort();
  };
}

export function createTaskMachine(deps: TaskMachineDeps) {
  const now = () => deps.clock.now();
  const to = (state: TaskState) => ({ type: 'setStatus' as const, params: { state } });

  return setup({
    types: {} as { context: TaskContext; events: TaskMachineEvent; input: { task: Task } },
    actions: {
      // the run is an effect of being in `working`, not a child actor: a child costs an actor, its registration and
      // its stop per turn, a sizeable share of a short task's CPU
      startRun: ({ context, self }) => {
        runs.set(self, startRun(deps, context.task, (e) => self.send(e)));
      },
      endRun: ({ self }) => endRunOf(self),
      applyEvents: assign(({ context, event }) => {
        if (event.type !== 'AGENT_EVENTS') return {};
        let ctx: TaskContext = context;
        for (const ev of event.events) ctx = { ...ctx, ...applyAgentEvent(ctx, ev, now()) };
        return ctx;
      }),
      endTurn: assign(({ context, event }, params: { state: TaskState }) => ({
        task: withStatus(withCost(context.task, endOf(event)), { state: params.state, message: context.pendingMessage, now: now() }),
        pendingFinal: undefined,
        pendingMessage: undefined,
      })),
      failTurn: assign(({ context, event }) => {
        const end = endOf(event);
        const error = end && !end.ok ? end.error : { reason: 'agent_error', message: 'The agent failed' };
        return { task: withStatus(withCost(context.task, end), { state: 'failed', failure: error, now: now() }), pendingFinal: undefined };
      }),
      setStatus: assign(({ context }, params: { state: TaskState }) => ({
        task: withStatus(context.task, { state: params.state, now: now() }),
        pendingFinal: undefined,
      })),
    },
    guards: {
      runFailed: ({ event }) => endOf(event)?.ok === false,
      endsAskingInput: ({ context, event }) => endOf(event)?.ok === true && closingState(context, event) === 'input-required',
      endsReportingFailure: ({ context, event }) => endOf(event)?.ok === true && closingState(context, event) === 'failed',
      ends: ({ event }) => endOf(event)?.ok === true,
    },
  }).createMachine({
    id: 'task',
    context: ({ input }) => ({ task: input.task, pendingFinal: undefined }),
    initial: 'submitted',
    states: {
      submitted: {
        on: {
          START: { target: 'working', actions: to('working') },
          CANCEL: { target: 'canceled', actions: to('canceled') },
        },
      },
      working: {
        entry: 'startRun',
        exit: 'endRun',
        on: {
          AGENT_EVENTS: [
            { guard: 'runFailed', target: 'failed', actions: ['applyEvents', 'failTurn'] },
            { guard: 'endsAskingInput', target: 'input-required', actions: ['applyEvents', { type: 'endTurn', params: { state: 'input-required' } }] },
            { guard: 'endsReportingFailure', target: 'failed', actions: ['applyEvents', { type: 'endTurn', params: { state: 'failed' } }] },
            { guard: 'ends', target: 'completed', actions: ['applyEvents', { type: 'endTurn', params: { state: 'completed' } }] },
            { actions: 'applyEvents' },
          ],
          CANCEL: { target: 'canceled', actions: to('canceled') },
        },
      },
      'input-required': {
        on: {
          USER_MESSAGE: {
            target: 'working',
            actions: assign(({ context, event }) => ({
              task: withStatus({ ...context.task, history: [...context.task.history, event.message] }, { state: 'working', now: now() }),
              pendingFinal: undefined,
            })),
          },
          CANCEL: { target: 'canceled', actions: to('canceled') },
        },
      },
      completed: { type: 'final' },
      canceled: { type: 'final' },
      failed: { type: 'final' },
    },
  });
}

export type TaskMachine = ReturnType<typeof createTaskMachine>;
export type TaskActor = ActorRefFrom<TaskMachine>;
