// Owns the live task actors: starts them, persists every transition, restores settled tasks on demand, recovers after a crash.
import { createActor } from 'xstate';
import { RpcError } from '../protocol/errors.js';
import { SETTLED_STATES, TERMINAL_STATES, type Message, type Task } from '../protocol/model.js';
import type { Clock } from '../runtime/clock.js';
import type { TaskStore } from '../runtime/store/types.js';
import { createTaskMachine, type RunAgentTurn, type TaskActor, type TaskMachineEvent } from './task-machine.js';
import { withStatus } from './task-updates.js';

export type TaskListener = (task: Task) => void;

interface Live {
  actor: TaskActor;
  /** the chain of store writes, in transition order */
  persisted: Promise<void>;
  settled: Promise<Task>;
}

export interface TaskSupervisorOptions {
  store: TaskStore;
  clock: Clock;
  runTurn: RunAgentTurn;
  /** this process's name; start-up recovery fails only the running tasks this instance owned */
  instanceId: string;
  /** called after each persisted change of a task (streaming and push hang here) */
  onPersisted?: TaskListener;
}

const keyOf = (workspaceId: string, id: string) => `${workspaceId}\u0000${id}`;

export class TaskSupervisor {
  private readonly live = new Map<string, Live>();
  private readonly machine;

  constructor(private readonly o: TaskSupervisorOptions) {
    this.machine = createTaskMachine({ clock: o.clock, runTurn: o.runTurn });
  }

  /** Latest view of a task: the live actor's if it runs here, else the store's. */
  async get(workspaceId: string, id: string): Promise<Task | undefined> {
    const l = this.live.get(keyOf(workspaceId, id));
    if (l) return l.actor.getSnapshot().context.task;
    return this.o.store.get(workspaceId, id);
  }

  /** Persists a new task in `submitted`, then starts its first turn. */
  async start(task: Task): Promise<Live> {
    const l = this.spawn(task, 'submitted');
    await l.persisted;
    l.actor.send({ type: 'START' });
    return l;
  }

  /** Sends a follow-up message to a task waiting for input. */
  async followUp(task: Task, message: Message): Promise<Live> {
    return this.deliver(task, { type: 'USER_MESSAGE', message }, () => {
      if (TERMINAL_STATES.has(task.status.state)) {
        return new RpcError('INVALID_PARAMS', { message: `Task ${task.id} is ${task.status.state}; a terminal task takes no more messages`, data: { path: 'params.message', state: task.status.state } });
      }
      return new RpcError('INVALID_PARAMS', { message: `Task ${task.id} is ${task.status.state}; it takes a message only in input-required`, data: { path: 'params.message', state: task.status.state } });
    });
  }

  async cancel(task: Task): Promise<Task> {
    const l = await this.deliver(task, { type: 'CANCEL' }, () =>
      new RpcError('TASK_NOT_CANCELABLE', { message: `Task ${task.id} is ${task.status.state} and cannot be canceled`, data: { state: task.status.state } }));
    await l.persisted;
    return l.actor.getSnapshot().context.task;
  }

  /** Resolves when the task reaches a terminal state or input-required, with its state persisted. */
  async settled(l: Live): Promise<Task> {
    const t = await l.settled;
    await l.persisted;
    return t;
  }

  current(l: Live): Task {
    return l.actor.getSnapshot().context.task;
  }

  /** Start-up: a task this instance left submitted or working died with the previous process. */
  async recover(): Promise<number> {
    const stuck = await this.o.store.listByState(['submitted', 'working']);
    let n = 0;
    for (const t of stuck) {
      if (t.owner !== undefined && t.owner !== this.o.instanceId) continue;
      const failed = withStatus(t, {
        state: 'failed',
        now: this.o.clock.now(),
        failure: { reason: 'gateway_restart', message: 'The gateway stopped while this task was running; it did not finish.' },
      });
      await this.o.store.put(failed);
      n++;
    }
    return n;
  }

  /** Stops every live actor (their runs are aborted); stored state stays as last persisted. */
  async stop(): Promise<void> {
    const all = [...this.live.values()];
    this.live.clear();
    for (const l of all) l.actor.stop();
    await Promise.allSettled(all.map((l) => l.persisted));
  }

  private async deliver(task: Task, event: TaskMachineEvent, refused: () => RpcError): Promise<Live> {
    const k = keyOf(task.workspaceId, task.id);
    let l = this.live.get(k);
    if (!l) {
      if (!SETTLED_STATES.has(task.status.state)) throw refused();
      if (TERMINAL_STATES.has(task.status.state)) throw refused();
      l = this.live.get(k) ?? this.spawn(task, task.status.state);
    }
    if (!l.actor.getSnapshot().can(event)) throw refused();
    l.settled = this.whenSettled(l.actor);
    l.actor.send(event);
    return l;
  }

  private spawn(task: Task, state: Task['status']['state']): Live {
    const k = keyOf(task.workspaceId, task.id);
    const owned: Task = { ...task, owner: this.o.instanceId };
    const snapshot = this.machine.resolveState({ value: state, context: { task: owned, pendingFinal: undefined } });
    const actor = createActor(this.machine, { snapshot, input: { task: owned } });
    const l: Live = { actor, persisted: Promise.resolve(), settled: Promise.resolve(owned) };
    let last: Task | undefined;
    actor.subscribe({
      next: (snap) => {
        const t = snap.context.task;
        if (t === last) return;
        last = t;
        l.persisted = l.persisted.then(() => this.o.store.put(t)).then(() => this.o.onPersisted?.(t));
        if (SETTLED_STATES.has(t.status.state) && this.live.get(k) === l) {
          // a settled task needs no actor in memory: it is restored from the store if it moves again
          void l.persisted.then(() => {
            if (this.live.get(k) === l && SETTLED_STATES.has(l.actor.getSnapshot().context.task.status.state)) {
              this.live.delete(k);
              l.actor.stop();
            }
          });
        }
      },
      error: () => undefined,
    });
    this.live.set(k, l);
    actor.start();
    l.settled = this.whenSettled(actor);
    return l;
  }

  private whenSettled(actor: TaskActor): Promise<Task> {
    return new Promise((resolve) => {
      const sub = actor.subscribe((snap) => {
        const t = snap.context.task;
        if (SETTLED_STATES.has(t.status.state)) {
          sub.unsubscribe();
          resolve(t);
        }
      });
    });
  }
}
