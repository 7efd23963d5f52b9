// The task state machine (XState v5): the only authority on which state may follow which. Effects are injected.
import { assign, fromCallback, setup, type ActorRefFrom } from 'xstate';
import type { AgentEvent, AgentRunResult } from '../protocol/agent-events.js';
import type { Message, Task, TaskState } from '../protocol/model.js';
import type { Clock } from '../runtime/clock.js';
import { applyAgentEvent, withCost, withStatus } from './task-updates.js';

export type TaskMachineEvent =
  | { type: 'START' }
  | { type: 'AGENT_EVENT'; event: AgentEvent }
  | { type: 'AGENT_DONE'; workerMs: number }
  | { type: 'AGENT_FAILED'; error: { reason: string; message: string }; workerMs: number }
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

export function createTaskMachine(deps: TaskMachineDeps) {
  const now = () => deps.clock.now();
  const to = (state: TaskState) => ({ type: 'setStatus' as const, params: { state } });

  return setup({
    types: {} as { context: TaskContext; events: TaskMachineEvent; input: { task: Task } },
    actors: {
      runAgent: fromCallback<TaskMachineEvent, { task: Task }>(({ input, sendBack }) => {
        const ac = new AbortController();
        const started = performance.now();
        let finished = false;
        void deps
          .runTurn({ task: input.task, message: lastUserMessage(input.task), signal: ac.signal, onEvent: (event) => sendBack({ type: 'AGENT_EVENT', event }) })
          .then((r) => {
            finished = true;
            const workerMs = Math.round((performance.now() - started) * 1000) / 1000;
            sendBack(r.ok ? { type: 'AGENT_DONE', workerMs } : { type: 'AGENT_FAILED', error: r.error, workerMs });
          });
        // leaving `working` before the run ended (cancel) aborts it; after a normal end there is nothing
        // to abort (and abort() would build a DOMException per task for nothing)
        return () => {
          if (!finished) ac.abort();
        };
      }),
    },
    actions: {
      endTurn: assign(({ context, event }, params: { state: TaskState }) => ({
        task: withStatus(withCost(context.task, event), { state: params.state, message: context.pendingMessage, now: now() }),
        pendingFinal: undefined,
        pendingMessage: undefined,
      })),
      setStatus: assign(({ context }, params: { state: TaskState }) => ({
        task: withStatus(context.task, { state: params.state, now: now() }),
        pendingFinal: undefined,
      })),
    },
    guards: {
      askedForInput: ({ context }) => context.pendingFinal === 'input-required',
      reportedFailure: ({ context }) => context.pendingFinal === 'failed',
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
        invoke: { src: 'runAgent', input: ({ context }) => ({ task: context.task }) },
        on: {
          AGENT_EVENT: {
            actions: assign(({ context, event }) => applyAgentEvent(context, event.event, now())),
          },
          AGENT_DONE: [
            { guard: 'askedForInput', target: 'input-required', actions: { type: 'endTurn', params: { state: 'input-required' } } },
            { guard: 'reportedFailure', target: 'failed', actions: { type: 'endTurn', params: { state: 'failed' } } },
            { target: 'completed', actions: { type: 'endTurn', params: { state: 'completed' } } },
          ],
          AGENT_FAILED: {
            target: 'failed',
            actions: assign(({ context, event }) => ({
              task: withStatus(withCost(context.task, event), { state: 'failed', failure: event.error, now: now() }),
              pendingFinal: undefined,
            })),
          },
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
