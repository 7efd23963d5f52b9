// The A2A client's contract: what the remote runner, `ctx.call`, `a2a-gateway call` and the relay ask of a remote agent.
import type { Credentials, RemoteEvent, RemoteTask } from '../../protocol/connections.js';
import type { Dialect, Message } from '../../protocol/model.js';

/** Where a remote agent is and how to prove who we are to it. */
/** A value: never changed in place (the client keeps what it works out of one per object). */
export interface RemoteEndpoint {
  /** the remote's base URL (its card is under `/.well-known/`) */
  readonly url: string;
  readonly credentials: Credentials;
  /** force a dialect instead of reading it from the card */
  readonly dialect?: Dialect;
  /** origins besides the URL's own that the card may name for its JSON-RPC endpoint (origin.ts) */
  readonly allowedOrigins?: readonly string[];
  /** what errors call the endpoint (a connection's name) */
  readonly name?: string;
}

/** The parts of a remote Agent Card the client relies on, read leniently from either dialect's card. */
export interface RemoteCard {
  name: string;
  description: string;
  /** the JSON-RPC endpoint the card names */
  url: string;
  version: string;
  streaming: boolean;
  /** the card as received (validated), for display */
  raw: Record<string, unknown>;
}

/** A card with the dialect the client will speak to its agent. */
export interface Discovered {
  card: RemoteCard;
  dialect: Dialect;
}

/** What a remote task streams (its schema is in src/protocol, so a worker's `ctx.call` can use it too). */
export type { RemoteEvent } from '../../protocol/connections.js';

export interface SendOptions {
  endpoint: RemoteEndpoint;
  /** the message in the internal model (the client encodes it in the remote's dialect) */
  message: Message;
  /** continue this remote task (a follow-up to `input-required`) */
  taskId?: string;
  contextId?: string;
  /** use the remote's streaming method (only when its card offers streaming) */
  stream?: boolean;
  /** each event as it arrives (streaming, or each poll that changed something) */
  onEvent?: (ev: RemoteEvent) => void;
  /** aborting cancels the remote task (best effort, unless cancelRemote is false) and rejects with an OutboundError of code 'canceled' */
  signal?: AbortSignal;
  /**
   * false: the remote answers at once and the client polls (rev B; the task id is then known from the start, so an abort
   * can cancel it); default: the client's `blocking` setting
   */
  blocking?: boolean;
  /** false: an abort only stops waiting, the remote task runs on (the connection's trust level does not allow cancel) */
  cancelRemote?: boolean;
  /** overall deadline for the whole send-and-wait; default: the client's */
  timeoutMs?: number;
}

/** Every failure of an outbound call, with a stable code (the connection actor counts some of them against the circuit). */
export type OutboundErrorCode =
  /** the URL or an address it resolves to is refused by the SSRF guard */
  | 'url_refused'
  /** no card at either well-known path, or a card that does not validate */
  | 'card_invalid'
  /**
   * nothing answered: refused connection, a name that does not resolve, TLS failure, a connection reset or broken off;
   * also a call refused while its connection backs off from a card read that met one of these
   */
  | 'unreachable'
  /** the remote answered 401/403 (after one OAuth refresh) */
  | 'unauthorized'
  /** the remote answered a JSON-RPC error; `remoteCode` has its code */
  | 'remote_error'
  /** the remote answered something that is not a valid JSON-RPC response or task */
  | 'bad_response'
  /** the overall timeout passed */
  | 'timeout'
  /** our side canceled (the remote task was asked to cancel) */
  | 'canceled'
  /** the OAuth token endpoint refused or failed */
  | 'token_failed'
  /** the card names a JSON-RPC endpoint on another origin than the endpoint's, not allowed: nothing was sent there */
  | 'origin_refused'
  // refusals of the connection layer, before anything leaves:
  /** no connection of that name in the workspace */
  | 'no_connection'
  /** the connection does not name the calling agent in its agents */
  | 'not_permitted'
  /** the connection's trust level does not allow the operation (get, send, cancel, stream) */
  | 'trust_refused'
  /** the message has a part of a category the connection's allowed_data_types leaves out */
  | 'data_type_refused'
  /** the remote failed too often: calls are refused until a probe finds it well again */
  | 'circuit_open'
  /**
   * the connection takes no calls now, nothing was sent: it backs off from a card read the remote answered with a
   * failure (HTTP 503, 401, a card that does not validate; a timeout), it was stopped, or it is still discovering
   */
  | 'unavailable';

/**
 * How much of a remote's own words an OutboundError quotes (a JSON-RPC error's message, a token endpoint's
 * error_description): the error becomes our caller's failed task's message (stored, shown on every read) or a module
 * agent's error, and a remote may send megabytes of it.
 */
export const MAX_REMOTE_ERROR = 1_000;

export class OutboundError extends Error {
  readonly code: OutboundErrorCode;
  readonly remoteCode: number | undefined;
  /** the HTTP status the remote answered with, when a non-2xx status is what failed the call */
  readonly httpStatus: number | undefined;
  /** how long the remote asked us to wait before asking again (its Retry-After), with httpStatus */
  readonly retryAfterMs: number | undefined;
  constructor(code: OutboundErrorCode, message: string, o: { remoteCode?: number; httpStatus?: number; retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, o.cause === undefined ? undefined : { cause: o.cause });
    this.name = 'OutboundError';
    this.code = code;
    this.remoteCode = o.remoteCode;
    this.httpStatus = o.httpStatus;
    this.retryAfterMs = o.retryAfterMs;
  }
}

/** Failures that say the remote is unwell (they count against its circuit); the others are the caller's or the task's. */
export const isRemoteFault = (e: unknown): boolean =>
  e instanceof OutboundError && (e.code === 'unreachable' || e.code === 'bad_response' || e.code === 'card_invalid' || e.code === 'timeout');

export interface A2AClient {
  /** the remote's card and dialect, from the cache while fresh (revalidated with ETag when stale) */
  discover(endpoint: RemoteEndpoint, o?: { signal?: AbortSignal; fresh?: boolean }): Promise<Discovered>;
  /** sends a message and waits for the task to settle (terminal or input-required): blocking answer, SSE, or polling */
  send(o: SendOptions): Promise<RemoteTask>;
  get(o: { endpoint: RemoteEndpoint; taskId: string; historyLength?: number; signal?: AbortSignal }): Promise<RemoteTask>;
  cancel(o: { endpoint: RemoteEndpoint; taskId: string; signal?: AbortSignal }): Promise<RemoteTask>;
  /** forgets cached cards, tokens and kept-alive sockets of this endpoint (its connection changed or went) */
  forget(endpoint: RemoteEndpoint): void;
  close(): Promise<void>;
}
