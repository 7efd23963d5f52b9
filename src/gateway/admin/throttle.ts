// The admin API's two throttles, both on the gateway's one limiter (memory or Redis, so instances share them): each
// admin key's budget of admin calls, and failed admin authentications per client address. Both refuse with 429.
import type { RateLimits } from '../../protocol/records.js';
import { rateLimitHeaders } from '../../runtime/limiter/headers.js';
import type { LimitDecision, Limiter } from '../../runtime/limiter/types.js';
import { AuthFailureThrottle } from '../auth-throttle.js';
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
   * Before any key is checked: an address past its budget of failures is refused, whatever it presents now, so a
   * guess that happens to be right answers the same as a wrong one.
   */
  async gate(address: string): Promise<void> {
    const d = await this.failures.gate(address);
    if (d) throw refusal(SIGN_IN_REFUSED, d);
  }

  /** Counts one failed authentication of the address; the one that passes the budget is already answered 429. */
  async failed(address: string): Promise<void> {
    const d = await this.failures.failed(address);
    if (d) throw refusal(SIGN_IN_REFUSED, d);
  }

  /** Spends one call of the key's admin budget; refused when it is spent. Answers the RateLimit-* headers. */
  async spend(keyId: string): Promise<Record<string, string>> {
    const d = await this.o.limiter.check(keyBucket(keyId), this.o.perKey);
    if (!d.allowed) throw refusal("Rate limit exceeded for this key's admin API calls; retry after the Retry-After seconds", d);
    return rateLimitHeaders(d);
  }
}
