// How task changes reach the store: numbered events, group commits per task (with their push jobs), then live fan-out.
// A task with no push config known writes without reading its configs; the store's own check catches one set elsewhere.
import { diffTask, type TaskEvent } from '../protocol/events.js';
import type { Task } from '../protocol/model.js';
import type { PushJob } from '../protocol/records.js';
import type { Timers } from '../runtime/clock.js';
import type { EventBus } from '../runtime/events/bus.js';
import { taskKey, type TaskStore, type TaskWriteEvents } from '../runtime/store/types.js';
import { TaskHasPushConfigsError } from '../runtime/store/errors.js';
import { progressPauseMs } from './write-pace.js';
import { copyWith } from '../protocol/copy-with.js';

/**
 * The push jobs a group of changes of one task causes: read before the write (configs, keys), then stored in the
 * task's own atomic write, so that no crash keeps a change and loses its webhooks. `stored` is told once the store took
 * the write (the delivery worker wakes up); undefined when nobody is to be notified.
 */
export type PushJobsFor = (records: readonly Task[]) => Promise<{ jobs: readonly PushJob[]; stored: () => void } | undefined>;

export interface TaskWriterOptions {
  store: TaskStore;
  bus: EventBus;
  /** events kept per task for replay */
  retainEvents: number;
  pushJobs?: PushJobsFor;
  /** paces a large record's progress writes (write-pace.ts); without them every group is written at once */
  timers?: Timers;
}

type Change = { record: Task; events: TaskEvent[] };

/** A new task's first write found a task stored under its id (another send made it first, here or elsewhere). */
export class TaskIdTakenError extends Error {
  readonly code = 'ERR_TASK_ID_TAKEN';
  constructor(readonly taskId: string) {
    super(`a task with id ${taskId} already exists`);
    this.name = 'TaskIdTakenError';
  }
}

/**
 * The store refused a change: the stored task is already terminal (finished by another writer), so it stays so, or
 * (a write with an expected seq) another writer changed it first.
 */
export class TaskSettledElsewhereError extends Error {
  readonly code = 'ERR_TASK_SETTLED';
  constructor(readonly taskId: string) {
    super(`task ${taskId} is already finished or changed in the store`);
    this.name = 'TaskSettledElsewhereError';
  }
}

/**
 * One task's queue of changes; `persisted` resolves when everything queued so far is stored or a write failed.
 * It never rejects: a failed write is kept in `failure` (the caller turns it into that one call's error), the
 * queue stores nothing after it, and `onFailure` tells the task's owner, which drops the task from memory.
 */
export class TaskWriteQueue {
  persisted: Promise<void> = Promise.resolve();
  /** the first write that failed; nothing queued after it is written */
  failure: unknown = undefined;
  private pending: Change[] | undefined;

  /** a new task's queue: its first group is a create (insert-if-absent), not a put */
  private creating: boolean;
  /** a restored task's queue: its first group is written only over the stored task at this seq; gone once used */
  private firstExpectSeq: number | undefined;

  /** how long the first group may wait for `release()`, and the timers that end the wait; gone once used */
  private holdFor: QueueOptions['hold'];
  /** opens a held first group now */
  private releaseHold: (() => void) | undefined;
  /** the state of the newest record stored so far: a group in that same state carries only progress */
  private storedState: Task['status']['state'] | undefined;
  /** ends a progress group's pause now (a state change joined it) */
  private endPause: (() => void) | undefined;

  /** whether this task's writes read its push configs first (see PushConfigsSeen) */
  private readonly configs: PushConfigsSeen;
  /** see QueueOptions.idMadeHere: true for the create only */
  private idMadeHere: boolean;

  constructor(
    private readonly writer: TaskWriter,
    o: QueueOptions,
  ) {
    this.configs = { seen: o.pushConfigs ?? false };
    this.idMadeHere = o.idMadeHere === true && o.fresh;
    this.creating = o.fresh;
    this.firstExpectSeq = o.expectSeq;
    this.holdFor = o.hold;
    this.onFailure = o.onFailure ?? (() => undefined);
  }

