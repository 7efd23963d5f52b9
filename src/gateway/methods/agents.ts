// agents/list (agents.list) and agents/get (agents.read): the agents a key may reach, with their skills. A gateway extension.
import { z } from 'zod';
import type { AgentSpec } from '../../protocol/agent-events.js';
import { RpcError } from '../../protocol/errors.js';
import { parseParams } from '../../protocol/params.js';
import { callerHealth } from '../../protocol/tunnel.js';
import { agentUrl } from '../card.js';
import type { CallContext, GatewayParts } from '../context.js';

const AgentIdParams = z.object({ id: z.string().min(1) });

/** What a caller may know of an agent: never its entry, options or limits. A relay agent says whether its relay is there. */
const describe = (a: AgentSpec, baseUrl: string, parts: GatewayParts) => ({
  id: a.id,
  name: a.name,
  description: a.description,
  url: agentUrl(baseUrl, a.id),
  default: a.default,
  skills: a.skills,
  ...(a.kind === 'relay' ? relayState(a, parts) : {}),
});

/**
 * Whether its relay is there and, while it is, its local agent's last reported health: a down check's kind, not the
 * relay's text of it (local hosts, ports, paths are the operator's, whom the dashboard shows them).
 */
const relayState = (a: AgentSpec, parts: GatewayParts) => {
  const health = parts.agents.health(a.workspace, a.id);
  return { kind: 'relay', online: parts.agents.online(a.workspace, a.id), ...(health && { health: callerHealth(health) }) };
};

export async function listAgents(_params: unknown, ctx: CallContext, parts: GatewayParts) {
  return { agents: parts.agents.reachable(ctx.key).map((a) => describe(a, ctx.baseUrl, parts)) };
}

export async function getAgent(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const p = parseParams(AgentIdParams, params);
  if (!parts.agents.canReach(ctx.key, p.id)) throw new RpcError('AGENT_NOT_FOUND', { message: `Agent not found: ${p.id}`, data: { id: p.id } });
  return describe(parts.agents.find(ctx.key.workspaceId, p.id)!.spec, ctx.baseUrl, parts);
}
