// Time and ids, injected so that windows, expiry and backoff are tested without sleeps.
import { randomBytes, randomUUID } from 'node:crypto';

export interface Clock {
  /** milliseconds since the epoch */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private t = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(ms: number): void {
    this.t = ms;
  }
}

export const newId = (): string => randomUUID();

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `bytes` random bytes rendered in base62 (rejection sampling keeps it unbiased). */
export function randomBase62(bytes: number): string {
  const want = Math.ceil((bytes * 8) / Math.log2(62));
  let out = '';
  while (out.length < want) {
    for (const b of randomBytes(want * 2)) {
      if (b < 248) out += BASE62[b % 62];
      if (out.length === want) break;
    }
  }
  return out;
}
