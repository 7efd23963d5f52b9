// A remote's Retry-After (RFC 9110 §10.2.3) on a "not now" answer: read into the OutboundError, so that a poll waits
// at least as long as the remote asked (wait.ts bounds it by the call's deadline and a cap).
import type { IncomingHttpHeaders } from 'node:http';
import { OutboundError } from './types.js';

/**
 * The wait Retry-After asks for, in ms: delay-seconds, or an HTTP-date read against the response's own Date header (both
 * the remote's clock, so no skew between its clock and ours counts). Undefined when absent or unreadable.
 */
export function retryAfterMsOf(h: IncomingHttpHeaders): number | undefined {
  const raw = h['retry-after'];
  const v = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Math.min(Number(v), Number.MAX_SAFE_INTEGER / 1000) * 1000;
  const at = Date.parse(v);
  const sent = typeof h.date === 'string' ? Date.parse(h.date) : NaN;
  if (!Number.isFinite(at) || !Number.isFinite(sent)) return undefined;
  return Math.max(0, at - sent);
}

/** `e` with the wait the response asked for, when `e` is the failure of that non-2xx response. */
export function withRetryAfter(e: unknown, h: IncomingHttpHeaders): unknown {
  if (!(e instanceof OutboundError) || e.httpStatus === undefined || e.retryAfterMs !== undefined) return e;
  const retryAfterMs = retryAfterMsOf(h);
  if (retryAfterMs === undefined) return e;
  return new OutboundError(e.code, e.message, {
    httpStatus: e.httpStatus,
    retryAfterMs,
    ...(e.remoteCode !== undefined && { remoteCode: e.remoteCode }),
    ...(e.cause !== undefined && { cause: e.cause }),
  });
}
