// Sends (tasks/send, message/send, SendMessage): create a task or continue one, wait unless non-blocking. What differs
// between dialects (params, the rules for ids, the result's shape) is the dialect's codec.
import { randomUUID } from 'node:crypto';
import type { TaskHandle } from '../../actors/task-handle.js';
import { TaskIdTakenError } from '../../actors/task-writer.js';
import { codecs } from '../../protocol/codec.js';
import { RpcError } from '../../protocol/errors.js';
import { extensionsOf, referencesOf, type Message, type Task, type TaskDialect } from '../../protocol/model.js';
import type { MessageIn, SendParams } from '../../protocol/params.js';
import { taskView } from '../../protocol/views.js';
import { timeOrderedId } from '../../runtime/time-ordered-id.js';
import type { CallContext, GatewayParts } from '../context.js';
import { canSee, checkAgentTrust, ensureVisible, limitedToAgents, viewOptions } from '../context.js';
import { assertPushRoom, assertPushUrl, assertQueueFits, storePushConfig } from './push.js';

function toMessage(m: MessageIn, task: { id: string; contextId: string }): Message {
  return {
    role: m.role,
    parts: m.parts,
    messageId: m.messageId ?? randomUUID(),
    taskId: task.id,
    contextId: task.contextId,
    ...(m.metadata !== undefined && { metadata: m.metadata }),
    ...extensionsOf(m),
    ...referencesOf(m),
  };
}

export interface PreparedSend {
  /** the task as it stands before the message is delivered */
  task: Task;
  params: SendParams;
  /** delivers the message: starts the new task or continues the waiting one */
  go(): Promise<TaskHandle>;
}

/** A send answers once the task settles unless it asks not to wait. */
const blocking = (p: SendParams): boolean => p.configuration?.blocking !== false;

const invalidParam = (path: string, why: string) => new RpcError('INVALID_PARAMS', { message: `Invalid params: ${path}: ${why}`, data: { path } });

/** Validates and resolves everything a send needs, changing nothing until `go` is called. */
/** The dialect a send method's name fixes (every send name fixes one). */
export const sendDialect = (ctx: CallContext): TaskDialect => ctx.dialect ?? 'B';

