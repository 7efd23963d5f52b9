// Ends what a credential keeps open once it may no longer act: every `everyMs`, while anything is watched, one read of
// each distinct id watched, and each `end` of an id that lapsed is called once. The credential's record is read from
// the store because it can lapse in another process (the CLI on the same LMDB files, another instance on Redis).
// KeyWatch (API keys) and the dashboard's session watch are two of these.
import type { Clock, Timers } from '../runtime/clock.js';

export interface LapseWatchOptions<Why extends string> {
  /** why the credential `id` may no longer act at `now` (read from the store), or undefined while it may */
  lapsed(id: string, now: number): Promise<Why | undefined>;
  clock: Clock;
  timers: Timers;
  everyMs: number;
  onError?: (e: unknown) => void;
}

export class LapseWatch<Why extends string> {
  private readonly open = new Map<string, Set<(why: Why) => void>>();
  private cancel: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly o: LapseWatchOptions<Why>) {}

  /** Calls `end` once if the credential lapses while registered; returns the unregister function. */
  watch(id: string, end: (why: Why) => void): () => void {
    let set = this.open.get(id);
    if (!set) this.open.set(id, (set = new Set()));
    set.add(end);
    this.arm();
    return () => {
      set!.delete(end);
      if (set!.size === 0 && this.open.get(id) === set) this.open.delete(id);
    };
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
    this.cancel = undefined;
  }

  private arm(): void {
    if (this.cancel || this.stopped) return;
    this.cancel = this.o.timers.after(this.o.everyMs, () => {
      this.cancel = undefined;
      void this.check().finally(() => {
        if (this.open.size > 0) this.arm();
      });
    });
  }

  /**
   * Checks `id` now rather than at the next round: another instance (or this one) said it was revoked. Its ends are
   * called at once if it lapsed; an id nothing watches here costs nothing.
   */
  async checkNow(id: string): Promise<void> {
    const ends = this.open.get(id);
    if (!ends) return;
    try {
      await this.judge(id, ends, this.o.clock.now());
    } catch (e) {
      this.o.onError?.(e);
    }
  }

  private async check(): Promise<void> {
    const now = this.o.clock.now();
    for (const [id, ends] of [...this.open]) {
      try {
        await this.judge(id, ends, now);
      } catch (e) {
        // the store is out of reach: nothing is judged now; the next check tries again
        this.o.onError?.(e);
        return;
      }
    }
  }

  /** Reads `id`'s record and ends what it holds if it lapsed (once: a round and a checkNow may read it together). */
  private async judge(id: string, ends: Set<(why: Why) => void>, now: number): Promise<void> {
    const why = await this.o.lapsed(id, now);
    if (!why || this.open.get(id) !== ends) return;
    this.open.delete(id);
    for (const end of ends) end(why);
  }
}
