// agents/list (agents.list) and agents/get (agents.read): the agents a key may reach, with their skills. A gateway extension.
import { z } from 'zod';
import type { AgentSpec } from '../../protocol/agent-events.js';
import { RpcError } from '../../protocol/errors.js';
import { parseParams } from '../../protocol/params.js';
import type { CallContext, GatewayParts } from '../context.js';

const AgentIdParams = z.object({ id: z.string().min(1) });

/** What a caller may know of an agent: never its entry, options or limits. */
const describe = (a: AgentSpec, baseUrl: string) => ({
  id: a.id,
  name: a.name,
  description: a.description,
  url: `${baseUrl}/api/a2a/agents/${encodeURIComponent(a.id)}`,
  default: a.default,
  skills: a.skills,
});

export async function listAgents(_params: unknown, ctx: CallContext, parts: GatewayParts) {
  return { agents: parts.agents.reachable(ctx.key).map((a) => describe(a, ctx.baseUrl)) };
}

export async function getAgent(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const p = parseParams(AgentIdParams, params);
  if (!parts.agents.canReach(ctx.key, p.id)) throw new RpcError('AGENT_NOT_FOUND', { message: `Agent not found: ${p.id}`, data: { id: p.id } });
  return describe(parts.agents.find(ctx.key.workspaceId, p.id)!.spec, ctx.baseUrl);
}
