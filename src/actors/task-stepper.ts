// Runs one live task by the task machine's own definition (task-machine.ts), without an XState actor per task: the
// machine's states and transitions are compiled once into a table, and each event is stepped through it with the
// machine's own actions and guards. An actor per task was the dearest part of a send (docs/perf.md).
import type { Task, TaskState } from '../protocol/model.js';
import {
  createTaskMachine,
  taskMachineLogic,
  type TaskActorRef,
  type TaskContext,
  type TaskMachine,
  type TaskMachineDeps,
  type TaskMachineEvent,
  type TaskMachineLogic as Logic,
} from './task-machine.js';

type UpdateName = keyof Logic['updates'];
type EffectName = keyof Logic['effects'];
type GuardName = keyof Logic['guards'];

/** One action of a transition, an entry or an exit: a context update (XState's `assign`) or an effect. */
type Action = { update: UpdateName; params: { state: TaskState } | undefined } | { effect: EffectName };

interface Transition {
  guard: GuardName | undefined;
  target: TaskState | undefined;
  actions: Action[];
}

interface StateRow {
  final: boolean;
  entry: Action[];
  exit: Action[];
  on: Map<TaskMachineEvent['type'], Transition[]>;
}

/** The machine compiled: a row per state. */
export type TaskTable = ReadonlyMap<TaskState, StateRow>;

const asList = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/**
 * Compiles the machine's definition into a table. The machine uses a small part of XState (flat states, named guards,
 * named actions with params, entry and exit); anything else is refused here, at start-up, rather than run wrongly.
 */
export function compileTaskTable(machine: TaskMachine, logic: Logic): TaskTable {
  const config = machine.config as unknown as {
    states: Record<string, { type?: string; entry?: unknown; exit?: unknown; on?: Record<string, unknown> }>;
  };
  const action = (ref: unknown, where: string): Action => {
    const name = typeof ref === 'string' ? ref : typeof ref === 'object' && ref !== null && 'type' in ref ? String(ref.type) : undefined;
    const params = typeof ref === 'object' && ref !== null && 'params' in ref ? (ref.params as { state: TaskState }) : undefined;
    if (name !== undefined && name in logic.updates) return { update: name as UpdateName, params };
    if (name !== undefined && name in logic.effects && params === undefined) return { effect: name as EffectName };
    throw new Error(`task machine: ${where}: an action the stepper cannot run (${JSON.stringify(ref)})`);
  };
  const table = new Map<TaskState, StateRow>();
  for (const [state, node] of Object.entries(config.states)) {
    const on = new Map<TaskMachineEvent['type'], Transition[]>();
    for (const [event, spec] of Object.entries(node.on ?? {})) {
      const where = `${state} on ${event}`;
      on.set(
        event as TaskMachineEvent['type'],
        asList(spec).map((tr) => {
          const t = tr as { guard?: unknown; target?: unknown; actions?: unknown };
          const extra = Object.keys(t).filter((k) => k !== 'guard' && k !== 'target' && k !== 'actions');
          if (extra.length > 0 || (t.guard !== undefined && !(typeof t.guard === 'string' && t.guard in logic.guards))) {
            throw new Error(`task machine: ${where}: a transition the stepper cannot run (${JSON.stringify(tr)})`);
          }
          if (t.target !== undefined && !(typeof t.target === 'string' && t.target in config.states)) {
            throw new Error(`task machine: ${where}: a target the stepper cannot resolve (${String(t.target)})`);
          }
          return {
            guard: t.guard as GuardName | undefined,
            target: t.target as TaskState | undefined,
            actions: asList(t.actions).map((a) => action(a, where)),
          };
        }),
      );
    }
    table.set(state as TaskState, {
      final: node.type === 'final',
      entry: asList(node.entry).map((a) => action(a, `${state} entry`)),
      exit: asList(node.exit).map((a) => action(a, `${state} exit`)),
      on,
    });
  }
  return table;
}

export interface TaskStepperSnapshot {
  value: TaskState;
  context: TaskContext;
  /** whether the machine takes `event` now (a transition whose guard passes), as XState's `snapshot.can` */
  can(event: TaskMachineEvent): boolean;
}

