// The admin HTTP server's own bounds, beyond Node's defaults: how long a client may take to send its headers and its
// request, how long an idle keep-alive connection is held, how many connections are open at once, and how large a
// POST body is read. One place so that README and docs/decisions.md ("Relay admin UI: the HTTP server's bounds") name
// the same numbers.

export interface AdminHttpLimits {
  /** the whole header block must arrive within this (a slow-header client holds a socket for no more) */
  headersTimeoutMs: number;
  /** the whole request, body included, within this; a live stream's answer is not bounded by it */
  requestTimeoutMs: number;
  /** an idle keep-alive connection is closed after this */
  keepAliveTimeoutMs: number;
  /** how often Node checks the two timeouts above (its default, 30 s, lets a 10 s bound last up to 40 s) */
  checkIntervalMs: number;
  /** connections open at once; past it a new one is closed unanswered (64 live streams fit with room for the rest) */
  maxConnections: number;
  /** a POST's body (the login form, a replay's JSON); past it the answer is 413 `body_too_large` */
  maxBodyBytes: number;
}

export const ADMIN_HTTP_DEFAULTS: AdminHttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
  maxConnections: 256,
  maxBodyBytes: 4096,
};
