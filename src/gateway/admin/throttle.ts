// The admin API's two throttles, both on the gateway's one limiter (memory or Redis, so instances share them): each
// admin key's budget of admin calls, and failed admin authentications per client address. Both refuse with 429.
import type { RateLimits } from '../../protocol/records.js';
import { rateLimitHeaders } from '../../runtime/limiter/headers.js';
import type { LimitDecision, Limiter } from '../../runtime/limiter/types.js';
import { embeddedV4, formatIp, parseIp } from '../../runtime/net/ip.js';
import { AdminRateLimited } from './http.js';

export interface AdminThrottleOptions {
  limiter: Limiter;
  /** every admin key's budget of admin API calls */
  perKey: RateLimits;
  /** failed authentications allowed per client address */
  authFailures: RateLimits;
}

/**
 * The bucket of a client address: an IPv4 address whole (also when it arrives IPv4-mapped), an IPv6 address by its
 * /64, the block one subscriber usually holds whole, so walking its addresses buys no fresh budget.
 */
export function addressBucket(address: string): string {
  const ip = parseIp(address);
  if (!ip) return address;
  const v4 = embeddedV4(ip);
  if (v4) return formatIp(v4);
  if (ip.length === 4) return formatIp(ip);
  const net = new Uint8Array(16);
  net.set(ip.subarray(0, 8));
  return `${formatIp(net)}/64`;
}

// names apart from the A2A endpoint's buckets (a key id), so an admin call never spends a key's A2A budget
const keyBucket = (keyId: string) => `admin:${keyId}`;
const failureBucket = (address: string) => `admin-auth-failed:${addressBucket(address)}`;

const refusal = (message: string, d: LimitDecision) => new AdminRateLimited(message, rateLimitHeaders(d));

export class AdminThrottle {
  constructor(private readonly o: AdminThrottleOptions) {}

  /**
   * Before any key is checked: an address past its budget of failures is refused, whatever it presents now, so a
   * guess that happens to be right answers the same as a wrong one.
   */
  async gate(address: string): Promise<void> {
    const d = await this.o.limiter.peek(failureBucket(address), this.o.authFailures);
    if (!d.allowed) throw refusal('Too many failed sign-ins from this address: rate limit exceeded; retry after the Retry-After seconds', d);
  }

  /** Counts one failed authentication of the address; the one that passes the budget is already answered 429. */
  async failed(address: string): Promise<void> {
    const d = await this.o.limiter.check(failureBucket(address), this.o.authFailures);
    if (!d.allowed) throw refusal('Too many failed sign-ins from this address: rate limit exceeded; retry after the Retry-After seconds', d);
  }

  /** Spends one call of the key's admin budget; refused when it is spent. Answers the RateLimit-* headers. */
  async spend(keyId: string): Promise<Record<string, string>> {
    const d = await this.o.limiter.check(keyBucket(keyId), this.o.perKey);
    if (!d.allowed) throw refusal("Rate limit exceeded for this key's admin API calls; retry after the Retry-After seconds", d);
    return rateLimitHeaders(d);
  }
}
