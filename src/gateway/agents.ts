// The agent directory: which agents a workspace and a key may reach, and which one a request addresses.
import type { AgentSpec } from '../protocol/agent-events.js';
import { RpcError } from '../protocol/errors.js';
import type { KeyRecord } from '../protocol/records.js';

export interface AgentChoice {
  urlAgentId: string | undefined;
  metadata: Record<string, unknown> | undefined;
}

export class AgentDirectory {
  private readonly byId: Map<string, AgentSpec>;

  constructor(readonly specs: readonly AgentSpec[]) {
    this.byId = new Map(specs.map((s) => [s.id, s]));
  }

  get(id: string): AgentSpec | undefined {
    return this.byId.get(id);
  }

  /** Agents of the key's workspace (or serving every workspace) that the key is allowed. */
  reachable(key: KeyRecord): AgentSpec[] {
    return this.specs.filter((s) => this.canReach(key, s.id));
  }

  canReach(key: KeyRecord, agentId: string): boolean {
    const s = this.byId.get(agentId);
    if (!s) return false;
    if (s.workspace !== '*' && s.workspace !== key.workspaceId) return false;
    return key.agents.length === 0 || key.agents.includes(agentId);
  }

  /** The URL's agent, else metadata.agentId, else the agent with metadata.skillId, else the only or default one. */
  choose(key: KeyRecord, c: AgentChoice): AgentSpec {
    const notFound = (what: string) => new RpcError('AGENT_NOT_FOUND', { message: `No agent matches the request: ${what}` });
    const pick = (id: string, what: string) => {
      if (!this.canReach(key, id)) throw notFound(what);
      return this.byId.get(id)!;
    };
    if (c.urlAgentId !== undefined) return pick(c.urlAgentId, `agent '${c.urlAgentId}'`);
    const agentId = c.metadata?.agentId;
    if (typeof agentId === 'string') return pick(agentId, `agent '${agentId}'`);
    const reachable = this.reachable(key);
    const skillId = c.metadata?.skillId;
    if (typeof skillId === 'string') {
      const bySkill = reachable.find((s) => s.skills.some((k) => k.id === skillId));
      if (!bySkill) throw notFound(`skill '${skillId}'`);
      return bySkill;
    }
    if (reachable.length === 1) return reachable[0]!;
    const dflt = reachable.find((s) => s.default);
    if (dflt) return dflt;
    throw notFound('name one with metadata.agentId or metadata.skillId');
  }
}
