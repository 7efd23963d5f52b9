// Relay connections (issue 9): the record an operator registers per workspace, and what the gateway keeps of each agent
// a relay announced (trust and which keys may reach it), kept across reconnects. Schemas only.
import { z } from 'zod';
import { ConnectionName } from './connections.js';
import { TrustLevel } from './scopes.js';
import { RelayAgentCard } from './tunnel.js';

/** A newly announced agent's trust level (README "Relay"): callers may get and send, not cancel or stream. */
export const DEFAULT_RELAY_AGENT_TRUST = 'execute' satisfies TrustLevel;

/** What the gateway keeps of one agent a relay announced. */
export const RelayAgentRecord = z.object({
  trust: TrustLevel.default(DEFAULT_RELAY_AGENT_TRUST),
  /** key ids that may reach the agent; empty means every key of the workspace */
  keys: z.array(z.string().min(1)).default([]),
  /** its card as last announced (listed while the relay is away) */
  card: RelayAgentCard.optional(),
});
export type RelayAgentRecord = z.infer<typeof RelayAgentRecord>;

export const RelayRecord = z.object({
  id: z.string().min(1),
  workspace: z.string().min(1),
  name: ConnectionName,
  /** the one key that may open this relay's tunnel */
  keyId: z.string().min(1),
  /** by agent name (its agent id in the workspace) */
  agents: z.record(z.string(), RelayAgentRecord).default({}),
  createdAt: z.number().int().nonnegative(),
  updatedAt: z.number().int().nonnegative(),
});
export type RelayRecord = z.infer<typeof RelayRecord>;