/** How the stepper's owner observes it: every step's snapshot, and an action that threw (the task then stops). */
export interface TaskStepperObserver {
  next(snapshot: TaskStepperSnapshot): void;
  error?(err: unknown): void;
}

/**
 * One task's machine. Behaves as the XState actor did where the supervisor and the run driver look: the snapshot is
 * emitted on start and after each event the machine takes; exit actions, then the transition's, then entry actions
 * run in that order; an event sent while one is being stepped waits its turn; a final state or `stop()` ends it
 * (no exit actions); an action that throws stops it and is reported to the observer's `error`.
 */
export class TaskStepper implements TaskActorRef {
  private state: TaskState;
  private context: TaskContext;
  private snapshot: TaskStepperSnapshot;
  private readonly observers: TaskStepperObserver[] = [];
  private ended = false;
  private stepping = false;
  private readonly queue: TaskMachineEvent[] = [];

  constructor(
    private readonly o: { table: TaskTable; logic: Logic },
    start: { task: Task; state: TaskState },
  ) {
    this.state = start.state;
    this.context = { task: start.task, pendingFinal: undefined };
    this.snapshot = this.snap();
  }

  subscribe(observer: TaskStepperObserver | TaskStepperObserver['next']): void {
    this.observers.push(typeof observer === 'function' ? { next: observer } : observer);
  }

  getSnapshot(): TaskStepperSnapshot {
    return this.snapshot;
  }

  start(): void {
    this.emit(this.snapshot);
  }

  stop(): void {
    this.ended = true;
    this.queue.length = 0;
  }

  send(event: TaskMachineEvent): void {
    if (this.ended) return;
    this.queue.push(event);
    if (this.stepping) return;
    this.stepping = true;
    try {
      for (let e = this.queue.shift(); e !== undefined && !this.ended; e = this.queue.shift()) this.step(e);
    } finally {
      this.stepping = false;
    }
  }

  private snap(): TaskStepperSnapshot {
    const value = this.state;
    const context = this.context;
    return { value, context, can: (event) => this.pick(value, context, event) !== undefined };
  }

  /** The transition the machine takes for `event` in `state`: the first whose guard passes, as XState picks. */
  private pick(state: TaskState, context: TaskContext, event: TaskMachineEvent): Transition | undefined {
    const row = this.o.table.get(state);
    if (!row || row.final) return undefined;
    const candidates = row.on.get(event.type);
    if (!candidates) return undefined;
    for (const t of candidates) {
      if (t.guard !== undefined && !this.o.logic.guards[t.guard](context, event)) continue;
      return t.target !== undefined || t.actions.length > 0 ? t : undefined;
    }
    return undefined;
  }

  private step(event: TaskMachineEvent): void {
    const t = this.pick(this.state, this.context, event);
    if (!t) return;
    try {
      const from = this.o.table.get(this.state)!;
      // a transition to its own state leaves and re-enters nothing (XState v5's default, `reenter: false`)
      const to = t.target === undefined || t.target === this.state ? undefined : this.o.table.get(t.target)!;
      if (to) this.run(from.exit, event);
      this.run(t.actions, event);
      if (to) {
        this.state = t.target!;
        this.run(to.entry, event);
      }
    } catch (err) {
      this.ended = true;
      for (const o of this.observers) o.error?.(err);
      return;
    }
    this.snapshot = this.snap();
    if (this.o.table.get(this.state)!.final) this.ended = true;
    this.emit(this.snapshot);
  }

  private emit(snapshot: TaskStepperSnapshot): void {
    for (const o of this.observers) o.next(snapshot);
  }

  private run(actions: readonly Action[], event: TaskMachineEvent): void {
    for (const a of actions) {
      if ('effect' in a) this.o.logic.effects[a.effect](this.context, this);
      else this.context = { ...this.context, ...this.o.logic.updates[a.update](this.context, event, a.params as { state: TaskState }) };
    }
  }
}

/** The stepper's factory: the table compiled once per set of deps (one per supervisor). */
export function taskSteppers(deps: TaskMachineDeps) {
  const logic = taskMachineLogic(deps);
  const table = compileTaskTable(createTaskMachine(deps, logic), logic);
  return {
    create: (start: { task: Task; state: TaskState }) => new TaskStepper({ table, logic }, start),
  };
}
