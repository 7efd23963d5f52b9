// The task supervisor's paths across gateway instances: a cancel of a task that runs on another instance (asked over
// the bus and answered, or done here when its owner is gone or stays silent), a cancel asked by another instance, and
// a change of a task that another instance changed first. The supervisor owns the live actors; this module reaches
// them through its options.
import { randomUUID } from 'node:crypto';
import { RpcError, stateMessages } from '../protocol/errors.js';
import { TaskState, TERMINAL_STATES, type Task } from '../protocol/model.js';
import type { Clock, Timers } from '../runtime/clock.js';
import type { CancelReply, CancelRequest, EventBus } from '../runtime/events/bus.js';
import { splitTaskKey, taskKey, type TaskStore } from '../runtime/store/types.js';
import { TaskSettledElsewhereError, type TaskWriter } from './task-writer.js';
import { withStatus } from './task-updates.js';

export interface CrossInstanceOptions {
  store: TaskStore;
  bus: EventBus;
  writer: TaskWriter;
  clock: Clock;
  timers: Timers;
  /** this process's name, as stored in a task's `owner` */
  instanceId: string;
  /** how long a cancel waits for the answer of the instance that runs the task */
  cancelTimeoutMs: number;
  /** whether another instance is presumed dead (it stopped beating) */
  ownerGone?: (owner: string) => Promise<boolean>;
  /** the live actor's view of the task of this key, when it runs here now */
  liveView: (k: string) => Task | undefined;
  /** the supervisor's own cancel (the normal path: a live actor, or a restore with the seq check) */
  cancel: (task: Task, o: { requestId?: string }) => Promise<Task>;
}

/** how often a follow-up or cancel is judged again after other instances changed its task first */
const MAX_MOVED_TRIES = 5;

const notCancelable = (id: string, state: string | undefined) =>
  new RpcError('TASK_NOT_CANCELABLE', {
    ...stateMessages((name) => `Task ${id} is ${state === undefined ? 'finished' : name(state)} and cannot be canceled`),
    data: { state },
  });

const isTaskState = (s: string): s is TaskState => TaskState.safeParse(s).success;

const notFound = (id: string) => new RpcError('TASK_NOT_FOUND', { message: `Task not found: ${id}`, data: { id } });

export class CrossInstance {
  /** this instance's asks waiting for their answer, by ask id */
  private readonly waiting = new Map<string, (answer: CancelReply) => void>();

  constructor(private readonly o: CrossInstanceOptions) {
    o.bus.onCancelRequest((req) => void this.answer(req));
    o.bus.onCancelAnswer((answer) => this.waiting.get(answer.ask)?.(answer));
  }

  /**
   * A cancel asked by another instance. The instance that runs the task (its live actor), or else its stored owner (a
   * turn that ended in input-required between the asker reading it running and the ask arriving, a run that died
   * with an earlier process here), cancels it through the normal path with the asker's request id, and answers the
   * ask: canceled, or not cancelable and why. Every other instance stays silent (the ask goes to all).
   */
  private async answer(req: CancelRequest): Promise<void> {
    const at = splitTaskKey(req.key);
    if (!at) return;
    const reply = (answer: Pick<CancelReply, 'outcome' | 'state'>) => {
      if (req.reply) this.o.bus.answerCancel({ to: req.reply.from, ask: req.reply.ask, ...answer });
    };
    try {
      let task = this.o.liveView(req.key);
      if (!task) {
        const stored = await this.o.store.get(at.workspaceId, at.id);
        if (stored?.workspaceId !== at.workspaceId || stored.owner !== this.o.instanceId) return;
        task = this.o.liveView(req.key) ?? stored;
      }
      await this.o.cancel(task, req.requestId === undefined ? {} : { requestId: req.requestId });
      reply({ outcome: 'canceled' });
    } catch (e) {
      // anything else (the store failing): no answer, and the asker judges from the store once its wait ends
      if (e instanceof RpcError && e.reason === 'TASK_NOT_CANCELABLE') {
        const state = e.data?.state;
        reply({ outcome: 'not_cancelable', ...(typeof state === 'string' && isTaskState(state) && { state }) });
      }
    }
  }

  /**
   * The task as stored now, after a change of it restored here was refused because another instance changed it first
   * (a follow-up or a cancel there): the caller's change is judged again against it. Past a few tries the caller is
   * told to retry rather than looping.
   */
  async movedTask(o: { task: Task; tries: number }): Promise<Task> {
    const { task } = o;
    const stored = await this.o.store.get(task.workspaceId, task.id);
    if (!stored) throw notFound(task.id);
    if (o.tries >= MAX_MOVED_TRIES) {
      throw new RpcError('INTERNAL_ERROR', {
        message: `Task ${task.id} kept changing on other gateway instances while this call was delivered; nothing of it was kept; retry`,
        data: { detail: 'task_contended', state: stored.status.state },
      });
    }
    return stored;
  }

