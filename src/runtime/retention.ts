// Retention: a sweeper that deletes terminal tasks (with their indexes, events, push configs and jobs) past an age, and
// outbound results past their connection's result_retention_hours.
import type { Clock, Timers } from './clock.js';
import type { Store } from './store/types.js';

export interface RetentionOptions {
  store: Pick<Store, 'tasks' | 'pushJobs' | 'results'>;
  clock: Clock;
  timers: Timers;
  /** a terminal task is deleted once it has been terminal this long; 0 keeps tasks forever */
  taskTtlMs: number;
  /** how often the sweep runs */
  sweepIntervalMs: number;
  onError?: (e: unknown) => void;
  onSwept?: (n: number) => void;
}

/** Tasks deleted per store call: bounded so that one sweep never holds a write transaction (or Redis) for long. */
const BATCH = 500;

export class RetentionSweeper {
  private cancel: (() => void) | undefined;
  private stopped = false;
  private running: Promise<number> = Promise.resolve(0);

  constructor(private readonly o: RetentionOptions) {}

  /** Sweeps every `sweepIntervalMs` (the first sweep one interval after start). */
  start(): void {
    const arm = () => {
      if (this.stopped) return;
      this.cancel = this.o.timers.after(this.o.sweepIntervalMs, () => {
        this.running = this.sweep()
          .then((n) => {
            if (n > 0) this.o.onSwept?.(n);
            return n;
          })
          .catch((e: unknown) => {
            // a store hiccup costs one sweep, never the process; the next one catches up
            this.o.onError?.(e);
            return 0;
          })
          .finally(arm);
      });
    };
    arm();
  }

  /** One sweep now: every task terminal for longer than the TTL (none when it is 0) and every expired result goes; returns how many. */
  async sweep(): Promise<number> {
    const now = this.o.clock.now();
    let n = 0;
    for (;;) {
      const gone = await this.o.store.results.sweep({ now, limit: BATCH });
      n += gone;
      if (gone < BATCH || this.stopped) break;
    }
    if (this.o.taskTtlMs <= 0) return n;
    const endedBy = now - this.o.taskTtlMs;
    for (;;) {
      const gone = await this.o.store.tasks.sweep({ endedBy, limit: BATCH });
      if (gone.length > 0) await this.o.store.pushJobs.dropTasks(gone);
      n += gone.length;
      if (gone.length < BATCH || this.stopped) return n;
    }
  }

  /** Resolves when the sweep under way (if any) is done: tests wait on it after moving a ManualClock. */
  idle(): Promise<number> {
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    await this.running;
  }
}
