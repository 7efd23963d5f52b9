// Time, timers and random ids, with time injected so that windows, expiry and backoff are tested without sleeps.
import { randomBytes } from 'node:crypto';
import { setLongTimeout } from '../protocol/long-timeout.js';

export interface Clock {
  /** milliseconds since the epoch */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Timers, injected beside the clock so that pings, backoff and retries are tested without sleeps. */
export interface Timers {
  /** runs `fn` after `ms`; returns a cancel function */
  after(ms: number, fn: () => void): () => void;
}

export const systemTimers: Timers = {
  after: (ms, fn) => setLongTimeout(fn, ms, { unref: true }),
};

/** A clock (and timers) tests move by hand: `advance` fires every timer that falls due, in time order. */
export class ManualClock implements Clock, Timers {
  private timers: Array<{ at: number; fn: () => void; seq: number }> = [];
  private seq = 0;
  constructor(private t = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.t;
  }
  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.t + ms, fn, seq: this.seq++ };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((x) => x !== timer);
    };
  }
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = Math.max(this.t, due.at);
      due.fn();
    }
    this.t = end;
  }
  set(ms: number): void {
    this.t = ms;
  }
  /** how many timers wait (a test can tell that a ping or retry is armed) */
  get pending(): number {
    return this.timers.length;
  }
}

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
