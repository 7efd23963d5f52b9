// An error as the operator reads it: what happened in a few plain words (the raw text stays beside it, as details).
const RULES: Array<[RegExp, string]> = [
  [/refused the relay's key|HTTP 40[13]|key lapsed/i, "the gateway refused the relay's key: check that the relay is registered for this key and workspace"],
  [/gateway shutting down|close 1001/i, 'the gateway shut down (a restart or a deploy)'],
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
];

/** A plain phrase for a known failure, else the text itself (shortened). */
export function plainWords(error: string | undefined): string | undefined {
  if (error === undefined) return undefined;
  for (const [re, words] of RULES) if (re.test(error)) return words;
  return error.length > 200 ? `${error.slice(0, 200)}…` : error;
}
