// The Host header as a base URL's authority: only a plain `host[:port]` is taken, anything else is refused (400).
//
// Without `publicUrl` the gateway builds the URLs it hands out (Agent Cards, agents/list) from the caller's Host. A
// Host carrying quotes, slashes, spaces, `@` or other authority syntax would flow into those URLs (and into a card
// served with `Cache-Control: public`), so it is refused as RFC 9112 §3.2 asks of an invalid Host. So is a request with
// two Host lines on the cached card routes: a cache in front may key on one while uWS hands us the other.
/** A DNS name or IPv4 address (253 characters at most), or a bracketed IPv6 literal; then an optional port. */
const HOST = /^(?:[A-Za-z0-9._-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::(\d{1,5}))?$/;

export type HostOf = { ok: true; host: string } | { ok: false; message: string };

/** The Host header checked. uWS closes a request without one before any route runs; an empty one is refused here. */
export function hostOf(header: string): HostOf {
  const m = HOST.exec(header);
  if (m && (m[1] === undefined || Number(m[1]) <= 65535)) return { ok: true, host: header };
  return { ok: false, message: 'Bad request: the Host header is not a valid host[:port]' };
}

export const TWO_HOSTS = 'Bad request: more than one Host header';
