// A brute-force limiter straight from the spec's wording, used only to check the real engines against it.
import type { RateLimits } from '../../src/protocol/records.js';
import type { LimitDecision } from '../../src/runtime/limiter/types.js';

const W = { minute: 60_000, hour: 3_600_000 } as const;
type Win = keyof typeof W;

/** Requests recorded in (at - windowMs, at]. */
const countAt = (log: number[], win: Win, at: number): number => log.filter((t) => t > at - W[win] && t <= at).length;

export class OracleLimiter {
  private logs = new Map<string, number[]>();
  allowances = 0;
  refusals = 0;

  check(key: string, limits: RateLimits, now: number): LimitDecision {
    const log = this.logs.get(key) ?? [];
    this.logs.set(key, log);
    const limitOf = (w: Win): number => (w === 'minute' ? limits.perMinute : limits.perHour);
    const allows = (w: Win, at: number): boolean => countAt(log, w, at) < limitOf(w);
    const allowed = allows('minute', now) && allows('hour', now);
    if (allowed) log.push(now);
    allowed ? this.allowances++ : this.refusals++;

    // the first moment, by trying every instant at which some entry stops counting
    const candidates = [0, ...log.flatMap((t) => [t + W.minute - now, t + W.hour - now])].filter((d) => d >= 0).sort((a, b) => a - b);
    const waitFor = (ok: (at: number) => boolean): number => candidates.find((d) => ok(now + d)) ?? Infinity;
    const view = (w: Win) => {
      const remaining = Math.max(0, limitOf(w) - countAt(log, w, now));
      return { window: w, limit: limitOf(w), remaining, resetMs: remaining > 0 ? 0 : waitFor((at) => allows(w, at)) };
    };
    const m = view('minute');
    const h = view('hour');
    if (allowed) {
      const d = h.remaining < m.remaining || (h.remaining === m.remaining && h.resetMs > m.resetMs) ? h : m;
      return { allowed, ...d };
    }
    const mRefuses = !allows('minute', now);
    const hRefuses = !allows('hour', now);
    const d = mRefuses && hRefuses ? (h.resetMs > m.resetMs ? h : m) : hRefuses ? h : m;
    return { allowed, ...d, retryAfterMs: waitFor((at) => allows('minute', at) && allows('hour', at)) };
  }
}

/** mulberry32: a reproducible walk, so a failure can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