  private readonly onFailure: (e: unknown) => void;

  /** The task settled: a held first group goes to the store now, with everything the task did. */
  release(): void {
    this.releaseHold?.();
  }

  /**
   * Changes made while a write is in flight (or in the same tick) form the next group, written as one commit.
   * Within one state, progress (artifact chunks, working messages) merges into one record write, so a
   * fast-streaming agent costs a bounded number of whole-record writes. Every state change keeps its own
   * record, and every event is kept. The queue takes ownership of `events` (a fresh array from `sequence`).
   */
  enqueue(record: Task, events: TaskEvent[]): void {
    const group = this.pending;
    if (group) {
      const tail = group[group.length - 1]!;
      if (tail.record.status.state === record.status.state) {
        tail.record = record;
        tail.events.push(...events);
      } else {
        group.push({ record, events });
        // a state change is written (and told to subscribers) at once, with the progress held before it
        this.endPause?.();
      }
      return;
    }
    const mine: Change[] = [{ record, events }];
    this.pending = mine;
    const gate = this.hold();
    this.persisted = this.persisted.then(async () => {
      if (gate) await gate;
      const pause = this.pace(mine);
      if (pause) await pause;
      if (this.pending === mine) this.pending = undefined;
      if (this.failure !== undefined) return;
      const create = this.creating;
      this.creating = false;
      const expectSeq = this.firstExpectSeq;
      this.firstExpectSeq = undefined;
      const noConfigsYet = create && this.idMadeHere && !this.configs.seen;
      this.idMadeHere = false;
      try {
        await this.writer.storeGroup(mine, {
          create,
          ...(expectSeq !== undefined && { expectSeq }),
          configs: this.configs,
          ...(noConfigsYet && { noConfigsYet: true }),
        });
        this.storedState = mine[mine.length - 1]!.record.status.state;
      } catch (e) {
        this.failure = e;
        this.onFailure(e);
      }
    });
  }

  /**
   * A group that only carries progress over a large stored record waits (taking every later change) for the pause
   * write-pace.ts gives it, or until a state change joins it. Never for a task's first write.
   */
  private pace(group: Change[]): Promise<void> | undefined {
    const timers = this.writer.timers;
    if (!timers || this.storedState === undefined || this.failure !== undefined) return undefined;
    if (group.length > 1 || group[0]!.record.status.state !== this.storedState) return undefined;
    const ms = progressPauseMs(group[0]!.record);
    if (ms === 0) return undefined;
    return new Promise<void>((resolve) => {
      const cancel = timers.after(ms, () => this.endPause?.());
      this.endPause = () => {
        this.endPause = undefined;
        cancel();
        resolve();
      };
    });
  }

  /** The first group waits (taking every later change) until released or for `holdMs`, whichever comes first. */
  private hold(): Promise<void> | undefined {
    const hold = this.holdFor;
    this.holdFor = undefined;
    if (!hold || hold.ms <= 0) return undefined;
    return new Promise<void>((resolve) => {
      const cancel = hold.timers.after(hold.ms, () => this.releaseHold?.());
      this.releaseHold = () => {
        this.releaseHold = undefined;
        cancel();
        resolve();
      };
    });
  }
}

interface QueueOptions {
  /** a new task: its first group is a create */
  fresh: boolean;
  /**
   * a task restored from the store at this seq: its first group is written only over that record, so two instances
   * that restored one task at once cannot both move it (the later write is refused: TaskSettledElsewhereError)
   */
  expectSeq?: number;
  /** hold the first group up to `ms` (until `release()` comes first) */
  hold?: { ms: number; timers: Timers };
  onFailure?: (e: unknown) => void;
  /** the task is known to hold a push config (a send stored its inline one): its writes read configs from the first */
  pushConfigs?: boolean;
  /**
   * the task's id was made here at random and is known to no one else before its create is stored: unless the caller
   * stored a config itself (`pushConfigs`), none can be held under it, so the create neither reads configs nor has
   * the store look for one (a read inside the write transaction, a few % of a short task's CPU)
   */
  idMadeHere?: boolean;
}