  /**
   * A running task that is not live here: another instance runs it (asked over the bus, with an ask id its answer
   * names), or its run died with an earlier process of ours or with a dead instance (canceled here).
   */
  async cancelElsewhere(o: { task: Task; requestId?: string | undefined }): Promise<Task> {
    const { task, requestId } = o;
    // an owner presumed dead answers no cancel: waiting for it would only end in an error, the task still running
    // until the presence sweep fails it. A live owner that was only slow to beat stops at its next write (refused)
    if (!(await this.runsElsewhere(task))) return this.cancelHere({ task, requestId });
    const answer = await this.ask({ key: taskKey(task.workspaceId, task.id), requestId });
    if (!answer) return this.afterSilence({ task, requestId });
    if (answer.outcome === 'not_cancelable') throw notCancelable(task.id, answer.state);
    // answered once the canceled status was stored
    const now = await this.o.store.get(task.workspaceId, task.id);
    if (!now) throw notFound(task.id);
    if (now.status.state !== 'canceled') throw notCancelable(task.id, now.status.state);
    return now;
  }

  /** whether the task's run is another live instance's (not this instance's, nor a dead one's) */
  private async runsElsewhere(task: Task): Promise<boolean> {
    if (task.owner === undefined || task.owner === this.o.instanceId) return false;
    return (await this.o.ownerGone?.(task.owner)) !== true;
  }

  /** Asks every instance to cancel the task; resolves with the answer to this ask, or undefined when none came in time. */
  private ask(o: { key: string; requestId: string | undefined }): Promise<CancelReply | undefined> {
    const ask = randomUUID();
    return new Promise((resolve) => {
      const stop = this.o.timers.after(this.o.cancelTimeoutMs, () => {
        this.waiting.delete(ask);
        resolve(undefined);
      });
      this.waiting.set(ask, (answer) => {
        stop();
        this.waiting.delete(ask);
        resolve(answer);
      });
      this.o.bus.requestCancel({ key: o.key, reply: { from: this.o.bus.origin, ask }, ...(o.requestId !== undefined && { requestId: o.requestId }) });
    });
  }

  /**
   * No answer in time: the ask or its answer was lost (the owner restarting, its subscriber reconnecting) or the owner
   * is too busy. The task is judged again as stored now: ended (a cancel whose answer was lost, or another end), waiting
   * for input (it runs nowhere: canceled here through the normal path), or still running; then its owner's beat says
   * whether it is gone (canceled here) or alive and silent (a clear error: the task still runs, a retry asks again).
   */
  private async afterSilence(o: { task: Task; requestId: string | undefined }): Promise<Task> {
    const { task, requestId } = o;
    const now = await this.o.store.get(task.workspaceId, task.id);
    if (now?.workspaceId !== task.workspaceId) throw notFound(task.id);
    if (now.status.state === 'canceled') return now;
    if (TERMINAL_STATES.has(now.status.state)) throw notCancelable(task.id, now.status.state);
    if (now.status.state === 'input-required') return this.o.cancel(now, requestId === undefined ? {} : { requestId });
    if (!(await this.runsElsewhere(now))) return this.cancelHere({ task: now, requestId });
    throw new RpcError('INTERNAL_ERROR', {
      message: `The gateway instance running task ${task.id} did not answer the cancel in time; the task is still running; retry`,
      data: { detail: 'cancel_unanswered', owner: now.owner, state: now.status.state },
      headers: { 'Retry-After': '1' },
    });
  }

  /** Stores the cancel of a running task whose run is not alive anywhere (or whose owner is presumed dead). */
  private async cancelHere(o: { task: Task; requestId: string | undefined }): Promise<Task> {
    const { task, requestId } = o;
    const stamped = requestId === undefined ? task : { ...task, metadata: { ...task.metadata, request_id: requestId } };
    const canceled = withStatus(stamped, { state: 'canceled', now: this.o.clock.now() });
    try {
      const stored = await this.o.writer.record(task, canceled);
      // an owner presumed dead, if it runs after all, stops the run now rather than at its next write (no answer wanted)
      if (task.owner !== undefined && task.owner !== this.o.instanceId) this.o.bus.requestCancel({ key: taskKey(task.workspaceId, task.id) });
      return stored;
    } catch (e) {
      if (!(e instanceof TaskSettledElsewhereError)) throw e;
      const stored = await this.o.store.get(task.workspaceId, task.id);
      throw notCancelable(task.id, stored?.status.state);
    }
  }
}