export async function prepareSend(params: unknown, ctx: CallContext, parts: GatewayParts, o: { streaming?: boolean } = {}): Promise<PreparedSend> {
  const dialect = sendDialect(ctx);
  const codec = codecs[dialect];
  const p = codec.read.send(params);
  if (p.message.role !== 'user') throw invalidParam('params.message.role', `a sent message must have role "${dialect === 'V1' ? 'ROLE_USER' : 'user'}"`);
  // A2A 0.2 and later require the sender's messageId (it is how a client matches answers and retries); 0.1 has none
  if (codec.send.messageIdRequired && p.message.messageId === undefined) throw invalidParam('params.message.messageId', 'required');
  for (const [path, meta] of [
    ['params.message.metadata', p.message.metadata],
    ['params.metadata', p.metadata],
  ] as const) {
    for (const name of ['agentId', 'skillId'] as const) {
      const v = meta?.[name];
      if (v !== undefined && typeof v !== 'string') throw invalidParam(`${path}.${name}`, 'must be a string naming one agent');
    }
  }
  const existingId = codec.send.callerNamesNewTask ? p.id : (p.message.taskId ?? p.id);
  const existing = existingId === undefined ? undefined : await parts.supervisor.get(ctx.key.workspaceId, existingId);
  const inlinePush = p.pushNotification ?? p.configuration?.pushNotificationConfig;
  const pushUrlPath = p.pushNotification ? 'params.pushNotification.url' : (codec.send.inlinePushUrlPath ?? 'params.configuration.pushNotificationConfig.url');
  if (inlinePush) {
    // a new task's id is the caller's or a random UUID (36 characters, as the placeholder)
    assertQueueFits({ taskKey: `${ctx.key.workspaceId}/${existingId ?? randomUUID()}`, configId: inlinePush.id, path: pushUrlPath.replace(/url$/, 'id') });
    await assertPushUrl(parts, { url: inlinePush.url, path: pushUrlPath });
  }

  if (existingId !== undefined && limitedToAgents(ctx) && (!existing || !canSee(parts, ctx, existing))) {
    // such a key must not learn whether an id is taken by a task it cannot see: it continues only tasks it can
    // see, and an id that names none (taken or free) gets one answer, with nothing created
    throw new RpcError('TASK_NOT_FOUND', {
      message: `Task not found: ${existingId} (a key limited to some agents continues the tasks it can see; to start a task, leave out the id)`,
      data: { id: existingId },
    });
  }
  if (existing) {
    const task = ensureVisible(parts, ctx, existing.id, existing);
    checkAgentTrust(parts, ctx, task.agentId);
    // a message naming another conversation than its task's contradicts itself (1.0: agents MUST reject it); it was
    // delivered with the context silently replaced
    const named = p.message.contextId;
    if (named !== undefined && named !== task.contextId) {
      throw invalidParam('params.message.contextId', `'${named}' is not the context of task ${task.id} (leave it out, or name the task's own)`);
    }
    // a task already holding its most push configs refuses the send before the message is delivered
    if (inlinePush) await assertPushRoom(parts, { task, config: inlinePush, urlPath: pushUrlPath });
    const message = toMessage(p.message, task);
    // refused before a stream opens; a task in another state is refused for that when the message is delivered
    if (task.status.state === 'input-required') parts.supervisor.checkRoom(task, message);
    return {
      task,
      params: p,
      go: async () => {
        const handle = await parts.supervisor.followUp(task, message, { requestId: ctx.requestId });
        if (inlinePush) await storePushConfig(parts, { task, config: inlinePush, ctx, urlPath: pushUrlPath });
        return handle;
      },
    };
  }
  if (existingId !== undefined && !codec.send.callerNamesNewTask) {
    throw new RpcError('TASK_NOT_FOUND', { message: `Task not found: ${existingId}`, data: { id: existingId } });
  }
  // the message's metadata wins over the params' (the spread below), so an unknown agent is named where it was read
  const pathOf = (name: 'agentId' | 'skillId') => (p.message.metadata?.[name] !== undefined ? `params.message.metadata.${name}` : `params.metadata.${name}`);
  const agent = parts.agents.choose(ctx.key, {
    urlAgentId: ctx.urlAgentId,
    metadata: { ...p.metadata, ...p.message.metadata },
    paths: { agentId: pathOf('agentId'), skillId: pathOf('skillId') },
  });
  checkAgentTrust(parts, ctx, agent.id);
  const now = parts.clock.now();
  const id = existingId ?? timeOrderedId(now);
  const contextId = p.sessionId ?? p.message.contextId ?? timeOrderedId(now);
  const task: Task = {
    id,
    contextId,
    workspaceId: ctx.key.workspaceId,
    agentId: agent.id,
    dialect,
    status: { state: 'submitted', timestamp: new Date(now).toISOString() },
    artifacts: [],
    history: [toMessage(p.message, { id, contextId })],
    // internal fields for the runtime's own use; the sanitizer strips them at the exit
    metadata: {
      ...p.metadata,
      internal_task_id: `${ctx.key.workspaceId}/${id}`,
      workspace_id: ctx.key.workspaceId,
      api_key_id: ctx.key.id,
      request_id: ctx.requestId,
    },
    createdAt: now,
    updatedAt: now,
  };
  parts.supervisor.checkRoom(task);
  return {
    task,
    params: p,
    go: async () => {
      // the config (checked above) is stored before the task runs, so its first update is delivered
      const cfg = inlinePush ? await storePushConfig(parts, { task, config: inlinePush, ctx, urlPath: pushUrlPath }) : undefined;
      try {
        // a caller that waits for the end, on an id no one else can hold, lets a quick task be stored once
        return await parts.supervisor.start(task, {
          holdFirstWrite: !o.streaming && blocking(p) && existingId === undefined,
          pushConfig: cfg !== undefined,
          idMadeHere: existingId === undefined,
        });
      } catch (e) {
        if (!(e instanceof TaskIdTakenError)) throw e;
        // another send made a task with this id first (a batch, a concurrent call, another instance): this message
        // is then a follow-up to that task, judged as any follow-up is (and refused unless it waits for input)
        try {
          const winner = ensureVisible(parts, ctx, id, await parts.supervisor.get(ctx.key.workspaceId, id));
          // taken: its inline config stays, as a follow-up's does
          return await parts.supervisor.followUp(winner, toMessage(p.message, winner), { requestId: ctx.requestId });
        } catch (refused) {
          // refused: the config it stored goes, unless the caller named its id: then the winner (the same request sent
          // twice, a retry on another instance) stored that very config, and removing it would leave the task unwatched
          if (cfg && inlinePush?.id === undefined) await parts.store.pushConfigs.delete(cfg.taskId, cfg.id);
          throw refused;
        }
      }
    },
  };
}

export async function sendMessage(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const prepared = await prepareSend(params, ctx, parts);
  const handle = await prepared.go();
  const p = prepared.params;
  const t = blocking(p) ? await handle.settled() : await handle.current();
  const historyLength = p.historyLength ?? p.configuration?.historyLength;
  return codecs[sendDialect(ctx)].sendResult(taskView(t, viewOptions(ctx, historyLength)));
}
