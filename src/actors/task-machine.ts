// The task state machine (XState v5): the only authority on which state may follow which; its actions and guards as
// plain functions, shared with the stepper that runs live tasks (task-stepper.ts). Effects are injected.
import { assign, setup } from 'xstate';
import type { AgentEvent } from '../protocol/agent-events.js';
import type { Message, Task, TaskState } from '../protocol/model.js';
import type { Clock } from '../runtime/clock.js';
import { applyAgentEvents, withCost, withStatus, type TaskContext } from './task-updates.js';

/** How an agent's turn ended: its run returned, or failed (error, crash, timeout). */
export type TurnEnd = { ok: true; workerMs: number } | { ok: false; error: { reason: string; message: string }; workerMs: number };

export type TaskMachineEvent =
  | { type: 'START' }
  /** what the agent reported since the last batch, and the end of its turn when that came with it */
  | { type: 'AGENT_EVENTS'; events: AgentEvent[]; end?: TurnEnd }
  /** `requestId`: the call that asked (its id stamps the events it causes) */
  | { type: 'CANCEL'; reason?: string; requestId?: string }
  | { type: 'USER_MESSAGE'; message: Message; requestId?: string };

export type { TaskContext } from './task-updates.js';

/**
 * The agent run of a task is an effect of being in `working`: the machine starts it on entry and ends it on exit
 * (a cancel aborts it). Whoever runs the actors owns the runs; the run reports back with `AGENT_EVENTS`.
 */
export interface TurnEffects {
  start(actor: TaskActorRef, task: Task): void;
  end(actor: TaskActorRef): void;
}

/** The actor as the effects see it: something to send the turn's events to. */
export interface TaskActorRef {
  send(event: TaskMachineEvent): void;
}

export interface TaskMachineDeps {
  clock: Clock;
  turns: TurnEffects;
}

const endOf = (event: TaskMachineEvent): TurnEnd | undefined => (event.type === 'AGENT_EVENTS' ? event.end : undefined);

/** The state the agent asked to end its turn in, counting the batch at hand. */
function closingState(context: TaskContext, event: TaskMachineEvent): TaskContext['pendingFinal'] {
  let state = context.pendingFinal;
  if (event.type === 'AGENT_EVENTS') for (const ev of event.events) if (ev.type === 'status' && ev.state !== 'working') state = ev.state;
  return state;
}

/** What the machine's actions may change in its context (XState's `assign` merges it; so does the stepper). */
type ContextUpdate = Partial<TaskContext>;

/**
 * The machine's actions and guards as plain functions of (context, event, params): the XState machine below wraps
 * them, and the stepper (task-stepper.ts) that runs live tasks calls the very same ones, so the two cannot drift.
 */
export function taskMachineLogic(deps: TaskMachineDeps) {
  const now = () => deps.clock.now();
  const withEvents = (context: TaskContext, event: TaskMachineEvent): TaskContext => {
    if (event.type !== 'AGENT_EVENTS') return context;
    return applyAgentEvents(context, event.events, now());
  };
  const updates = {
    applyEvents: (context: TaskContext, event: TaskMachineEvent): ContextUpdate => withEvents(context, event),
    // the batch that ends a turn is applied and the turn ended in one update: one context, one snapshot
    endTurn: (context: TaskContext, event: TaskMachineEvent, params: { state: TaskState }): ContextUpdate => {
      const ctx = withEvents(context, event);
      return {
        task: withStatus(withCost(ctx.task, endOf(event)), { state: params.state, message: ctx.pendingMessage, now: now() }),
        pendingFinal: undefined,
        pendingMessage: undefined,
      };
    },
    failTurn: (context: TaskContext, event: TaskMachineEvent): ContextUpdate => {
      const ctx = withEvents(context, event);
      const end = endOf(event);
      const error = end && !end.ok ? end.error : { reason: 'agent_error', message: 'The agent failed' };
      return { task: withStatus(withCost(ctx.task, end), { state: 'failed', failure: error, now: now() }), pendingFinal: undefined };
    },
    // a cancel's request id stamps the canceled status it causes
    stampRequest: (context: TaskContext, event: TaskMachineEvent): ContextUpdate =>
      event.type === 'CANCEL' && event.requestId !== undefined
        ? { task: { ...context.task, metadata: { ...context.task.metadata, request_id: event.requestId } } }
        : {},
    setStatus: (context: TaskContext, _event: TaskMachineEvent, params: { state: TaskState }): ContextUpdate => ({
      task: withStatus(context.task, { state: params.state, now: now() }),
      pendingFinal: undefined,
    }),
    // a follow-up joins the history; its request id stamps the working status it causes
    takeMessage: (context: TaskContext, event: TaskMachineEvent): ContextUpdate => {
      if (event.type !== 'USER_MESSAGE') return {};
      return {
        task: withStatus(
          {
            ...context.task,
            history: [...context.task.history, event.message],
            ...(event.requestId !== undefined && { metadata: { ...context.task.metadata, request_id: event.requestId } }),
          },
          { state: 'working', now: now() },
        ),
        pendingFinal: undefined,
      };
    },
  };
  // the run is an effect of being in `working`, not a child actor: a child costs an actor, its registration and
  // its stop per turn, a sizeable share of a short task's CPU
  const effects = {
    startRun: (context: TaskContext, self: TaskActorRef) => deps.turns.start(self, context.task),
    endRun: (_context: TaskContext, self: TaskActorRef) => deps.turns.end(self),
  };
  const guards = {
    runFailed: (_context: TaskContext, event: TaskMachineEvent) => endOf(event)?.ok === false,
    endsAskingInput: (context: TaskContext, event: TaskMachineEvent) => endOf(event)?.ok === true && closingState(context, event) === 'input-required',
    endsReportingFailure: (context: TaskContext, event: TaskMachineEvent) => endOf(event)?.ok === true && closingState(context, event) === 'failed',
    ends: (_context: TaskContext, event: TaskMachineEvent) => endOf(event)?.ok === true,
  };
  return { updates, effects, guards };
}

