// The caller as the routes hand it to the gateway: its network address (the connection's peer, or what the operator's
// trusted proxies, wired in main, make of the peer and its X-Forwarded-For) and whether it reached us over https (our
// own TLS, or a trusted proxy's X-Forwarded-Proto). X-Forwarded-* headers are read only with proxies configured.
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';

/** The operator's trusted proxies (setting trustedProxies), by shape: the transport imports nothing of the runtime. */
export interface Proxies {
  /** whether the connection's peer is one of them: only then are its X-Forwarded-* headers believed */
  trusts(peer: string): boolean;
  /** the client's address from the peer's and the X-Forwarded-For header's ('' when absent) */
  clientAddress(o: { peer: string; forwardedFor: string }): string;
}

/** The header, copied while `req` is valid (only when proxies will look at it: no cost otherwise). */
export const forwardedForOf = (req: HttpRequest, proxies: Proxies | undefined): string => (proxies ? req.getHeader('x-forwarded-for') : '');

/** The connection's peer address, as text. */
const peerOf = (res: HttpResponse): string => Buffer.from(res.getRemoteAddressAsText()).toString();

/** Only while the response is open (uWS's peer text is gone after an abort). */
export function addressOf(res: HttpResponse, forwardedFor: string, proxies: Proxies | undefined): string {
  const peer = peerOf(res);
  return proxies ? proxies.clientAddress({ peer, forwardedFor }) : peer;
}

/**
 * Whether the client reached us over https: served over our own TLS, or a trusted proxy says `X-Forwarded-Proto:
 * https`. From any other peer the header is not read (a caller cannot have its session cookie marked Secure over
 * plain HTTP, or the URLs we hand out switched to https). Synchronously only, while `req` and `res` are valid; the
 * peer is read only when a trusted proxy could have sent the header (no cost on the default path).
 */
export function httpsOf(req: HttpRequest, res: HttpResponse, o: { tls: boolean; proxies: Proxies | undefined }): boolean {
  if (o.tls) return true;
  if (!o.proxies || req.getHeader('x-forwarded-proto') !== 'https') return false;
  return o.proxies.trusts(peerOf(res));
}
