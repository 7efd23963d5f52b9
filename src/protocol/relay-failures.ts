// What callers are told when a relay turn fails: a fixed reason and text for each failure a relay may report. The
// relay's own words (its local agent's error message, stack traces, local URLs and hosts) never leave the relay:
// it logs them for its operator and sends only these; the gateway maps what it receives again, whatever the relay.
export const RELAY_FAILURES = {
  local_agent_error: 'The local agent behind the relay failed the turn',
  local_agent_timeout: 'The local agent behind the relay did not answer in time',
  local_agent_unreachable: 'The relay could not reach its local agent',
  local_agent_unauthorized: "The local agent refused the relay's credentials",
  local_agent_bad_response: 'The local agent gave an answer that is not valid A2A',
  local_agent_card_invalid: "The local agent's card could not be read",
  local_agent_canceled: 'The local agent canceled its task',
  event_too_large: 'An event of the local agent was too large for the tunnel',
  tunnel_backlog: "The relay's tunnel fell too far behind the local agent's output",
  unknown_agent: 'The relay does not serve this agent',
  canceled: 'The turn was canceled',
} as const;

export type RelayFailureReason = keyof typeof RELAY_FAILURES;

/** A reported failure as callers see it: a known reason with its fixed text; anything else is `local_agent_error`. */
export function relayFailure(reason: string): { reason: RelayFailureReason; message: string } {
  const known = Object.hasOwn(RELAY_FAILURES, reason) ? (reason as RelayFailureReason) : 'local_agent_error';
  return { reason: known, message: RELAY_FAILURES[known] };
}
