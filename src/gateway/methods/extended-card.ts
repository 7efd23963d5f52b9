// The authenticated extended card (agent/getAuthenticatedExtendedCard, GetExtendedAgentCard) describes the interface
// it was asked on, as the public card there does: the service on /api/a2a (every agent the key reaches), one agent on
// /api/a2a/agents/{id} (its URL, name, description and skills), both at the URL callers reach (publicUrl).
import { agentCardInput } from '../card.js';
import type { CallContext, GatewayParts } from '../context.js';

export function extendedCardInput(ctx: CallContext, parts: GatewayParts) {
  if (ctx.urlAgentId === undefined) return { settings: parts.card, agents: parts.agents.reachable(ctx.key), url: `${ctx.baseUrl}/api/a2a` };
  // an agent the key cannot reach is not found, as a send to that path is (the same error, naming the agent)
  const agent = parts.agents.choose(ctx.key, { urlAgentId: ctx.urlAgentId, metadata: undefined });
  return agentCardInput({ settings: parts.card, agent, baseUrl: ctx.baseUrl });
}
