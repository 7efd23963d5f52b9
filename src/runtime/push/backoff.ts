// Retry delays: exponential in the attempt number, capped, with jitter so that many failing receivers spread out.

export interface BackoffPolicy {
  /** the delay before the second attempt */
  baseMs: number;
  /** no delay is longer than this */
  maxMs: number;
}

/**
 * The delay after `failures` failed attempts (1 for the first failure): base * 2^(failures-1), capped
 * at maxMs, then "equal jitter": a random point in its upper half, so a retry never comes much
 * sooner than the curve says and never later than the cap. `random` is in [0, 1).
 */
export function backoffDelay(p: BackoffPolicy, failures: number, random: () => number = Math.random): number {
  const exp = Math.min(p.maxMs, p.baseMs * 2 ** Math.max(0, Math.min(failures - 1, 52)));
  const half = exp / 2;
  return Math.round(half + random() * half);
}
