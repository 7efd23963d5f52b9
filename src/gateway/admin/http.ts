// The admin API's replies and errors: JSON with no-store and the security headers every dashboard response carries.
import { ERRORS } from '../../protocol/errors.js';
import type { JsonReply } from '../api.js';

/** A strict CSP: scripts, styles and fetches from this origin only; no inline script or style, no framing. */
export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

export class AdminError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'AdminError';
  }
}

/**
 * 429: a budget is spent; its headers (Retry-After, RateLimit-*) say when to come back. `details` go into the body
 * beside error and message (a bound's `limit` and `setting`).
 */
export class AdminRateLimited extends AdminError {
  constructor(
    message: string,
    readonly headers: Record<string, string>,
    readonly details: Record<string, unknown> = {},
  ) {
    super(429, 'rate_limited', message);
    this.name = 'AdminRateLimited';
  }
}

/** 503: the store (or Redis) cannot be reached now; the same answer and message as the A2A endpoint's outage error. */
export class AdminStoreUnavailable extends AdminError {
  readonly headers = { 'Retry-After': '1' };
  constructor() {
    super(ERRORS.STORE_UNAVAILABLE.http, 'store_unavailable', ERRORS.STORE_UNAVAILABLE.message);
    this.name = 'AdminStoreUnavailable';
  }
}

export const notFound = (what: string) => new AdminError(404, 'not_found', what);
export const badInput = (message: string, field?: string) => new AdminError(400, 'invalid_input', message, field);

export function json(status: number, value: unknown, headers: Record<string, string> = {}): JsonReply {
  return {
    kind: 'json',
    status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...SECURITY_HEADERS, ...headers },
    body: JSON.stringify(value),
  };
}

export const errorReply = (e: AdminError): JsonReply =>
  json(
    e.status,
    { ...(e instanceof AdminRateLimited && e.details), error: e.code, message: e.message, ...(e.field && { field: e.field }) },
    e instanceof AdminRateLimited || e instanceof AdminStoreUnavailable ? e.headers : {},
  );
