// Tasks left behind by a change the store refused: their end is stored once the store answers, or they are failed.
import { SETTLED_STATES, type Task } from '../protocol/model.js';
import type { Clock, Timers } from '../runtime/clock.js';
import { isStoreUnavailable } from '../runtime/store/errors.js';
import type { TaskStore } from '../runtime/store/types.js';
import { TaskSettledElsewhereError, type TaskWriter } from './task-writer.js';
import { withStatus } from './task-updates.js';

const ORPHAN_FAILURE = {
  reason: 'store_write_failed',
  message: "The gateway could not store this task's progress (its store was unavailable or refused the change); the task did not finish.",
};
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

export interface OrphanSettlerOptions {
  store: TaskStore;
  writer: TaskWriter;
  clock: Clock;
  timers: Timers;
  /** this process's name: a task another instance owns is that instance's to settle */
  instanceId: string;
  /** whether the task runs here again (restored or continued meanwhile): then it is no orphan */
  isLive(workspaceId: string, id: string): boolean;
  onWriteFailure?: (e: unknown, task: Pick<Task, 'workspaceId' | 'id'>) => void;
}

export class OrphanSettler {
  /** pending retries, cancelled by stop() */
  private readonly retries = new Set<() => void>();
  private stopped = false;

  constructor(private readonly o: OrphanSettlerOptions) {}

  /**
   * The store kept this task as its last accepted change, often `working`, and its run is gone: nothing would ever
   * move it again (its owner is alive, so neither start-up recovery nor another instance fails it). When the run had
   * already settled (`intent`: the end it reached, which only the store's refusal kept from being stored), that end is
   * stored; else, or when the store refuses that end for good, the task is failed. Either is written only over the
   * record the store holds (a late write landing after an outage is judged afresh), and tried again, on a growing
   * delay, while the store cannot be reached.
   */
  settle(o: { workspaceId: string; id: string; intent: Task | undefined }): void {
    void this.attempt({ ...o, retryMs: RETRY_FIRST_MS });
  }

  stop(): void {
    this.stopped = true;
    for (const cancel of this.retries) cancel();
    this.retries.clear();
  }

  private async attempt(o: { workspaceId: string; id: string; intent: Task | undefined; retryMs: number }): Promise<void> {
    if (this.stopped) return;
    let intent = o.intent;
    try {
      for (let round = 0; round < 5; round++) {
        const stored = await this.o.store.get(o.workspaceId, o.id);
        if (!stored || SETTLED_STATES.has(stored.status.state) || this.o.isLive(o.workspaceId, o.id)) return;
        if (stored.owner !== undefined && stored.owner !== this.o.instanceId) return;
        const next = intent ?? withStatus(stored, { state: 'failed', now: this.o.clock.now(), failure: ORPHAN_FAILURE });
        try {
          await this.o.writer.record(stored, next, { expectSeq: stored.seq ?? 0 });
          return;
        } catch (e) {
          if (e instanceof TaskSettledElsewhereError) continue;
          // the end itself is what the store refuses (a value it cannot encode): the task fails instead
          if (intent && !isStoreUnavailable(e)) {
            intent = undefined;
            continue;
          }
          throw e;
        }
      }
    } catch (e) {
      this.o.onWriteFailure?.(e, o);
      if (this.stopped || !isStoreUnavailable(e)) return;
      const cancel = this.o.timers.after(o.retryMs, () => {
        this.retries.delete(cancel);
        void this.attempt({ ...o, intent, retryMs: Math.min(o.retryMs * 2, RETRY_MAX_MS) });
      });
      this.retries.add(cancel);
    }
  }
}
