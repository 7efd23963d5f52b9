// The caller's network address as the routes hand it to the gateway: the connection's peer, or what the operator's
// reader (trusted proxies, wired in main) makes of the peer and its X-Forwarded-For.
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';

/** reads the client's address from the peer's and the X-Forwarded-For header's ('' when absent) */
export type ClientAddress = (o: { peer: string; forwardedFor: string }) => string;

/** The header, copied while `req` is valid (only when a reader will look at it: no cost otherwise). */
export const forwardedForOf = (req: HttpRequest, read: ClientAddress | undefined): string => (read ? req.getHeader('x-forwarded-for') : '');

/** Only while the response is open (uWS's peer text is gone after an abort). */
export function addressOf(res: HttpResponse, forwardedFor: string, read: ClientAddress | undefined): string {
  const peer = Buffer.from(res.getRemoteAddressAsText()).toString();
  return read ? read({ peer, forwardedFor }) : peer;
}
