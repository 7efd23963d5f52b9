// Owns the live tasks (each a stepper of the task machine): starts them, persists every transition, restores settled
// tasks on demand, recovers after a crash.
import { RpcError, stateMessages } from '../protocol/errors.js';
import { SETTLED_STATES, TERMINAL_STATES, type Message, type Task } from '../protocol/model.js';
import type { Clock, Timers } from '../runtime/clock.js';
import { isStoreUnavailable } from '../runtime/store/errors.js';
import { taskKey } from '../runtime/store/types.js';
import { TaskIdTakenError, TaskSettledElsewhereError, TaskWriter, type TaskWriteQueue, type TaskWriterOptions } from './task-writer.js';
import type { TaskMachineEvent } from './task-machine.js';
import { taskSteppers, type TaskStepper } from './task-stepper.js';
import { RunDriver, type AgentPort } from './run-driver.js';
import type { TaskHandle } from './task-handle.js';
import { withStatus } from './task-updates.js';
import { OrphanSettler } from './orphan-settler.js';
import { checkTaskRoom } from './output-size.js';
import { CrossInstance } from './cross-instance.js';
import { copyWith } from '../protocol/copy-with.js';

interface Live {
  actor: TaskStepper;
  /** the last record handed to the store, with its seq */
  view: Task;
  writes: TaskWriteQueue;
  settled: Promise<void>;
  /** resolves `settled`: called by the actor's one observer when the task reaches a settled state */
  onSettled: (() => void) | undefined;
}

export interface TaskSupervisorOptions extends TaskWriterOptions {
  clock: Clock;
  /** runs the agent turns (the agent registry) */
  agents: AgentPort;
  /**
   * How long a new task's first write may wait for the task to settle, when its caller waits for the end anyway
   * (`start(task, { holdFirstWrite: true })`): a task that settles within it is stored once, not twice.
   */
  firstWriteHoldMs?: number;
  /** the content (artifacts, messages of both sides) one task may hold (`tasks.maxTaskBytes`); none when absent */
  maxTaskBytes?: number;
  /** this process's name; start-up recovery fails only the running tasks this instance owned */
  instanceId: string;
  timers: Timers;
  /** how long a cancel waits for the instance that runs the task */
  cancelTimeoutMs: number;
  /** whether another instance is presumed dead (it stopped beating): its running tasks are then canceled here */
  ownerGone?: (owner: string) => Promise<boolean>;
  /** a task change the store refused to write (logged by the caller; the call that caused it fails) */
  onWriteFailure?: (e: unknown, task: Pick<Task, 'workspaceId' | 'id'>) => void;
}

/** The error a call gets when the task change it caused could not be stored: nothing of it was kept. */
const writeFailed = (task: Pick<Task, 'id'>) =>
  new RpcError('INTERNAL_ERROR', { message: `Task ${task.id} could not be stored; this call's change was not kept`, data: { detail: 'store_write_failed' } });

const keyOf = taskKey;

export class TaskSupervisor {
  private readonly live = new Map<string, Live>();
  private readonly steppers;
  private readonly writer: TaskWriter;
  private readonly turns: RunDriver;
  private readonly orphans: OrphanSettler;
  /** the paths across instances: cancels of tasks running elsewhere, and changes another instance made first */
  private readonly elsewhere: CrossInstance;

  constructor(private readonly o: TaskSupervisorOptions) {
    this.turns = new RunDriver(o.agents, { maxTaskBytes: o.maxTaskBytes });
    this.steppers = taskSteppers({ clock: o.clock, turns: this.turns });
    this.writer = new TaskWriter(o);
    this.orphans = new OrphanSettler({
      store: o.store,
      writer: this.writer,
      clock: o.clock,
      timers: o.timers,
      instanceId: o.instanceId,
      isLive: (workspaceId, id) => this.live.has(keyOf(workspaceId, id)),
      ...(o.onWriteFailure && { onWriteFailure: o.onWriteFailure }),
    });
    this.elsewhere = new CrossInstance({
      store: o.store,
      bus: o.bus,
      writer: this.writer,
      clock: o.clock,
      timers: o.timers,
      instanceId: o.instanceId,
      cancelTimeoutMs: o.cancelTimeoutMs,
      ...(o.ownerGone && { ownerGone: o.ownerGone }),
      liveView: (k) => this.live.get(k)?.view,
      cancel: (task, c) => this.cancel(task, c),
    });
  }

