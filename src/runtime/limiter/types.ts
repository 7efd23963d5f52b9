// The rate limiter contract: exact sliding windows per key, both windows decided in one atomic step.
import type { RateLimits } from '../../protocol/records.js';

export interface LimitDecision {
  allowed: boolean;
  /** the window that decides the headers: the refusing one, else the one with the least room left */
  window: 'minute' | 'hour';
  limit: number;
  remaining: number;
  /** ms until the deciding window frees a slot (0 when it has room) */
  resetMs: number;
  /** ms to wait before a retry can succeed; set only when refused */
  retryAfterMs?: number;
}

export interface Limiter {
  /** other instances count in the same windows (Redis); false: this process's own */
  readonly shared: boolean;
  /** Checks and, only when allowed, records one request at `now` in both windows. */
  check(key: string, limits: RateLimits): Promise<LimitDecision>;
  /**
   * The decision a check would make now, recording nothing: whether it would be allowed and, when not, how long to
   * wait. For a gate that must refuse before it knows whether the request counts (failed sign-ins, counted only after).
   */
  peek(key: string, limits: RateLimits): Promise<LimitDecision>;
  close(): Promise<void>;
}
