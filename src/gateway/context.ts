// What a method handler gets: the caller (key, scopes, headers) and the gateway's parts.
import type { TaskSupervisor } from '../actors/task-supervisor.js';
import type { Task, TaskDialect } from '../protocol/model.js';
import type { KeyRecord } from '../protocol/records.js';
import { codecs, type CallReads } from '../protocol/codec.js';
import { RpcError } from '../protocol/errors.js';
import type { Scope } from '../protocol/scopes.js';
import type { Clock, Timers } from '../runtime/clock.js';
import type { EventBus } from '../runtime/events/bus.js';
import type { RpcId } from '../protocol/envelope.js';
import type { SseSink } from './api.js';
import type { Store } from '../runtime/store/types.js';
import type { PushRuntime } from '../runtime/push/push.js';
import type { AgentRegistry } from '../runtime/agents/registry.js';
import type { CardSettings } from './card.js';
import type { KeyWatch } from './key-watch.js';
import type { PushQuota } from './push-quota.js';

export interface GatewayParts {
  store: Store;
  clock: Clock;
  supervisor: TaskSupervisor;
  /** the agents the gateway can run, per workspace (changes at runtime) */
  agents: AgentRegistry;
  card: CardSettings;
  bus: EventBus;
  timers: Timers;
  streaming: StreamingSettings;
  /** ends a key's open streams once it is revoked or expires */
  keyWatch: KeyWatch;
  /** the webhook URL check (SSRF guard) every push config passes before it is stored */
  push: Pick<PushRuntime, 'checkUrl' | 'configs'>;
  /** the bound on push configs per task (push.maxConfigsPerTask) */
  pushQuota: PushQuota;
}

export interface StreamingSettings {
  /** a `: ping` comment after this much silence */
  pingIntervalMs: number;
}

/** A handler's answer that is a stream, not a JSON result: the transport opens SSE and calls `start`. */
export class StreamResult {
  /** the key the stream is opened for (it holds one of the key's stream slots while open) */
  readonly keyId: string;
  readonly start: (sink: SseSink) => () => void;
  constructor(o: { keyId: string; start: (sink: SseSink) => () => void }) {
    this.keyId = o.keyId;
    this.start = o.start;
  }
}

export interface CallContext {
  key: KeyRecord;
  scopes: ReadonlySet<Scope>;
  method: string;
  /** the scope the method needs (its row in the method table) */
  scope: Scope;
  /** the dialect the method's name fixes, else the one the A2A-Version header names (undefined: the task's own) */
  dialect: TaskDialect | undefined;
  /** the call's errors read in 1.0's shape (errorsInV1), a stream's last one too, whatever dialect its events are in */
  errorsV1: boolean;
  rpcId: RpcId;
  a2aVersion: string | undefined;
  urlAgentId: string | undefined;
  lastEventId: string | undefined;
  baseUrl: string;
  /** the call's request id (logs, X-Request-Id) */
  requestId: string;
}

export type MethodHandler = (params: unknown, ctx: CallContext, parts: GatewayParts) => Promise<unknown>;

/** A task the caller may see: its workspace's, of an agent its key reaches. Anything else is "not found", never a leak. */
export async function visibleTask(parts: GatewayParts, ctx: CallContext, id: string): Promise<Task> {
  const t = ensureVisible(parts, ctx, id, await parts.supervisor.get(ctx.key.workspaceId, id));
  checkAgentTrust(parts, ctx, t.agentId);
  return t;
}

/** An agent's trust level caps what callers may do on its tasks (a relay agent's, set by its operator). */
export function checkAgentTrust(parts: GatewayParts, ctx: CallContext, agentId: string): void {
  const required = ctx.scope;
  if (parts.agents.allowsScope(ctx.key.workspaceId, agentId, required)) return;
  throw new RpcError('SCOPE_INSUFFICIENT', {
    message: `Scope insufficient: agent ${agentId}'s trust level does not allow ${required} (its operator sets it: a2a-gateway relays agent-trust)`,
    data: { required, agent: agentId },
  });
}

/** The same check for a task already read (`undefined`: there is none). */
export function ensureVisible(parts: GatewayParts, ctx: CallContext, id: string, t: Task | undefined): Task {
  if (t === undefined || !canSee(parts, ctx, t)) throw new RpcError('TASK_NOT_FOUND', { message: `Task not found: ${id}`, data: { id } });
  return t;
}

/**
 * Tasks are read per workspace, so what remains is the key's agent list, the agent's own permissions (a relay agent's
 * permitted keys) and the URL's agent. The agent itself need not exist any more: the tasks of a removed agent stay
 * readable (and a turn for one fails with agent_not_found).
 */
export const canSee = (parts: GatewayParts, ctx: CallContext, t: Pick<Task, 'agentId'>): boolean =>
  (ctx.key.agents.length === 0 || ctx.key.agents.includes(t.agentId)) &&
  parts.agents.permits(ctx.key, t.agentId) &&
  (ctx.urlAgentId === undefined || ctx.urlAgentId === t.agentId);

/** A key with an agent list: its workspace may hold tasks of agents it cannot reach, whose ids it must not learn. */
export const limitedToAgents = (ctx: CallContext): boolean => ctx.key.agents.length > 0;

export const viewOptions = (ctx: CallContext, historyLength: number | undefined) => ({
  historyLength,
  results: ctx.scopes.has('results.read'),
  files: ctx.scopes.has('results.files'),
});

/** A call answers in the dialect its name (or the A2A-Version header) fixes, else in the task's own. */
export function answerDialect(ctx: CallContext, task: Task): TaskDialect {
  return ctx.dialect ?? task.dialect;
}

/** How the call's params read: in its dialect's shapes (rev A and rev B read alike, so a shared name reads as rev B). */
export const readsOf = (ctx: CallContext): CallReads => codecs[ctx.dialect ?? 'B'].read;
