// Push notification configs: checked (SSRF guard), stored and returned in both revisions' shapes; runtime/push delivers.
import { randomUUID } from 'node:crypto';
import { codecs, dialectOfMethod, dialectOfVersionHeader } from '../../protocol/codec.js';
import { RpcError } from '../../protocol/errors.js';
import type { Task } from '../../protocol/model.js';
import { parseParams, PushDeleteParams, PushGetParams, PushListParams, PushSetParams, taskIdOf } from '../../protocol/params.js';
import type { PushConfig, StoredPushConfig } from '../../protocol/records.js';
import { answerDialect, visibleTask, type CallContext, type GatewayParts } from '../context.js';

const pushKey = (t: Task) => `${t.workspaceId}/${t.id}`;

/** Refuses a webhook URL the SSRF guard does not admit: -32602 naming the reason and the field. Stores nothing. */
export async function assertPushUrl(parts: GatewayParts, o: { url: string; path: string }): Promise<void> {
  const v = await parts.push.checkUrl(o.url);
  if (v.ok) return;
  const { message, reason, address } = v.refusal;
  throw new RpcError('INVALID_PARAMS', { message, data: { path: o.path, refused: reason, ...(address !== undefined && { address }) } });
}

export async function storePushConfig(parts: GatewayParts, o: { task: Task; config: PushConfig; ctx: CallContext }): Promise<StoredPushConfig> {
  const rec: StoredPushConfig = {
    ...o.config,
    id: o.config.id ?? randomUUID(),
    taskId: pushKey(o.task),
    keyId: o.ctx.key.id,
    createdAt: parts.clock.now(),
    disabled: false,
  };
  await parts.store.pushConfigs.put(rec);
  return rec;
}

const dialectFor = (ctx: CallContext, t: Task) => dialectOfMethod(ctx.method) ?? answerDialect(dialectOfVersionHeader(ctx.a2aVersion), t);

export async function setPushConfig(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const p = parseParams(PushSetParams, params);
  const t = await visibleTask(parts, ctx, taskIdOf(p));
  await assertPushUrl(parts, { url: p.pushNotificationConfig.url, path: 'params.pushNotificationConfig.url' });
  const rec = await storePushConfig(parts, { task: t, config: p.pushNotificationConfig, ctx });
  return codecs[dialectFor(ctx, t)].pushConfig(rec, t.id);
}

export async function getPushConfig(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const p = parseParams(PushGetParams, params);
  const t = await visibleTask(parts, ctx, taskIdOf(p));
  const all = await parts.store.pushConfigs.list(pushKey(t));
  const rec =
    p.pushNotificationConfigId !== undefined ? all.find((c) => c.id === p.pushNotificationConfigId) : all.sort((a, b) => b.createdAt - a.createdAt)[0];
  if (!rec) {
    throw new RpcError('INVALID_PARAMS', {
      message: `Task ${t.id} has no push notification config${p.pushNotificationConfigId ? ` '${p.pushNotificationConfigId}'` : ''}`,
      data: { path: 'params.pushNotificationConfigId' },
    });
  }
  return codecs[dialectFor(ctx, t)].pushConfig(rec, t.id);
}

export async function listPushConfigs(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const p = parseParams(PushListParams, params);
  const t = await visibleTask(parts, ctx, taskIdOf(p));
  const all = await parts.store.pushConfigs.list(pushKey(t));
  return all.sort((a, b) => a.createdAt - b.createdAt).map((c) => codecs.B.pushConfig(c, t.id));
}

export async function deletePushConfig(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const p = parseParams(PushDeleteParams, params);
  const t = await visibleTask(parts, ctx, taskIdOf(p));
  const deleted = await parts.store.pushConfigs.delete(pushKey(t), p.pushNotificationConfigId);
  if (!deleted) {
    throw new RpcError('INVALID_PARAMS', {
      message: `Task ${t.id} has no push notification config '${p.pushNotificationConfigId}'`,
      data: { path: 'params.pushNotificationConfigId' },
    });
  }
  return null;
}
