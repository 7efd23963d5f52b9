// The A2A client's tunable numbers, with their defaults (docs/decisions.md, "Client mode: the A2A client", says why).
import { z } from 'zod';

const Ms = z.number().int().positive();
const Count = z.number().int().positive();

export const A2AClientSettings = z.object({
  /** how long a card is fresh when its response says nothing (no Cache-Control max-age) */
  defaultCardTtlMs: Ms.default(5 * 60_000),
  /** the longest a remote's own Cache-Control max-age keeps a card fresh (a year's max-age would outlive every change) */
  maxCardTtlMs: Ms.default(60 * 60_000),
  /** overall deadline of one send-and-wait (SendOptions.timeoutMs overrides it per call) */
  timeoutMs: Ms.default(5 * 60_000),
  /** deadline of one request that does not wait for a task (card, token, get, cancel) */
  requestTimeoutMs: Ms.default(30_000),
  /** polling tasks/get: the first wait, doubled after each poll up to pollMaxMs (equal jitter) */
  pollBaseMs: Ms.default(500),
  pollMaxMs: Ms.default(5_000),
  /** a poll answered "not now" with Retry-After waits as asked, up to this; a longer ask fails the call at once */
  pollRetryAfterMaxMs: Ms.default(5 * 60_000),
  /** an OAuth token is renewed this long before it expires (at most half its lifetime before) */
  tokenRefreshMarginMs: Ms.default(30_000),
  /** the largest response body read (a card, a token, a JSON-RPC answer, one SSE event) */
  maxResponseBytes: Count.default(8 * 1024 * 1024),
  /** rev B sends ask the remote to answer once the task settles; false: answer at once, then poll */
  blocking: z.boolean().default(true),
  /**
   * idle kept-alive sockets per endpoint and host. At least the calls in flight to one endpoint: a smaller pool closes
   * a socket after each call past it and opens a new one for the next (a relay's 64 turns through one tunnel spent its
   * CPU on connect and close with 16). Node's own default; an idle socket goes after IDLE_SOCKET_MS anyway.
   */
  maxFreeSockets: Count.default(256),
});
export type A2AClientSettings = z.infer<typeof A2AClientSettings>;
export type A2AClientSettingsInput = z.input<typeof A2AClientSettings>;
