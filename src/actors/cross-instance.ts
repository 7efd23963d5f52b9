// The task supervisor's paths across gateway instances: a cancel of a task that runs on another instance (asked over
// the bus, or done here when its owner is gone), a cancel asked by another instance, and a change of a task that
// another instance changed first. The supervisor owns the live actors; this module reaches them through its options.
import { RpcError } from '../protocol/errors.js';
import { TERMINAL_STATES, type Task } from '../protocol/model.js';
import type { Clock, Timers } from '../runtime/clock.js';
import type { EventBus } from '../runtime/events/bus.js';
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
  /** how long a cancel waits for the instance that runs the task */
  cancelTimeoutMs: number;
  /** whether another instance is presumed dead (it stopped beating) */
  ownerGone?: (owner: string) => Promise<boolean>;
  /** whether the task of this key runs here now (a live actor) */
  isLive: (k: string) => boolean;
  /** a cancel asked by another instance, to the task's live actor if it runs here (false: no live actor here) */
  cancelLive: (k: string) => boolean;
  /** the supervisor's own cancel (the normal path: a live actor, or a restore with the seq check) */
  cancel: (task: Task) => Promise<Task>;
}

/** how often a follow-up or cancel is judged again after other instances changed its task first */
const MAX_MOVED_TRIES = 5;

export class CrossInstance {
  constructor(private readonly o: CrossInstanceOptions) {
    // another instance asks for a cancel of a task that may run here
    o.bus.onCancelRequest((k) => {
      if (!o.cancelLive(k)) void this.cancelIdle(k);
    });
  }

  /**
   * A cancel asked by another instance for a task not live here: its turn may have ended (input-required) between the
   * asker reading it running and the request arriving. The asker waits for a canceled status, and no one else would
   * send one, so the instance that ran the task (its stored owner) cancels it through the normal path (restore with
   * the seq check). Anything else stored (ended, a follow-up elsewhere) is left as it is.
   */
  private async cancelIdle(k: string): Promise<void> {
    const at = splitTaskKey(k);
    if (!at) return;
    try {
      const stored = await this.o.store.get(at.workspaceId, at.id);
      if (stored?.workspaceId !== at.workspaceId || stored.status.state !== 'input-required' || stored.owner !== this.o.instanceId || this.o.isLive(k)) return;
      await this.o.cancel(stored);
    } catch {
      // refused (it moved meanwhile) or not stored: the asker reads the store once its wait ends, and answers from it
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
    if (!stored) throw new RpcError('TASK_NOT_FOUND', { message: `Task not found: ${task.id}`, data: { id: task.id } });
    if (o.tries >= MAX_MOVED_TRIES) {
      throw new RpcError('INTERNAL_ERROR', {
        message: `Task ${task.id} kept changing on other gateway instances while this call was delivered; nothing of it was kept; retry`,
        data: { detail: 'task_contended', state: stored.status.state },
      });
    }
    return stored;
  }

  /** A running task that is not live here: another instance runs it, or its run died with an earlier process of ours. */
  async cancelElsewhere(o: { task: Task; requestId?: string | undefined }): Promise<Task> {
    const { task, requestId } = o;
    const k = taskKey(task.workspaceId, task.id);
    // an owner presumed dead answers no cancel: waiting for it would only end in an error, the task still running
    // until the presence sweep fails it. A live owner that was only slow to beat stops at its next write (refused)
    const gone = task.owner !== undefined && task.owner !== this.o.instanceId && (await this.o.ownerGone?.(task.owner)) === true;
    if (task.owner === undefined || task.owner === this.o.instanceId || gone) {
      const stamped = requestId === undefined ? task : { ...task, metadata: { ...task.metadata, request_id: requestId } };
      const canceled = withStatus(stamped, { state: 'canceled', now: this.o.clock.now() });
      try {
        const stored = await this.o.writer.record(task, canceled);
        // the owner, if it runs after all, stops the run now rather than at its next write
        if (gone) this.o.bus.requestCancel(k);
        return stored;
      } catch (e) {
        if (!(e instanceof TaskSettledElsewhereError)) throw e;
        const stored = await this.o.store.get(task.workspaceId, task.id);
        throw new RpcError('TASK_NOT_CANCELABLE', {
          message: `Task ${task.id} is ${stored?.status.state ?? 'finished'} and cannot be canceled`,
          data: { state: stored?.status.state },
        });
      }
    }
    let timer: () => void = () => {};
    let sub: ReturnType<EventBus['subscribe']> | undefined;
    const ended = new Promise<boolean>((resolve) => {
      sub = this.o.bus.subscribe(k, (ev) => {
        if (ev.kind === 'status' && TERMINAL_STATES.has(ev.status.state)) resolve(true);
      });
      timer = this.o.timers.after(this.o.cancelTimeoutMs, () => resolve(false));
    });
    try {
      await sub!.ready;
      this.o.bus.requestCancel(k);
      const answered = await ended;
      const now = await this.o.store.get(task.workspaceId, task.id);
      if (now?.status.state === 'canceled') return now;
      if (now && TERMINAL_STATES.has(now.status.state)) {
        throw new RpcError('TASK_NOT_CANCELABLE', {
          message: `Task ${task.id} is ${now.status.state} and cannot be canceled`,
          data: { state: now.status.state },
        });
      }
      throw new RpcError('INTERNAL_ERROR', {
        message: answered ? 'The task did not stop' : `The gateway instance running task ${task.id} did not answer the cancel in time`,
        data: { owner: task.owner },
      });
    } finally {
      timer();
      sub?.unsubscribe();
    }
  }
}
