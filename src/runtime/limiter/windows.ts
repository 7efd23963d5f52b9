// The window arithmetic both engines share, so memory and Redis answer with identical decisions.
import type { RateLimits } from '../../protocol/records.js';
import type { LimitDecision } from './types.js';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

/**
 * One window after a check: `count` requests live in (now - windowMs, now], this request included
 * when it was allowed. `gate` is the timestamp of the entry whose expiry brings the count back under
 * the limit (the (count - limit)-th oldest); engines may put anything there when count < limit.
 */
export interface WindowState {
  limit: number;
  count: number;
  gate: number;
}

interface Side {
  window: LimitDecision['window'];
  limit: number;
  remaining: number;
  resetMs: number;
}

function side(window: LimitDecision['window'], windowMs: number, s: WindowState, now: number): Side {
  const full = s.count >= s.limit;
  return {
    window,
    limit: s.limit,
    remaining: full ? 0 : s.limit - s.count,
    // an entry recorded at t counts while now < t + windowMs, so the slot is free at exactly t + windowMs
    resetMs: full ? Math.max(0, s.gate + windowMs - now) : 0,
  };
}

/** Fewer remaining wins; on a tie the later reset, then the minute (stable, so headers do not flap). */
function tighter(a: Side, b: Side): Side {
  if (a.remaining !== b.remaining) return a.remaining < b.remaining ? a : b;
  return b.resetMs > a.resetMs ? b : a;
}

export function decide(opts: { now: number; allowed: boolean; minute: WindowState; hour: WindowState }): LimitDecision {
  const m = side('minute', MINUTE_MS, opts.minute, opts.now);
  const h = side('hour', HOUR_MS, opts.hour, opts.now);
  if (opts.allowed) {
    const d = tighter(m, h);
    return { allowed: true, window: d.window, limit: d.limit, remaining: d.remaining, resetMs: d.resetMs };
  }
  const mRefuses = opts.minute.count >= opts.minute.limit;
  const hRefuses = opts.hour.count >= opts.hour.limit;
  // when both refuse, the later one is what the caller must wait for; windows only drain while
  // nothing is recorded, so the later of the two is also when both allow
  const d = mRefuses && hRefuses ? (h.resetMs > m.resetMs ? h : m) : hRefuses ? h : m;
  return { allowed: false, window: d.window, limit: d.limit, remaining: 0, resetMs: d.resetMs, retryAfterMs: d.resetMs };
}

/** Limits usually come parsed from a key record, but a bad override must fail loudly, not allow all. */
export function assertLimits(limits: RateLimits): void {
  if (!Number.isSafeInteger(limits.perMinute) || limits.perMinute < 1 || !Number.isSafeInteger(limits.perHour) || limits.perHour < 1) {
    throw new RangeError(`rate limits must be positive integers, got ${JSON.stringify(limits)}`);
  }
}
