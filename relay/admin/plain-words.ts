// An error as the operator reads it: what happened in a few plain words (the raw text stays beside it, as details).
// First match wins: the specific before the general. Every reason of relay/reasons.ts has an entry here
// (test/relay/plain-words.test.ts enumerates them), as do the gateway's close codes (TUNNEL_CLOSE).
const RULES: Array<[RegExp, string]> = [
  [
    /refused the relay's key|HTTP 40[13]|key lapsed|close 4001/i,
    "the gateway refused the relay's key: check that the relay is registered for this key and workspace",
  ],
  [/^the relay is stopping/, 'the relay was stopped here'],
  [/^the tunnel crashed/, 'a fault in the relay ended the tunnel; it was restarted and reconnects'],
  [/^no welcome from the gateway/, 'the gateway took the connection but never answered the hello (a stuck gateway, or a proxy that forwards nothing)'],
  [/store unavailable/i, 'the gateway could not store the relay for now (its store is down); the relay retries'],
  [/close 4000/, 'another tunnel of this relay took over (a second relay running with the same key, or a quick reconnect)'],
  [/close 4002/, 'the gateway heard no pong from the relay in time (a stalled link, or this machine was too busy)'],
  [/gateway shutting down|close 1001/i, 'the gateway shut down (a restart or a deploy)'],
  [/^the gateway said: relay .* was removed|relay removed/i, 'the relay was removed from its workspace at the gateway'],
  [
    /close 1002|close 1009|^the gateway said:|Invalid WebSocket frame|Max payload size/i,
    'the relay and the gateway disagree on the protocol (versions?); the details say what',
  ],
  [/close 1008/, 'the gateway closed the tunnel by its policy (the relay was changed or removed there)'],
  [/no pong/i, 'the gateway stopped answering pings'],
  [/ECONNREFUSED/, 'nothing answers at that address (connection refused)'],
  [/ENOTFOUND|EAI_AGAIN/, 'the host name does not resolve'],
  [/ECONNRESET|socket hang up|EPIPE/i, 'the connection was cut'],
  [/ETIMEDOUT|timed out|timeout/i, 'no answer in time'],
  [/certificate|self[- ]signed|CERT_/i, "the server's TLS certificate is not trusted (see ca_file)"],
  [/EHOSTUNREACH|ENETUNREACH/, 'the network cannot reach that host'],
  [/HTTP 429/, 'the gateway turned the relay away for a while (too many requests or failed sign-ins from this address)'],
  [/HTTP 503/, 'the gateway is unavailable for now (HTTP 503)'],
  [/HTTP 5\d\d/, 'the server failed (HTTP 5xx)'],
  [/answered the upgrade with HTTP 4\d\d/, 'no relay endpoint answered there (HTTP 4xx): check gateway_url'],
  [/^the tunnel closed/, 'the connection to the gateway ended without a reason (a network cut, or a proxy timing it out)'],
];

/** A plain phrase for a known failure, else the text itself (shortened). */
export function plainWords(error: string | undefined): string | undefined {
  if (error === undefined) return undefined;
  for (const [re, words] of RULES) if (re.test(error)) return words;
  return error.length > 200 ? `${error.slice(0, 200)}…` : error;
}