  /** How many tasks run here now, by state (read on a metrics scrape, not kept up to date on the hot path). */
  liveStates(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const l of this.live.values()) out[l.view.status.state] = (out[l.view.status.state] ?? 0) + 1;
    return out;
  }

  /** Latest view of a task: the live actor's if it runs here, else the store's. */
  async get(workspaceId: string, id: string): Promise<Task | undefined> {
    // a task is the workspace's only if it says so: the store key joins workspace and id with '/', so a workspace id
    // with a '/' (refused now, but a store may hold one) would otherwise meet another workspace's id ('a/b' + 'c' is 'a' + 'b/c')
    const l = this.live.get(keyOf(workspaceId, id));
    const t = l ? l.view : await this.o.store.get(workspaceId, id);
    return t?.workspaceId === workspaceId ? t : undefined;
  }

  /**
   * Starts a new task: `submitted`, then at once its first turn (both stored in one group commit, which is an
   * insert-if-absent). Resolves once that commit is stored; a task already under the id (live here, or stored by
   * another send first) rejects with TaskIdTakenError and nothing of this one is kept.
   *
   * `holdFirstWrite` (a caller that waits for the end, and an id no one else can hold: server-chosen): the first
   * write waits up to `firstWriteHoldMs` for the task to settle, and resolves at once. A task that settles within
   * it is written once, with all its events; nothing of it was acknowledged before that write is stored.
   * `pushConfig`: the caller stored a push config for it (a send's inline one), so its writes read configs at once
   * rather than find it through the store's refusal.
   * `idMadeHere`: the id is a random one this instance made for the task, which no one else can name before the task
   * is stored: so no push config is held under it but the caller's own (`pushConfig`), and its create need not look.
   */
  async start(task: Task, o: { holdFirstWrite?: boolean; pushConfig?: boolean; idMadeHere?: boolean } = {}): Promise<TaskHandle> {
    if (this.live.has(keyOf(task.workspaceId, task.id))) throw new TaskIdTakenError(task.id);
    const holdMs = o.holdFirstWrite ? (this.o.firstWriteHoldMs ?? 0) : 0;
    const l = this.spawn(task, 'submitted', holdMs, { ...(o.pushConfig && { pushConfigs: true }), ...(o.idMadeHere && { idMadeHere: true }) });
    l.actor.send({ type: 'START' });
    if (holdMs > 0) return this.handle(l);
    await l.writes.persisted;
    if (l.writes.failure instanceof TaskIdTakenError) throw l.writes.failure;
    return this.handle(l);
  }

  /**
   * Refuses (-32602) a caller's message that would take its task past `tasks.maxTaskBytes`: `adding` a follow-up to
   * `task`, or none for a new task (which holds its first message). A send checks before it changes anything.
   */
  checkRoom(task: Task, adding?: Message): void {
    checkTaskRoom({ task, ...(adding && { adding }), maxBytes: this.o.maxTaskBytes });
  }

  /** Sends a follow-up message to a task waiting for input (judged against the task as it stands now). */
  async followUp(task: Task, message: Message, o: { requestId?: string } = {}): Promise<TaskHandle> {
    const event: TaskMachineEvent = { type: 'USER_MESSAGE', message, ...(o.requestId !== undefined && { requestId: o.requestId }) };
    // a terminal task's refusal is 1.0's UnsupportedOperationError (0.x callers read it as invalid params)
    const refused = (t: Task) =>
      TERMINAL_STATES.has(t.status.state)
        ? new RpcError('UNSUPPORTED_OPERATION', {
            ...stateMessages((name) => `Task ${t.id} is ${name(t.status.state)}; a terminal task takes no more messages`),
            data: { path: 'params.message', state: t.status.state },
          })
        : new RpcError('INVALID_PARAMS', {
            ...stateMessages((name) => `Task ${t.id} is ${name(t.status.state)}; it takes a message only in ${name('input-required')}`),
            data: { path: 'params.message', state: t.status.state },
          });
    for (let tries = 1; ; tries++) {
      const l = await this.deliver(task, event, (current) => this.checkRoom(current, message), refused);
      if (l !== 'moved') return this.handle(l);
      task = await this.elsewhere.movedTask({ task, tries });
    }
  }

  /** `requestId`: the cancel call's, stamped on the canceled status (also when another instance runs the task) */
  async cancel(task: Task, o: { requestId?: string } = {}): Promise<Task> {
    const refused = (t: Task) =>
      new RpcError('TASK_NOT_CANCELABLE', {
        ...stateMessages((name) => `Task ${t.id} is ${name(t.status.state)} and cannot be canceled`),
        data: { state: t.status.state },
      });
    for (let tries = 1; ; tries++) {
      const running = task.status.state === 'submitted' || task.status.state === 'working';
      if (running && !this.live.has(keyOf(task.workspaceId, task.id))) return this.elsewhere.cancelElsewhere({ task, requestId: o.requestId });
      const l = await this.deliver(task, { type: 'CANCEL', ...(o.requestId !== undefined && { requestId: o.requestId }) }, undefined, refused);
      if (l !== 'moved') return this.persistedView(l);
      task = await this.elsewhere.movedTask({ task, tries });
    }
  }

  private handle(l: Live): TaskHandle {
    return {
      id: l.view.id,
      settled: async () => {
        await l.settled;
        return this.persistedView(l);
      },
      current: () => this.persistedView(l),
    };
  }

  private async persistedView(l: Live): Promise<Task> {
    await l.writes.persisted;
    const failure = l.writes.failure;
    if (failure === undefined) return l.view;
    // finished by another writer meanwhile (an instance that presumed this one dead): the stored end stands
    if (failure instanceof TaskSettledElsewhereError) {
      const stored = await this.o.store.get(l.view.workspaceId, l.view.id);
      if (stored) return stored;
    }
    throw isStoreUnavailable(failure)
      ? new RpcError('STORE_UNAVAILABLE', {
          message: `Task ${l.view.id} could not be stored: the store cannot be reached; retry shortly`,
          data: { detail: 'store_unavailable' },
          headers: { 'Retry-After': '1' },
        })
      : writeFailed(l.view);
  }

  /** Start-up: a task this instance left submitted or working died with the previous process. */
  async recover(): Promise<number> {
    return this.failStuck({
      mine: true,
      failure: { reason: 'gateway_restart', message: 'The gateway stopped while this task was running; it did not finish.' },
    });
  }

  /**
   * Scale-out: a task left submitted or working by another instance that is presumed dead (it stopped beating)
   * would otherwise stay `working` for good. Two instances may both fail one such task; the outcome is the same.
   */
  async reclaim(isDead: (owner: string) => Promise<boolean>): Promise<number> {
    return this.failStuck({
      mine: false,
      isDead,
      failure: { reason: 'instance_lost', message: 'The gateway instance running this task stopped answering; the task did not finish.' },
    });
  }

  private async failStuck(o: { mine: boolean; isDead?: (owner: string) => Promise<boolean>; failure: { reason: string; message: string } }): Promise<number> {
    const stuck = await this.o.store.listByState(['submitted', 'working']);
    let n = 0;
    for (const t of stuck) {
      const ours = t.owner === undefined || t.owner === this.o.instanceId;
      if (ours !== o.mine || this.live.has(keyOf(t.workspaceId, t.id))) continue;
      if (!ours && !(await o.isDead!(t.owner!))) continue;
      try {
        await this.writer.record(t, withStatus(t, { state: 'failed', now: this.o.clock.now(), failure: o.failure }));
        n++;
      } catch (e) {
        // its owner (or another instance) finished it meanwhile: the store kept that end
        if (!(e instanceof TaskSettledElsewhereError)) throw e;
      }
    }
    return n;
  }

  /** Stops every live actor (their runs are aborted); stored state stays as last persisted. */
  async stop(): Promise<void> {
    this.orphans.stop();
    const all = [...this.live.values()];
    this.live.clear();
    for (const l of all) {
      this.stopActor(l.actor);
      // a held first write goes now: a drain waits for no timer (the task is then recovered as any running one)
      l.writes.release();
    }
    await Promise.allSettled(all.map((l) => l.writes.persisted));
  }

  /**
   * `admit`: a further check of the task as it stands, once the machine would take the event (it throws to refuse).
   * A task restored from the store here may have been restored by another instance at the same moment: the change is
   * written only over the record it was restored from, and 'moved' says another instance's change came first (this
   * one was not kept, its turn is stopped); the caller judges its change again against the stored task.
   */
  private async deliver(
    task: Task,
    event: TaskMachineEvent,
    admit: ((current: Task) => void) | undefined,
    refused: (current: Task) => RpcError,
  ): Promise<Live | 'moved'> {
    const k = keyOf(task.workspaceId, task.id);
    const live = this.live.get(k);
    if (live) {
      if (!live.actor.getSnapshot().can(event)) throw refused(live.view);
      admit?.(live.view);
      this.waitSettled(live);
      live.actor.send(event);
      return live;
    }
    // only a task waiting for input is restored from the store; the machine then judges the event
    if (task.status.state !== 'input-required') throw refused(task);
    // judged before the restore: a refused message leaves no actor behind
    admit?.(task);
    const l = this.spawn(task, task.status.state, 0, { expectSeq: task.seq ?? 0 });
    if (!l.actor.getSnapshot().can(event)) throw refused(task);
    this.waitSettled(l);
    l.actor.send(event);
    // the change's first write is the check: wait for it before the caller is told anything
    await l.writes.persisted;
    if (l.writes.failure instanceof TaskSettledElsewhereError) return 'moved';
    return l;
  }

  /** Stopping an actor runs no exit actions, so its run (if any) is ended here. */
  private stopActor(actor: TaskStepper): void {
    actor.stop();
    this.turns.end(actor);
  }

  private spawn(
    task: Task,
    state: Task['status']['state'],
    holdFirstWriteMs = 0,
    o: { expectSeq?: number; pushConfigs?: boolean; idMadeHere?: boolean } = {},
  ): Live {
    const k = keyOf(task.workspaceId, task.id);
    const owned: Task = copyWith(task, { owner: this.o.instanceId });
    // a new task's first snapshot is itself an event (submitted); a restored one starts from its record
    const fresh = state === 'submitted' && (task.seq ?? 0) === 0;
    const actor = this.steppers.create({ task: owned, state: fresh ? 'submitted' : state });
    const l: Live = {
      actor,
      view: owned,
      writes: this.writer.queue({
        fresh,
        ...(o.expectSeq !== undefined && { expectSeq: o.expectSeq }),
        ...(o.pushConfigs && { pushConfigs: true }),
        ...(o.idMadeHere && { idMadeHere: true }),
        hold: { ms: holdFirstWriteMs, timers: this.o.timers },
        onFailure: (e) => this.dropFailed(k, l, e),
      }),
      settled: Promise.resolve(),
      onSettled: undefined,
    };
    let last: Task | undefined = fresh ? undefined : owned;
    let prevView: Task | undefined = fresh ? undefined : owned;
    actor.subscribe({
      next: (snap) => {
        const t = snap.context.task;
        if (t === last) return;
        last = t;
        const from = prevView;
        const { record, events } = this.writer.sequence(from, t);
        prevView = record;
        l.view = record;
        l.writes.enqueue(record, events);
        if (!SETTLED_STATES.has(t.status.state)) return;
        l.writes.release();
        const settled = l.onSettled;
        l.onSettled = undefined;
        settled?.();
        if (this.live.get(k) === l) {
          // a settled task needs no actor in memory: it is restored from the store if it moves again
          void l.writes.persisted.then(() => {
            if (this.live.get(k) === l && SETTLED_STATES.has(l.actor.getSnapshot().context.task.status.state)) {
              this.live.delete(k);
              this.stopActor(l.actor);
            }
          });
        }
      },
      error: () => undefined,
    });
    this.live.set(k, l);
    actor.start();
    this.waitSettled(l);
    return l;
  }

  /**
   * A change of this task could not be stored: its actor goes (the store keeps the last change it accepted, and the
   * task is restored from there if it moves again), and whoever waits on it is told at once.
   */
  private dropFailed(k: string, l: Live, e: unknown): void {
    const refused = !(e instanceof TaskIdTakenError || e instanceof TaskSettledElsewhereError);
    if (refused) this.o.onWriteFailure?.(e, l.view);
    if (this.live.get(k) === l) this.live.delete(k);
    this.stopActor(l.actor);
    const settled = l.onSettled;
    l.onSettled = undefined;
    settled?.();
    if (!refused) return;
    this.orphans.settle({ workspaceId: l.view.workspaceId, id: l.view.id, intent: SETTLED_STATES.has(l.view.status.state) ? l.view : undefined });
  }

  /**
   * The next settled state resolves `l.settled` (one observer per actor serves this and the writes). A wait already
   * pending (a cancel while a send waits) is kept: it ends at the same next settled state, and its waiters hold it.
   */
  private waitSettled(l: Live): void {
    if (l.onSettled) return;
    l.settled = new Promise<void>((resolve) => {
      l.onSettled = resolve;
    });
  }
}
