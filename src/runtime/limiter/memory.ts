// The in-process limiter: two timestamp rings per key, decided and recorded synchronously (one gateway instance).
import type { Clock } from '../clock.js';
import type { RateLimits } from '../../protocol/records.js';
import type { LimitDecision, Limiter } from './types.js';
import { TimestampRing } from './ring.js';
import { HOUR_MS, MINUTE_MS, assertLimits, decide } from './windows.js';
import { LimiterClosedError } from './errors.js';

interface KeyState {
  minute: TimestampRing;
  hour: TimestampRing;
  lastRecorded: number;
}

export interface MemoryLimiter extends Limiter {
  /** The same decision as `check`, without a promise, for callers on a hot synchronous path. */
  checkSync(key: string, limits: RateLimits): LimitDecision;
  /** Keys currently held (evicted ones excluded). */
  keyCount(): number;
}

/** Keys the eviction sweep looks at per check: enough to outpace key creation, cheap enough to stay O(1). */
const SWEEP_STEP = 2;

export function createMemoryLimiter(opts: { clock: Clock; idleEvictMs?: number }): MemoryLimiter {
  const { clock } = opts;
  // idle for an hour means every entry of both windows has expired, so eviction forgets nothing;
  // a shorter setting would drop budget that is still spent
  const idleEvictMs = Math.max(opts.idleEvictMs ?? HOUR_MS, HOUR_MS);
  const keys = new Map<string, KeyState>();
  let sweep: IterableIterator<[string, KeyState]> | undefined;
  let closed = false;

  // lazily walks the map a few entries per check instead of a timer, so memory stays bounded
  // without a background task and without a pause proportional to the number of keys
  function sweepSome(now: number): void {
    for (let i = 0; i < SWEEP_STEP; i++) {
      sweep ??= keys.entries();
      const next = sweep.next();
      if (next.done) {
        sweep = undefined;
        return;
      }
      const [k, s] = next.value;
      if (now - s.lastRecorded >= idleEvictMs) keys.delete(k);
    }
  }

  /** A peek of a key never seen: the whole budget, and nothing is kept for it. */
  function fresh(now: number, limits: RateLimits): LimitDecision {
    const none = { count: 0, gate: 0 };
    return decide({ now, allowed: true, minute: { limit: limits.perMinute, ...none }, hour: { limit: limits.perHour, ...none } });
  }

  /** Decides a check at now; records it only when `record` (false: a peek) and allowed. */
  function decideAt(key: string, limits: RateLimits, record: boolean): LimitDecision {
    if (closed) throw new LimiterClosedError();
    assertLimits(limits);
    const now = Math.floor(clock.now());
    let s = keys.get(key);
    if (s === undefined && !record) return fresh(now, limits);
    if (s === undefined) {
      s = { minute: new TimestampRing(MINUTE_MS, limits.perMinute), hour: new TimestampRing(HOUR_MS, limits.perHour), lastRecorded: now };
      keys.set(key, s);
    } else {
      s.minute.setLimit(limits.perMinute);
      s.hour.setLimit(limits.perHour);
    }
    const allowed = s.minute.expire(now) < limits.perMinute && s.hour.expire(now) < limits.perHour;
    if (allowed && record) {
      s.minute.push(now);
      s.hour.push(now);
      s.lastRecorded = now;
    } else {
      // the minute may have refused (or a peek stopped) before the hour ring was brought up to date
      s.hour.expire(now);
    }
    const d = decide({
      now,
      allowed,
      minute: { limit: limits.perMinute, count: s.minute.size, gate: s.minute.gate() },
      hour: { limit: limits.perHour, count: s.hour.size, gate: s.hour.gate() },
    });
    sweepSome(now);
    return d;
  }

  const checkSync = (key: string, limits: RateLimits): LimitDecision => decideAt(key, limits, true);

  return {
    shared: false,
    checkSync,
    async check(key, limits) {
      return checkSync(key, limits);
    },
    async peek(key, limits) {
      return decideAt(key, limits, false);
    },
    keyCount: () => keys.size,
    async close() {
      closed = true;
      keys.clear();
      sweep = undefined;
    },
  };
}
