// Ends what a key keeps open once the key may no longer act: its SSE streams close within one check of a revocation
// (a LapseWatch over the key store: one read of each distinct key that holds a stream, every `everyMs`).
import { keyLapsed } from '../runtime/keys.js';
import type { Clock, Timers } from '../runtime/clock.js';
import type { KeyStore } from '../runtime/store/types.js';
import { LapseWatch } from './lapse-watch.js';

export type KeyEnd = (why: 'revoked' | 'expired') => void;

export class KeyWatch extends LapseWatch<'revoked' | 'expired'> {
  constructor(o: { keys: KeyStore; clock: Clock; timers: Timers; everyMs: number; onError?: (e: unknown) => void }) {
    super({
      ...o,
      lapsed: async (keyId, now) => {
        const rec = await o.keys.get(keyId);
        return rec ? keyLapsed(rec, now) : 'revoked';
      },
    });
  }
}
