// Failed authentications per client address, on a limiter (the gateway's: memory, or Redis so instances share it; the
// relay admin UI's: its own in memory): an address past its budget is refused whatever it presents, and a presented
// credential that fails counts against it. `authenticate` is that sequence, the one the admin API, the A2A endpoint,
// the relay tunnel and the relay admin UI each run (they hold throttles of their own, under bucket names of their own).
import type { RateLimits } from '../../protocol/records.js';
import type { LimitDecision, Limiter } from './types.js';
import { embeddedV4, formatIp, parseIp } from '../net/ip.js';

export interface AuthFailureThrottleOptions {
  limiter: Limiter;
  /** failed authentications allowed per client address */
  limits: RateLimits;
  /** names this throttle's buckets apart from every other bucket of the limiter, e.g. `auth-failed` */
  bucket: string;
}

/** A client address as text, or how to read it when it is needed (the A2A endpoint reads it only then). */
export type AddressOf = string | (() => string);
const textOf = (a: AddressOf): string => (typeof a === 'string' ? a : a());

/**
 * An authentication refused for its address: past its budget of failures before this attempt (whatever key it
 * presented), or by this very failure. `blocked` is the limiter's refusal (its window and Retry-After).
 */
export interface AuthBlocked<R> {
  ok: false;
  blocked: LimitDecision;
  /** the failed check whose count passed the budget; absent when the address was refused before */
  failed?: R;
}

/** Whether `authenticate` refused the address (else its answer is the key check's own). */
export const isAuthBlocked = <R>(r: R | AuthBlocked<R>): r is AuthBlocked<R> => (r as Partial<AuthBlocked<R>>).blocked !== undefined;

const ignore = () => undefined;

/** Past this many addresses that failed here, every call is looked up again (their set stays bounded). */
const MAX_SUSPECTS = 10_000;

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
  /** the addresses, as the transport gives them, that failed to authenticate here; undefined: look every call up */
  private suspects: Set<string> | undefined;
  /**
   * Their buckets: an address of one that never failed here shares its budget (another address of an IPv6 /64, an
   * IPv4 address written IPv4-mapped), so it is looked up too (else walking a /64, one guess per address, went unrefused)
   */
  private readonly buckets = new Set<string>();

  constructor(private readonly o: AuthFailureThrottleOptions) {
    // a limiter shared with other instances (Redis) may hold failures made elsewhere: every call is looked up. A
    // process's own limiter has an empty bucket for every address that never failed here, so only those that did
    // are, which keeps the lookup and the address parsing off the calls of everyone else
    this.suspects = o.limiter.shared ? undefined : new Set();
  }

  private bucketName(bucket: string): string {
    return `${this.o.bucket}:${bucket}`;
  }

  /**
   * One authentication from `address`: the key `check`'s own answer, or the refusal of an address past its budget of
   * failures, the right key included (a lucky guess reads as a wrong one). A check that fails counts against the
   * address unless nothing was `presented` (no guess: neither looked up nor counted).
   *
   * On the A2A endpoint's hot path: the budget's lookup runs beside the check (no added round trip) and only when
   * `gate` has one to make, so a good key from an address that never failed here waits for its check alone, plus
   * one `then`. The check comes with its `input` rather than as a closure over it: a closure made per call measured
   * about 0.6 us, the `then` about 0.09 us (docs/decisions.md).
   */
  authenticate<I, R extends { ok: boolean }>(address: AddressOf, presented: boolean, check: (input: I) => Promise<R>, input: I): Promise<R | AuthBlocked<R>> {
    if (!presented) return check(input);
    const gating = this.gate(address);
    if (gating === undefined) return check(input).then((r) => (r.ok ? r : this.counted(address, r)));
    // handled here so a failing lookup is no unhandled rejection while the key is checked; awaiting it still throws
    gating.catch(ignore);
    return check(input).then(async (r) => {
      const blocked = await gating;
      if (blocked) return { ok: false, blocked };
      return r.ok ? r : this.counted(address, r);
    });
  }

  /** A presented key's failed check, counted: the refusal when it passes the budget, else the check's answer. */
  private async counted<R>(address: AddressOf, r: R): Promise<R | AuthBlocked<R>> {
    const blocked = await this.failed(address);
    return blocked ? { ok: false, blocked, failed: r } : r;
  }

  /**
   * Before any key is checked: the refusing decision when the address is past its budget of failures (whatever it
   * presents now, so a guess that happens to be right answers the same as a wrong one), else undefined. Nothing to
   * wait for (undefined, not a promise) when the address has no failures to look up.
   */
  private gate(address: AddressOf): Promise<LimitDecision | undefined> | undefined {
    if (this.suspects?.size === 0) return undefined;
    const bucket = this.suspectBucket(textOf(address));
    if (bucket === undefined) return undefined;
    return this.o.limiter.peek(this.bucketName(bucket), this.o.limits).then((d) => (d.allowed ? undefined : d));
  }

  /** The bucket to look up for address `a`, or undefined when it can hold no failure made here. */
  private suspectBucket(a: string): string | undefined {
    if (!this.suspects || this.suspects.has(a)) return addressBucket(a);
    // an IPv4 address is its own bucket; only an IPv6 one (its text has a ':') is parsed to find its bucket
    if (this.buckets.has(a)) return a;
    if (!a.includes(':')) return undefined;
    const bucket = addressBucket(a);
    return this.buckets.has(bucket) ? bucket : undefined;
  }

  /** Counts one failed authentication of the address: the refusing decision when this one passes the budget. */
  private async failed(address: AddressOf): Promise<LimitDecision | undefined> {
    const a = textOf(address);
    const bucket = addressBucket(a);
    if (this.suspects) {
      this.suspects.add(a);
      this.buckets.add(bucket);
      if (this.suspects.size + this.buckets.size > MAX_SUSPECTS) this.suspects = undefined;
    }
    const d = await this.o.limiter.check(this.bucketName(bucket), this.o.limits);
    return d.allowed ? undefined : d;
  }
}
