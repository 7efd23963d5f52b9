// The agent registry: every agent the gateway can run, per workspace, each with the runner of its kind; changes at runtime.
import type { AgentEvent, AgentRunResult, AgentSpec } from '../../protocol/agent-events.js';
import { RpcError } from '../../protocol/errors.js';
import { echoed } from '../../protocol/one-line.js';
import type { Message, Task } from '../../protocol/model.js';
import type { KeyRecord } from '../../protocol/records.js';
import type { Scope } from '../../protocol/scopes.js';
import type { RelayAgentHealth } from '../../protocol/tunnel.js';
import type { TurnSignal } from './turn-signal.js';
import { copyWith } from '../../protocol/copy-with.js';

/** One turn of a task, as a runner gets it. */
export interface AgentTurn {
  agent: AgentSpec;
  task: Task;
  message: Message;
  signal: TurnSignal;
  onEvent: (ev: AgentEvent) => void;
}

/**
 * Where an agent's turns run: the worker pool (builtin and module agents), an outbound connection (remote agents),
 * a relay tunnel (relay agents). Never rejects: a failure is a result with its reason.
 */
export interface AgentRunner {
  run(turn: AgentTurn): Promise<AgentRunResult>;
}

export interface AgentEntry {
  spec: AgentSpec;
  runner: AgentRunner;
  /** a further check of the keys that may reach it (a relay agent's permissions), beside the key's own agent list */
  reach?: (key: KeyRecord) => boolean;
  /** whether it can take a turn now (a relay agent whose relay is away is listed offline); absent: always */
  online?: () => boolean;
  /** its local agent's last reported health (a relay agent); absent: not known */
  health?: () => RelayAgentHealth | undefined;
  /** the scopes its trust level leaves callers on its tasks (a relay agent's trust caps them); absent: no cap */
  scopes?: ReadonlySet<Scope>;
}

export interface AgentChoice {
  urlAgentId: string | undefined;
  metadata: Record<string, unknown> | undefined;
  /** where the caller wrote metadata's agentId and skillId (an error names the field) */
  paths?: { agentId: string; skillId: string };
}

/** What a change did, for listeners (cards and lists are built on demand, so they follow without one). */
export type AgentChange = { kind: 'added' | 'updated' | 'removed'; workspace: string; id: string };

/** An agent id that would hide, or be hidden by, another agent a workspace already reaches. */
export class AgentShadowError extends Error {
  readonly code = 'ERR_AGENT_SHADOW';
  constructor(
    readonly agentId: string,
    readonly workspace: string,
  ) {
    super(`agent '${agentId}' already exists for workspace '${workspace}' (or for every workspace); agent ids must not shadow each other`);
    this.name = 'AgentShadowError';
  }
}

const SHARED = '*';
const slot = (workspace: string, id: string) => `${workspace}\u0000${id}`;
const failure = (reason: string, message: string): AgentRunResult => ({ ok: false, error: { reason, message } });

export class AgentRegistry {
  private readonly entries = new Map<string, AgentEntry>();
  private readonly listeners = new Set<(c: AgentChange) => void>();

  constructor(initial: readonly AgentEntry[] = []) {
    for (const e of initial) this.add(e);
  }

  /** Every agent, shared and per workspace, in the order added. */
  get specs(): AgentSpec[] {
    return [...this.entries.values()].map((e) => e.spec);
  }

  /**
   * Adds an agent. A workspace's agent and a shared one (`workspace: '*'`) never carry the same id, so no task or
   * key can ever mean one and reach the other.
   */
  add(entry: AgentEntry): void {
    const { id, workspace } = entry.spec;
    const clash = workspace === SHARED ? [...this.entries.values()].some((e) => e.spec.id === id) : this.find(workspace, id) !== undefined;
    if (clash) throw new AgentShadowError(id, workspace);
    this.entries.set(slot(workspace, id), entry);
    this.emit({ kind: 'added', workspace, id });
  }

  /** Replaces an agent's spec or runner (same workspace and id); false when there is none. */
  update(entry: AgentEntry): boolean {
    const k = slot(entry.spec.workspace, entry.spec.id);
    if (!this.entries.has(k)) return false;
    this.entries.set(k, entry);
    this.emit({ kind: 'updated', workspace: entry.spec.workspace, id: entry.spec.id });
    return true;
  }

  /** Removes an agent; its tasks stay, and their next turn fails with `agent_not_found`. */
  remove(workspace: string, id: string): boolean {
    if (!this.entries.delete(slot(workspace, id))) return false;
    this.emit({ kind: 'removed', workspace, id });
    return true;
  }

