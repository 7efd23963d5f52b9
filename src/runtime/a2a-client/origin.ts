// Where a call may go with the endpoint's credentials: the JSON-RPC endpoint a remote's card names must be on the
// origin of the URL the operator configured, or on one the operator allowed for it. A card is the remote's to write
// (or a compromised host's): followed anywhere, it would collect our bearer token, API key, OAuth token or client
// certificate for whoever it names (docs/decisions.md).
import { OutboundError, type RemoteEndpoint } from './types.js';

const originOf = (url: string): string => new URL(url).origin;

/** Throws `origin_refused` when a call to `rpcUrl` (the card's endpoint) would carry `endpoint`'s credentials elsewhere. */
export function checkCallOrigin(endpoint: RemoteEndpoint, rpcUrl: string): void {
  // no credentials, nothing to collect: where the card points is the remote's business (and the SSRF guard's)
  if (endpoint.credentials.kind === 'none') return;
  const own = originOf(endpoint.url);
  const target = originOf(rpcUrl);
  if (target === own || endpoint.allowedOrigins?.includes(target)) return;
  const who = endpoint.name === undefined ? `the endpoint ${endpoint.url}` : `connection '${endpoint.name}'`;
  const hint = endpoint.name === undefined ? '' : ` (to call it anyway: connections update ${endpoint.name} --allow-origins ${target.slice(0, 2048)})`;
  throw new OutboundError(
    'origin_refused',
    `the remote's Agent Card names url '${rpcUrl.slice(0, 2048)}', on another origin than ${own}, where ${who} sends its ${endpoint.credentials.kind} credentials: nothing was sent${hint}`,
  );
}
