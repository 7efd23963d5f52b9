// Request headers the gateway reads as one value, refused when given more than once. uWS's getHeader reads the first
// line; a proxy, firewall or log in front may read the last (or join them), so two Authorization, A2A-Version or
// Content-Length lines would be one request to it and another to us. None of these is a list field (RFC 9110 §5.3:
// a sender does not repeat them), so no client that follows HTTP sends them twice.
import type { HttpRequest } from 'uWebSockets.js';

/** The JSON-RPC route's single-valued headers, by uWS's lower-case name, with the name an error shows. */
export const RPC_SINGLE_HEADERS: ReadonlyMap<string, string> = new Map([
  ['authorization', 'Authorization'],
  ['a2a-version', 'A2A-Version'],
  ['last-event-id', 'Last-Event-ID'],
  ['content-length', 'Content-Length'],
  ['host', 'Host'],
  ['x-request-id', 'X-Request-Id'],
]);

/** The cached card routes read only Host: a cache in front may key on one Host line while uWS hands us the other. */
export const CARD_SINGLE_HEADERS: ReadonlyMap<string, string> = new Map([['host', 'Host']]);

/** The first of `names` given on more than one line (its shown name), or undefined: one walk over the headers. */
export function repeatedHeader(req: HttpRequest, names: ReadonlyMap<string, string>): string | undefined {
  const seen = new Set<string>();
  let repeated: string | undefined;
  req.forEach((k) => {
    if (repeated !== undefined || !names.has(k)) return;
    if (seen.has(k)) repeated = names.get(k);
    else seen.add(k);
  });
  return repeated;
}