  onChange(fn: (c: AgentChange) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** The agent a workspace means by `id`: its own, else a shared one. */
  find(workspace: string, id: string): AgentEntry | undefined {
    return this.entries.get(slot(workspace, id)) ?? this.entries.get(slot(SHARED, id));
  }

  /** A shared agent by id (public cards), never a workspace's own. */
  shared(id: string): AgentSpec | undefined {
    return this.entries.get(slot(SHARED, id))?.spec;
  }

  /** Agents of the key's workspace (or serving every workspace) that the key is allowed. */
  reachable(key: KeyRecord): AgentSpec[] {
    const out: AgentSpec[] = [];
    for (const e of this.entries.values()) if (this.allows(key, e)) out.push(e.spec);
    return out;
  }

  canReach(key: KeyRecord, agentId: string): boolean {
    const e = this.find(key.workspaceId, agentId);
    return e !== undefined && this.allows(key, e);
  }

  /**
   * Whether the agent's own check (a relay agent's permitted keys) lets the key at the agent's tasks: a key that may
   * not reach an agent may not read, continue or cancel what it did for another key either. An agent gone has none.
   */
  permits(key: KeyRecord, agentId: string): boolean {
    return this.find(key.workspaceId, agentId)?.reach?.(key) ?? true;
  }

  /** whether callers may use `scope` on the agent's tasks (its trust level allows it); an agent gone has no cap */
  allowsScope(workspace: string, id: string, scope: Scope): boolean {
    const caps = this.find(workspace, id)?.scopes;
    return caps === undefined || caps.has(scope);
  }

  /**
   * The agents the key's workspace can name (its own and shared ones) whose tasks the key may not read `scope` on:
   * the agent refuses the key or caps the scope. Judged by id as permits and allowsScope judge a task's agent, so a
   * listing that leaves these out keeps what a task-by-task check keeps. Bounded by the registry, not by the tasks.
   */
  refusing(key: KeyRecord, scope: Scope): string[] {
    const out = new Set<string>();
    for (const e of this.entries.values()) {
      if (e.spec.workspace !== SHARED && e.spec.workspace !== key.workspaceId) continue;
      const id = e.spec.id;
      if (!this.permits(key, id) || !this.allowsScope(key.workspaceId, id, scope)) out.add(id);
    }
    return [...out];
  }

  /** false for an agent that cannot take a turn now (its relay is away); true for one that always can */
  online(workspace: string, id: string): boolean {
    const e = this.find(workspace, id);
    return e !== undefined && (e.online?.() ?? true);
  }

  /** the last reported health of a relay agent's local agent, if known */
  health(workspace: string, id: string): RelayAgentHealth | undefined {
    return this.find(workspace, id)?.health?.();
  }

  /** The URL's agent, else metadata.agentId, else the agent with metadata.skillId, else the only or default one. */
  choose(key: KeyRecord, c: AgentChoice): AgentSpec {
    const notFound = (what: string, data?: Record<string, unknown>) =>
      new RpcError('AGENT_NOT_FOUND', { message: `No agent matches the request: ${what}`, ...(data && { data }) });
    const pick = (id: string, path?: string) => {
      const e = this.find(key.workspaceId, id);
      // the id is the caller's (the URL, metadata.agentId): repeated cut to a bound
      const named = echoed(id);
      if (!e || !this.allows(key, e)) throw notFound(`agent '${named}'${path ? ` (${path})` : ''}`, { ...(path && { path }), agentId: named });
      return e.spec;
    };
    if (c.urlAgentId !== undefined) return pick(c.urlAgentId);
    const agentId = c.metadata?.agentId;
    if (typeof agentId === 'string') return pick(agentId, c.paths?.agentId);
    const reachable = this.reachable(key);
    const skillId = c.metadata?.skillId;
    if (typeof skillId === 'string') {
      const bySkill = reachable.find((s) => s.skills.some((k) => k.id === skillId));
      const path = c.paths?.skillId;
      const named = echoed(skillId);
      if (!bySkill) throw notFound(`skill '${named}'${path ? ` (${path})` : ''}`, { ...(path && { path }), skillId: named });
      return bySkill;
    }
    if (reachable.length === 1) return reachable[0]!;
    const dflt = reachable.find((s) => s.default);
    if (dflt) return dflt;
    throw notFound('name one with metadata.agentId or metadata.skillId');
  }

  /** Runs one turn of a task on its agent's runner; the agent may have gone since the task began. Never rejects. */
  runTurn(o: Omit<AgentTurn, 'agent'>): Promise<AgentRunResult> {
    const e = this.find(o.task.workspaceId, o.task.agentId);
    if (!e) return Promise.resolve(failure('agent_not_found', `Agent ${o.task.agentId} is no longer configured`));
    return e.runner.run(copyWith(o, { agent: e.spec }));
  }

  private allows(key: KeyRecord, e: AgentEntry): boolean {
    const { spec } = e;
    if (spec.workspace !== SHARED && spec.workspace !== key.workspaceId) return false;
    return (key.agents.length === 0 || key.agents.includes(spec.id)) && (e.reach?.(key) ?? true);
  }

  private emit(c: AgentChange): void {
    for (const fn of this.listeners) fn(c);
  }
}
