// Ends what a key keeps open once the key may no longer act: its SSE streams close within one check of a revocation.
//
// A revocation can come from another process (the CLI on the same LMDB files, another instance on Redis), so the
// watch reads the store: every `everyMs`, while streams are open, one read of each distinct key that holds one.
import { keyLapsed } from '../runtime/keys.js';
import type { Clock, Timers } from '../runtime/clock.js';
import type { KeyStore } from '../runtime/store/types.js';

export type KeyEnd = (why: 'revoked' | 'expired') => void;

export class KeyWatch {
  private readonly open = new Map<string, Set<KeyEnd>>();
  private cancel: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly o: { keys: KeyStore; clock: Clock; timers: Timers; everyMs: number; onError?: (e: unknown) => void }) {}

  /** Calls `end` once if the key is revoked or expires while registered; returns the unregister function. */
  watch(keyId: string, end: KeyEnd): () => void {
    let set = this.open.get(keyId);
    if (!set) this.open.set(keyId, (set = new Set()));
    set.add(end);
    this.arm();
    return () => {
      set!.delete(end);
      if (set!.size === 0 && this.open.get(keyId) === set) this.open.delete(keyId);
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

  private async check(): Promise<void> {
    const now = this.o.clock.now();
    for (const [keyId, ends] of [...this.open]) {
      let why: 'revoked' | 'expired' | undefined;
      try {
        const rec = await this.o.keys.get(keyId);
        why = rec ? keyLapsed(rec, now) : 'revoked';
      } catch (e) {
        // the store is out of reach: nothing is judged now; the next check tries again
        this.o.onError?.(e);
        return;
      }
      if (!why) continue;
      this.open.delete(keyId);
      for (const end of ends) end(why);
    }
  }
}
