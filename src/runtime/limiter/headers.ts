// The HTTP face of a limiter decision: RateLimit-* headers, and Retry-After on a refusal.
import type { LimitDecision } from './types.js';
import { HOUR_MS, MINUTE_MS } from './windows.js';

/** Whole seconds, rounded up: a client that waits the advertised time must not arrive early. */
const seconds = (ms: number): number => Math.ceil(Math.max(0, ms) / 1000);

export function rateLimitHeaders(d: LimitDecision): Record<string, string> {
  const h: Record<string, string> = {
    'RateLimit-Limit': String(d.limit),
    'RateLimit-Remaining': String(d.remaining),
    // with room left, the request just recorded is the newest in the window, so everything counted now has left it
    // exactly one window length from now: the full quota is back then (never 0, which would read "reset now")
    'RateLimit-Reset': String(seconds(d.resetMs > 0 ? d.resetMs : d.window === 'minute' ? MINUTE_MS : HOUR_MS)),
  };
  // at least 1: "Retry-After: 0" invites an immediate retry loop
  if (!d.allowed) h['Retry-After'] = String(Math.max(1, seconds(d.retryAfterMs ?? d.resetMs)));
  return h;
}
