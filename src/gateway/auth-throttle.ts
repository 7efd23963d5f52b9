// Failed authentications per client address, on the gateway's one limiter (memory, or Redis so instances share it):
// an address past its budget is refused before any key is checked. The admin API, the A2A endpoint and the relay
// tunnel each hold one, under bucket names of their own.
import type { RateLimits } from '../protocol/records.js';
import type { LimitDecision, Limiter } from '../runtime/limiter/types.js';
import { embeddedV4, formatIp, parseIp } from '../runtime/net/ip.js';

export interface AuthFailureThrottleOptions {
  limiter: Limiter;
  /** failed authentications allowed per client address */
  limits: RateLimits;
  /** names this throttle's buckets apart from every other bucket of the limiter, e.g. `auth-failed` */
  bucket: string;
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

export class AuthFailureThrottle {
  constructor(private readonly o: AuthFailureThrottleOptions) {}

  private bucketOf(address: string): string {
    return `${this.o.bucket}:${addressBucket(address)}`;
  }

  /**
   * Before any key is checked: the refusing decision when the address is past its budget of failures (whatever it
   * presents now, so a guess that happens to be right answers the same as a wrong one), else undefined.
   */
  async gate(address: string): Promise<LimitDecision | undefined> {
    const d = await this.o.limiter.peek(this.bucketOf(address), this.o.limits);
    return d.allowed ? undefined : d;
  }

  /** Counts one failed authentication of the address: the refusing decision when this one passes the budget. */
  async failed(address: string): Promise<LimitDecision | undefined> {
    const d = await this.o.limiter.check(this.bucketOf(address), this.o.limits);
    return d.allowed ? undefined : d;
  }
}
