// Open SSE streams per key on this instance: a key holding `limit` streams gets its next one refused (HTTP 429), so
// one caller cannot tie up this process's sockets and memory for everybody. Rate limits count calls, not what stays open.
// The A2A endpoint keeps one count (streaming.maxStreamsPerKey), the admin API another (dashboard.maxStreamsPerKey).
import { RpcError } from '../protocol/errors.js';

/** The setting that names the A2A endpoint's bound (in refusals and docs). */
export const STREAMS_SETTING = 'streaming.maxStreamsPerKey';

export interface StreamSlotsOptions {
  limit: number;
  /** the setting the refusal names (default STREAMS_SETTING) */
  setting?: string;
}

export class StreamSlots {
  private readonly open = new Map<string, number>();
  /** the setting that names this bound */
  readonly setting: string;

  constructor(private readonly o: StreamSlotsOptions) {
    this.setting = o.setting ?? STREAMS_SETTING;
  }

  /** Takes one of the key's slots; returns its release (idempotent). Throws RATE_LIMITED (429) when none is free. */
  take(keyId: string): () => void {
    const held = this.open.get(keyId) ?? 0;
    if (held >= this.o.limit) {
      throw new RpcError('RATE_LIMITED', {
        message: `Too many open streams: this key already holds ${this.o.limit}, the limit (${this.setting}); close one first`,
        data: { detail: 'too_many_streams', limit: this.o.limit, setting: this.setting },
      });
    }
    this.open.set(keyId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = (this.open.get(keyId) ?? 1) - 1;
      if (now > 0) this.open.set(keyId, now);
      else this.open.delete(keyId);
    };
  }

  /** Streams the key holds open now. */
  held(keyId: string): number {
    return this.open.get(keyId) ?? 0;
  }
}
