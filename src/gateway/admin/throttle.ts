// The admin API's two throttles, both on the gateway's one limiter (memory or Redis, so instances share them): each
// admin key's budget of admin calls, and failed admin authentications per client address. Both refuse with 429.
import type { RateLimits } from '../../protocol/records.js';
import { rateLimitHeaders } from '../../runtime/limiter/headers.js';
import type { LimitDecision, Limiter } from '../../runtime/limiter/types.js';
import { AuthFailureThrottle, isAuthBlocked } from '../../runtime/limiter/auth-throttle.js';
import { AdminRateLimited } from './http.js';

export interface AdminThrottleOptions {
  limiter: Limiter;
  /** every admin key's budget of admin API calls */
  perKey: RateLimits;
  /** failed authentications allowed per client address */
  authFailures: RateLimits;
}

// names apart from the A2A endpoint's buckets (a key id), so an admin call never spends a key's A2A budget
const keyBucket = (keyId: string) => `admin:${keyId}`;

const refusal = (message: string, d: LimitDecision) => new AdminRateLimited(message, rateLimitHeaders(d));

const SIGN_IN_REFUSED = 'Too many failed sign-ins from this address: rate limit exceeded; retry after the Retry-After seconds';

export class AdminThrottle {
  private readonly failures: AuthFailureThrottle;

  constructor(private readonly o: AdminThrottleOptions) {
    this.failures = new AuthFailureThrottle({ limiter: o.limiter, limits: o.authFailures, bucket: 'admin-auth-failed' });
  }

  /**
   * One authentication from `address` (AuthFailureThrottle.authenticate): the key `check`'s answer, or 429 for an
   * address past its budget of failures, whatever it presents now (a guess that happens to be right answers the same
   * as a wrong one), and for the failure that passes the budget.
   */
  async authenticate<I, R extends { ok: boolean }>(address: string, presented: boolean, check: (input: I) => Promise<R>, input: I): Promise<R> {
    const r = await this.failures.authenticate(address, presented, check, input);
    if (isAuthBlocked(r)) throw refusal(SIGN_IN_REFUSED, r.blocked);
    return r;
  }

  /** Spends one call of the key's admin budget; refused when it is spent. Answers the RateLimit-* headers. */
  async spend(keyId: string): Promise<Record<string, string>> {
    const d = await this.o.limiter.check(keyBucket(keyId), this.o.perKey);
    if (!d.allowed) throw refusal("Rate limit exceeded for this key's admin API calls; retry after the Retry-After seconds", d);
    return rateLimitHeaders(d);
  }
}
