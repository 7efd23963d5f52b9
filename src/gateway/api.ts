// The one interface the transport calls: HTTP-shaped in, HTTP-shaped out; it knows nothing else of the gateway.

export interface RpcHttpRequest {
  body: Buffer;
  authorization: string | undefined;
  a2aVersion: string | undefined;
  lastEventId: string | undefined;
  /** from POST /api/a2a/agents/{agentId} */
  agentId: string | undefined;
  /** scheme://host[:port] as the caller reached us */
  baseUrl: string;
  /** the caller's X-Request-Id, kept when it is a sane token; else the gateway makes one */
  requestId?: string;
  /**
   * the peer's IP address as text (the connection's): failed authentications are counted per address. Read only when
   * needed: formatting it costs a few µs, and most calls never need it
   */
  address: () => string;
}

export interface JsonReply {
  kind: 'json';
  status: number;
  headers: Record<string, string>;
  /** already serialized and sanitized */
  body: string;
}

/** One SSE event: `id:` line (optional) and one `data:` line of serialized, sanitized JSON. */
export interface SseEvent {
  id?: string;
  data: string;
}

/**
 * One event that many streams send alike but for a piece of their own (a JSON-RPC response's id): its data is
 * `head + own + tail`. The transport frames the shared parts once for all the streams it is handed to (by identity:
 * hand every stream the same object, and never change it).
 */
export interface SharedSseEvent {
  readonly id: string;
  readonly head: string;
  readonly tail: string;
}

/** Where a stream writes; `event` returns false when the client fell too far behind (the stream must then end). */
export interface SseSink {
  event(ev: SseEvent): boolean;
  /** as `event({ id, data: head + own + tail })`; `own` is the same text for every event of one stream */
  sharedEvent(ev: SharedSseEvent, own: string): boolean;
  comment(text: string): void;
  /** bytes queued for a slow reader */
  backlog(): number;
  /** resolves when the reader has taken everything queued (or went away): replays wait on it */
  drained(): Promise<void>;
  /** ends the stream, after writing `last` (even past the buffer limit: one small closing event) */
  end(last?: SseEvent): void;
}

export interface StreamReply {
  kind: 'stream';
  headers: Record<string, string>;
  /** starts the stream into `sink`; returns a function the transport calls when the client goes away */
  start(sink: SseSink): () => void;
  /** the transport calls this instead of `start` when the client went away before the stream opened (frees its slot) */
  abandon?(): void;
}

export type HttpReply = JsonReply | StreamReply;

export interface CardRequest {
  agentId: string | undefined;
  /** scheme://host[:port] as the caller reached us (or the configured public URL) */
  baseUrl: string;
}

export interface GatewayApi {
  rpc(req: RpcHttpRequest): Promise<HttpReply>;
  /** the public Agent Card, or undefined when no such listed agent exists */
  card(req: CardRequest): Record<string, unknown> | undefined;
  health(): { ok: boolean };
  ready(): Promise<{ ok: boolean; detail?: string }>;
  /** the Prometheus exposition for GET /metrics (absent: metrics are off and /metrics is 404) */
  metrics?(): Promise<{ contentType: string; body: string }>;
  readonly maxBodyBytes: number;
  /** the relay tunnel endpoint, when relays are served */
  readonly tunnel?: TunnelApi;
  /** the dashboard and its JSON admin API (GET /dashboard..., any method on /api/admin/...) */
  readonly admin?: AdminApi;
}

/** One request to the dashboard or the admin API, copied from the uWS request before any await. */
export interface AdminHttpRequest {
  /** upper case: GET, POST, PATCH, DELETE, ... */
  method: string;
  /** the URL path, e.g. /api/admin/keys/key_1/revoke */
  path: string;
  /** the query string without '?' */
  query: string;
  authorization: string | undefined;
  cookie: string | undefined;
  /** the X-CSRF-Token header */
  csrf: string | undefined;
  contentType: string | undefined;
  body: Buffer;
  /** the caller reached us over TLS (directly, or X-Forwarded-Proto: https): session cookies are Secure */
  tls: boolean;
  /** the peer's IP address as text (the connection's; a proxy's own when one stands in front) */
  address: string;
}

/** The dashboard's pages and assets, and the JSON admin API behind them (a `json` reply may carry another content type). */
export interface AdminApi {
  handle(req: AdminHttpRequest): Promise<HttpReply>;
  /**
   * A reply the transport makes on these routes itself (a body too large or too slow, a failure of its own), in the
   * admin API's form: `{error, message}` with the headers every admin reply carries (no-store, the security headers).
   */
  refusal(o: { status: number; error: string; message: string }): JsonReply;
  readonly maxBodyBytes: number;
}

/** The relay tunnel's socket as the gateway sees it (the transport owns the WebSocket). */
export interface TunnelSocket {
  /** one binary frame; false when it was not sent (the socket is closing) */
  send(bytes: Uint8Array): boolean;
  ping(): void;
  /** bytes queued for a slow relay */
  buffered(): number;
  close(code: number, reason: string): void;
}

/** One accepted tunnel: the transport attaches its socket on open, passes every frame in, and says when it closed. */
export interface TunnelSession {
  attach(socket: TunnelSocket): void;
  message(bytes: Uint8Array, binary: boolean): void;
  /** the relay answered a ping */
  pong(): void;
  /** `code` 1009: a frame past the size bound (the transport refused it) */
  closed(code: number): void;
}

export type TunnelOpen =
  | { ok: true; session: TunnelSession }
  | { ok: false; status: 401 | 403; message: string }
  /** the address is past its budget of failed authentications (429), or the store cannot be reached (503): `headers` carry Retry-After */
  | { ok: false; status: 429 | 503; message: string; headers: Record<string, string> };

/** The tunnel endpoint (GET /api/relay, WebSocket upgrade): decides the upgrade from the Authorization header. */
export interface TunnelApi {
  open(req: { authorization: string | undefined /** the peer's IP address as text */; address: string }): Promise<TunnelOpen>;
}
