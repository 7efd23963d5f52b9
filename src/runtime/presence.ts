// Instance liveness for scale-out: each instance stamps its last beat in the shared store; a silent one is presumed dead.
import type { Clock, Timers } from './clock.js';
import type { MetaStore } from './store/types.js';

export interface PresenceOptions {
  meta: MetaStore;
  clock: Clock;
  timers: Timers;
  instanceId: string;
  /** how often this instance stamps its beat */
  beatMs: number;
  /** an instance silent for longer than this is presumed dead */
  deadAfterMs: number;
  onError?: (e: unknown) => void;
}

const keyOf = (id: string) => `instance-beat:${id}`;

export class Presence {
  private cancel: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly o: PresenceOptions) {}

  /** Beats now and then every `beatMs`; after each beat, `afterBeat` runs (a sweep for orphaned work). */
  start(afterBeat: () => Promise<void>): void {
    const tick = async () => {
      if (this.stopped) return;
      try {
        await this.o.meta.put(keyOf(this.o.instanceId), this.o.clock.now());
        await afterBeat();
      } catch (e) {
        // a store hiccup costs one beat, never the process; the next beat tries again
        this.o.onError?.(e);
      } finally {
        if (!this.stopped) this.cancel = this.o.timers.after(this.o.beatMs, () => void tick());
      }
    };
    void tick();
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
  }

  /** true when `id` has not beaten within `deadAfterMs` (or never did) */
  async isDead(id: string): Promise<boolean> {
    const seen = await this.o.meta.get(keyOf(id));
    return typeof seen !== 'number' || this.o.clock.now() - seen > this.o.deadAfterMs;
  }
}
