// Retention: a sweeper that deletes terminal tasks (with their indexes, events, push configs and jobs) past an age, and
// outbound results past their connection's result_retention_hours.
import type { Clock, Timers } from './clock.js';
import { Periodic } from './periodic.js';
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
  private readonly periodic: Periodic;

  constructor(private readonly o: RetentionOptions) {
    this.periodic = new Periodic({
      timers: o.timers,
      everyMs: o.sweepIntervalMs,
      run: () => this.sweep(),
      ...(o.onSwept && { onDone: o.onSwept }),
      ...(o.onError && { onError: o.onError }),
    });
  }

  /** Sweeps every `sweepIntervalMs` (the first sweep one interval after start). */
  start(): void {
    this.periodic.start();
  }

  /** One sweep now: every task terminal for longer than the TTL (none when it is 0) and every expired result goes; returns how many. */
  async sweep(): Promise<number> {
    const now = this.o.clock.now();
    let n = 0;
    for (;;) {
      const gone = await this.o.store.results.sweep({ now, limit: BATCH });
      n += gone;
      if (gone < BATCH || this.periodic.isStopped) break;
    }
    if (this.o.taskTtlMs <= 0) return n;
    const endedBy = now - this.o.taskTtlMs;
    for (;;) {
      const gone = await this.o.store.tasks.sweep({ endedBy, limit: BATCH });
      if (gone.length > 0) await this.o.store.pushJobs.dropTasks(gone);
      n += gone.length;
      if (gone.length < BATCH || this.periodic.isStopped) return n;
    }
  }

  /** Resolves when the sweep under way (if any) is done: tests wait on it after moving a ManualClock. */
  idle(): Promise<number> {
    return this.periodic.idle();
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }
}
