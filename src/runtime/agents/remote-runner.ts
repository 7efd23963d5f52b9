// The remote runner: a `remote` agent's turns are forwarded over an outbound connection, and the remote's answers come back as agent events.
import type { AgentEvent, AgentRunResult } from '../../protocol/agent-events.js';
import type { RemoteTask } from '../../protocol/connections.js';
import { extensionsOf, type Artifact, type Message, type Task } from '../../protocol/model.js';
import { OutboundError, type RemoteEvent } from '../a2a-client/types.js';
import type { ConnectionCalls } from './outbound-calls.js';
import type { AgentRunner } from './registry.js';

/**
 * Where the remote's task id rides between turns: in the metadata of the agent message that asked for input, under a
 * field the sanitizer removes from everything the gateway sends out, so a follow-up continues the same remote task
 * (on any instance, after a restart too) while no caller ever sees the remote's ids.
 */
const REMOTE_REF = 'internal_task_id';

interface RemoteRef {
  taskId: string;
  contextId?: string;
}

/** The remote task a follow-up continues: named by the last agent message of a turn that ended asking for input. */
function remoteRefOf(task: Task): RemoteRef | undefined {
  if (task.history.length === 0) return undefined;
  for (let i = task.history.length - 1; i >= 0; i--) {
    const m = task.history[i]!;
    if (m.role !== 'agent') continue;
    const ref = m.metadata?.[REMOTE_REF];
    if (typeof ref === 'object' && ref !== null && 'taskId' in ref && typeof ref.taskId === 'string') {
      return { taskId: ref.taskId, ...('contextId' in ref && typeof ref.contextId === 'string' && { contextId: ref.contextId }) };
    }
  }
  return undefined;
}

/** Our routing keys in a caller's metadata: they chose our agent, and mean nothing (or another agent) to the remote. */
const ROUTING_KEYS = new Set(['agentId', 'skillId']);

/**
 * Our caller's message as it may leave: its parts, metadata and extensions, none of our own ids or routing keys. Its
 * `referenceTaskIds` name tasks of this gateway, which the remote does not know (and our task ids never go out, as
 * the client codecs keep a message's own taskId and contextId in), so they stay here.
 */
function outgoing(m: Message): Message {
  const meta = m.metadata && Object.fromEntries(Object.entries(m.metadata).filter(([k]) => !ROUTING_KEYS.has(k)));
  return {
    role: 'user',
    parts: m.parts,
    messageId: m.messageId,
    ...(meta && Object.keys(meta).length > 0 && { metadata: meta }),
    ...extensionsOf(m),
  };
}

const chunkOf = (a: Artifact): Extract<AgentEvent, { type: 'artifact' }>['artifact'] => ({
  artifactId: a.artifactId,
  parts: a.parts,
  ...(a.name !== undefined && { name: a.name }),
  ...(a.description !== undefined && { description: a.description }),
  ...(a.append !== undefined && { append: a.append }),
  ...(a.lastChunk !== undefined && { lastChunk: a.lastChunk }),
  ...extensionsOf(a),
});

/**
 * The remote's status message as our agent's: its parts, metadata and extensions. Its ids, `referenceTaskIds` too,
 * name the remote's tasks, which no caller of ours ever sees.
 */
const statusMessage = (m: Message | undefined, extra?: Record<string, unknown>) => {
  if (!m && !extra) return undefined;
  const parts = m?.parts.length ? m.parts : [{ kind: 'text' as const, text: '' }];
  const metadata = extra ? { ...m?.metadata, ...extra } : m?.metadata;
  return { parts, ...(metadata !== undefined && { metadata }), ...(m && extensionsOf(m)) };
};

export function createRemoteRunner(o: { calls: ConnectionCalls }): AgentRunner {
  return {
    async run({ agent, task, message, signal, onEvent }): Promise<AgentRunResult> {
      const connection = agent.connection;
      if (!connection) return { ok: false, error: { reason: 'agent_error', message: `remote agent ${agent.id} names no connection` } };
      let events = 0;
      const emit = (ev: AgentEvent) => {
        events++;
        onEvent(ev);
      };
      // parts passed on so far, per artifact: a task snapshot (a stream's first event, a poll, the final answer) passes
      // on only what its artifacts hold beyond them. A quick remote's first chunks may be in the snapshot that opens its
      // stream, and the chunks after it then append to them.
      const passed = new Map<string, number>();
      const catchUp = (artifacts: readonly Artifact[]) => {
        for (const a of artifacts) {
          const n = passed.get(a.artifactId) ?? 0;
          if (a.parts.length <= n) continue;
          passed.set(a.artifactId, a.parts.length);
          const rest = n === 0 ? a : { ...a, parts: a.parts.slice(n), append: true };
          emit({ type: 'artifact', artifact: chunkOf(n === 0 ? { ...rest, append: false } : rest) });
        }
      };
      const onRemote = (ev: RemoteEvent) => {
        if (ev.kind === 'artifact') {
          const a = ev.artifact;
          passed.set(a.artifactId, (a.append ? (passed.get(a.artifactId) ?? 0) : 0) + a.parts.length);
          emit({ type: 'artifact', artifact: chunkOf(a) });
        } else if (ev.kind === 'task') {
          catchUp(ev.task.artifacts);
        } else if (ev.kind === 'status' && !ev.final && ev.status.state === 'working' && ev.status.message) {
          emit({ type: 'status', state: 'working', message: statusMessage(ev.status.message) });
        }
      };
      const ref = remoteRefOf(task);
      let remote: RemoteTask;
      try {
        remote = await o.calls.call({
          // a shared remote agent uses the caller's workspace's connection of that name
          workspace: agent.workspace === '*' ? task.workspaceId : agent.workspace,
          agentId: agent.id,
          connection,
          message: outgoing(message),
          stream: 'auto',
          ...(ref && { taskId: ref.taskId, ...(ref.contextId !== undefined && { contextId: ref.contextId }) }),
          signal,
          onEvent: onRemote,
        });
      } catch (e) {
        if (e instanceof OutboundError) return { ok: false, error: { reason: e.code === 'canceled' ? 'canceled' : `remote_${e.code}`, message: e.message } };
        return { ok: false, error: { reason: 'remote_error', message: e instanceof Error ? e.message : String(e) } };
      }
      catchUp(remote.artifacts);
      const state = remote.status.state;
      if (state === 'canceled') return { ok: false, error: { reason: 'remote_canceled', message: `the remote agent canceled its task` } };
      if (state === 'input-required') {
        const ask = statusMessage(remote.status.message, {
          [REMOTE_REF]: { taskId: remote.id, ...(remote.contextId !== undefined && { contextId: remote.contextId }) },
        });
        emit({ type: 'status', state: 'input-required', ...(ask && { message: ask }) });
      } else if (state === 'completed' || state === 'failed') {
        const m = statusMessage(remote.status.message);
        emit({ type: 'status', state, ...(m && { message: m }) });
      } else {
        return { ok: false, error: { reason: 'remote_bad_response', message: `the remote task ended its wait in state ${state}` } };
      }
      return { ok: true, events };
    },
  };
}
