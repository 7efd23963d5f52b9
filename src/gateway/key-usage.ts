// When each key was last used (the dashboard's "last used"), shared by every instance through the store. The hot path
// is one Map write per authenticated call (a per-call store write would cost every call a round trip); the instance
// flushes what it saw at most once per `flushMs` (one store write for all keys), so the stored time lags by up to
// that much. Reads merge the stored times with what this instance has not flushed yet.
import type { Timers } from '../runtime/clock.js';
import type { DashboardStore } from '../runtime/store/types.js';

export interface KeyUsageOptions {
  store: Pick<DashboardStore, 'markKeysUsed' | 'keysLastUsed'>;
  timers: Timers;
  /** the longest a use waits before it is written to the store */
  flushMs: number;
  onError?: (e: unknown) => void;
}

export class KeyUsage {
  /** seen here since the last flush began */
  private pending = new Map<string, number>();
  /** being written now: still this instance's to show until the write is done */
  private writing = new Map<string, number>();
  private cancel: (() => void) | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly o: KeyUsageOptions) {}

  seen(keyId: string, at: number): void {
    this.pending.set(keyId, at);
    if (!this.cancel && !this.stopped) this.arm();
  }

  /** The last use of each of these keys that has one: the store's, or this instance's when later. */
  async lastUsed(keyIds: readonly string[]): Promise<Map<string, number>> {
    const out = await this.o.store.keysLastUsed(keyIds);
    for (const id of keyIds) {
      const here = Math.max(this.pending.get(id) ?? -Infinity, this.writing.get(id) ?? -Infinity);
      if (here > (out.get(id) ?? -Infinity)) out.set(id, here);
    }
    return out;
  }

  /** Resolves when the flush under way (if any) is done: tests wait on it after moving a ManualClock. */
  idle(): Promise<void> {
    return this.running;
  }

  /** Stops the timer and writes what is left (a closing instance keeps its last uses). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    this.cancel = undefined;
    await this.running;
    await this.flush();
  }

  private arm(): void {
    this.cancel = this.o.timers.after(this.o.flushMs, () => {
      this.running = this.flush().finally(() => {
        this.cancel = undefined;
        if (this.pending.size > 0 && !this.stopped) this.arm();
      });
    });
  }

  private async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.writing = batch;
    try {
      await this.o.store.markKeysUsed([...batch]);
    } catch (e) {
      // the store is out of reach: keep the uses for the next flush (a later use of the same key wins)
      for (const [id, at] of batch) if ((this.pending.get(id) ?? -Infinity) < at) this.pending.set(id, at);
      this.o.onError?.(e);
    } finally {
      this.writing = new Map();
    }
  }
}