export type TaskMachineLogic = ReturnType<typeof taskMachineLogic>;

/** The task machine: its states and transitions are the definition; its actions and guards are `taskMachineLogic`'s. */
export function createTaskMachine(deps: TaskMachineDeps, logic: TaskMachineLogic = taskMachineLogic(deps)) {
  const { updates: u, effects: fx, guards: g } = logic;
  const to = (state: TaskState) => ({ type: 'setStatus' as const, params: { state } });

  return setup({
    types: {} as { context: TaskContext; events: TaskMachineEvent; input: { task: Task } },
    actions: {
      startRun: ({ context, self }) => fx.startRun(context, self),
      endRun: ({ context, self }) => fx.endRun(context, self),
      applyEvents: assign(({ context, event }) => u.applyEvents(context, event)),
      endTurn: assign(({ context, event }, params: { state: TaskState }) => u.endTurn(context, event, params)),
      failTurn: assign(({ context, event }) => u.failTurn(context, event)),
      stampRequest: assign(({ context, event }) => u.stampRequest(context, event)),
      setStatus: assign(({ context, event }, params: { state: TaskState }) => u.setStatus(context, event, params)),
      takeMessage: assign(({ context, event }) => u.takeMessage(context, event)),
    },
    guards: {
      runFailed: ({ context, event }) => g.runFailed(context, event),
      endsAskingInput: ({ context, event }) => g.endsAskingInput(context, event),
      endsReportingFailure: ({ context, event }) => g.endsReportingFailure(context, event),
      ends: ({ context, event }) => g.ends(context, event),
    },
  }).createMachine({
    id: 'task',
    context: ({ input }) => ({ task: input.task, pendingFinal: undefined }),
    initial: 'submitted',
    states: {
      submitted: {
        on: {
          START: { target: 'working', actions: to('working') },
          CANCEL: { target: 'canceled', actions: ['stampRequest', to('canceled')] },
        },
      },
      working: {
        entry: 'startRun',
        exit: 'endRun',
        on: {
          AGENT_EVENTS: [
            { guard: 'runFailed', target: 'failed', actions: 'failTurn' },
            { guard: 'endsAskingInput', target: 'input-required', actions: { type: 'endTurn', params: { state: 'input-required' } } },
            { guard: 'endsReportingFailure', target: 'failed', actions: { type: 'endTurn', params: { state: 'failed' } } },
            { guard: 'ends', target: 'completed', actions: { type: 'endTurn', params: { state: 'completed' } } },
            { actions: 'applyEvents' },
          ],
          CANCEL: { target: 'canceled', actions: ['stampRequest', to('canceled')] },
        },
      },
      'input-required': {
        on: {
          USER_MESSAGE: { target: 'working', actions: 'takeMessage' },
          CANCEL: { target: 'canceled', actions: ['stampRequest', to('canceled')] },
        },
      },
      completed: { type: 'final' },
      canceled: { type: 'final' },
      failed: { type: 'final' },
    },
  });
}

export type TaskMachine = ReturnType<typeof createTaskMachine>;