/**
 * Whether a task's writes read its push configs before writing (`seen`), or write without reading them and let the
 * store refuse the write if the task holds any (TaskHasPushConfigsError), in the write's own atomic step. Most tasks
 * never get a config: their writes skip a store read each. Once one was found the task keeps reading (a config
 * stays until deleted).
 */
export interface PushConfigsSeen {
  seen: boolean;
}

export class TaskWriter {
  constructor(private readonly o: TaskWriterOptions) {}

  get timers(): Timers | undefined {
    return this.o.timers;
  }

  queue(o: QueueOptions): TaskWriteQueue {
    return new TaskWriteQueue(this, o);
  }

  /** Numbers the events that lead from `prev` to `next`; the record carries the last seq. */
  sequence(prev: Task | undefined, next: Task): Change {
    let seq = prev?.seq ?? next.seq ?? 0;
    // copyWith, not a spread: a few of these per task change (protocol/copy-with.ts says why)
    const events = diffTask(prev, next).map((e) => copyWith(e, { seq: ++seq }) as TaskEvent);
    return { record: copyWith(next, { seq }), events };
  }

  /**
   * Stores one change made outside an actor (recovery, a cancel of a run that died); returns the record.
   * `expectSeq`: only over the stored task at that seq (TaskSettledElsewhereError when it moved meanwhile).
   */
  async record(prev: Task, next: Task, o: { expectSeq?: number } = {}): Promise<Task> {
    const change = this.sequence(prev, next);
    await this.storeGroup([change], { create: false, ...o });
    return change.record;
  }

  /**
   * Stores a group: its newest record, all its events and the push jobs of every state change's record in one atomic,
   * checked write (a create for a new task), then tells live subscribers, in order. A group is one task's and one
   * commit, so only its newest record is written: the earlier ones would be overwritten inside the same commit, where
   * no reader could ever see them.
   */
  async storeGroup(group: readonly Change[], o: { create: boolean; expectSeq?: number; configs?: PushConfigsSeen; noConfigsYet?: boolean }): Promise<void> {
    const records = group.map((g) => g.record);
    const newest = records[records.length - 1]!;
    const key = taskKey(newest.workspaceId, newest.id);
    const events = group.length === 1 ? group[0]!.events : group.flatMap((g) => g.events);
    const write = { events, retainEvents: this.o.retainEvents };
    // the record, its events and its webhooks are one atomic write, and the write is the check (a new id still free, a
    // stored task not yet finished elsewhere): notifications and live events go out only for a change the store took
    if (o.noConfigsYet) {
      // a create under an id no one else knows yet (QueueOptions.idMadeHere): nothing to read, nothing for the store to find
      await this.commit(newest, o, write);
      if (events.length > 0) this.o.bus.publish(key, events);
      return;
    }
    if (this.o.pushJobs && o.configs && !o.configs.seen) {
      // no config known: write without reading them; the store refuses if the task holds one (set anywhere, any time
      // before this write), and the write is made again below with their jobs
      try {
        await this.commit(newest, o, copyWith(write, { withoutPushConfigs: true }));
        if (events.length > 0) this.o.bus.publish(key, events);
        return;
      } catch (e) {
        if (!(e instanceof TaskHasPushConfigsError)) throw e;
        o.configs.seen = true;
      }
    }
    const push = this.o.pushJobs ? await this.o.pushJobs(records) : undefined;
    await this.commit(newest, o, { ...write, ...(push && { pushJobs: push.jobs }) });
    push?.stored();
    if (events.length > 0) this.o.bus.publish(key, events);
  }

  /** One atomic, checked write of a group's newest record (a create for a new task); throws when refused. */
  private async commit(newest: Task, o: { create: boolean; expectSeq?: number }, write: TaskWriteEvents): Promise<void> {
    const written = o.create
      ? await this.o.store.create(newest, write)
      : await this.o.store.put(newest, o.expectSeq === undefined ? write : copyWith(write, { expectSeq: o.expectSeq }));
    if (!written) throw o.create ? new TaskIdTakenError(newest.id) : new TaskSettledElsewhereError(newest.id);
  }
}
