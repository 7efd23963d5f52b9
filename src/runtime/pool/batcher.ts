// Groups the runs started in one event-loop turn into batches, so cooperative agents cost one message per batch.
import type { PoolRun } from './run.js';
import type { RunRequest } from '../workers/wire.js';

export interface BatchEntry {
  req: RunRequest;
  run: PoolRun;
  agentId: string;
}

/**
 * Runs queue until the event loop's check phase, i.e. right after the I/O callbacks that started
 * them: a burst of requests turns into a few batches and a lone request waits no longer than the
 * current turn. Runs that settled while queued (canceled, timed out) are dropped before dispatch.
 */
export class RunBatcher {
  readonly #maxBatch: number;
  readonly #dispatch: (batch: BatchEntry[]) => void;
  #queue: BatchEntry[] = [];
  #scheduled = false;

  constructor(opts: { maxBatch: number; dispatch: (batch: BatchEntry[]) => void }) {
    this.#maxBatch = opts.maxBatch;
    this.#dispatch = opts.dispatch;
  }

  add(entry: BatchEntry): void {
    this.#queue.push(entry);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#flush);
    }
  }

  /** Sends everything queued now, e.g. before the pool closes. */
  flush(): void {
    this.#flush();
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const queue = this.#queue;
    this.#queue = [];
    let batch: BatchEntry[] = [];
    for (const entry of queue) {
      if (entry.run.settled) continue;
      batch.push(entry);
      if (batch.length === this.#maxBatch) {
        this.#dispatch(batch);
        batch = [];
      }
    }
    if (batch.length > 0) this.#dispatch(batch);
  };
}
