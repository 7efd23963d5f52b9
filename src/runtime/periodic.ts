// A background job run every so often on injected timers (the retention sweep, the workspace index repair): the next
// run is armed only once the last one ended, a failure costs one run and never the process, and `stop` waits for the
// run under way.
import type { Timers } from './clock.js';

export interface PeriodicOptions {
  timers: Timers;
  /** the wait before each run, counted from the end of the last (the first one this long after start) */
  everyMs: number;
  /** one run; resolves with how much it did */
  run: () => Promise<number>;
  /** a run that did something */
  onDone?: (n: number) => void;
  onError?: (e: unknown) => void;
}

export class Periodic {
  private cancel: (() => void) | undefined;
  private stopped = false;
  private running: Promise<number> = Promise.resolve(0);

  constructor(private readonly o: PeriodicOptions) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  start(): void {
    const arm = () => {
      if (this.stopped) return;
      this.cancel = this.o.timers.after(this.o.everyMs, () => {
        this.running = this.o
          .run()
          .then((n) => {
            if (n > 0) this.o.onDone?.(n);
            return n;
          })
          .catch((e: unknown) => {
            // a store hiccup costs one run, never the process; the next one catches up
            this.o.onError?.(e);
            return 0;
          })
          .finally(arm);
      });
    };
    arm();
  }

  /** Resolves when the run under way (if any) is done: tests wait on it after moving a ManualClock. */
  idle(): Promise<number> {
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    await this.running;
  }
}
