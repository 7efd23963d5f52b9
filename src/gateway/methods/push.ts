// Push notification configs: checked (SSRF guard), stored and returned in the call's dialect; runtime/push delivers.
import { randomUUID } from 'node:crypto';
import { codecs } from '../../protocol/codec.js';
import { RpcError } from '../../protocol/errors.js';
import type { Task } from '../../protocol/model.js';
import type { PushConfig, StoredPushConfig } from '../../protocol/records.js';
import { MAX_QUEUE_BYTES, queueBytes } from '../../runtime/push/jobs.js';
import { answerDialect, readsOf, visibleTask, type CallContext, type GatewayParts } from '../context.js';

const pushKey = (t: Task) => `${t.workspaceId}/${t.id}`;

/** Where a config sits in the call's params: its url's path without `.url` (1.0 has the fields at `params`). */
const configPath = (urlPath: string) => urlPath.replace(/\.url$/, '');

/** Refuses now when the task has no room for another push config (a send checks before anything starts). */
export function assertPushRoom(parts: GatewayParts, o: { task: Task; config: PushConfig; urlPath: string }): Promise<void> {
  return parts.pushQuota.check({ taskKey: pushKey(o.task), taskId: o.task.id, configId: o.config.id, path: configPath(o.urlPath) });
}

/** Refuses a webhook URL the SSRF guard does not admit: -32602 naming the reason and the field. Stores nothing. */
export async function assertPushUrl(parts: GatewayParts, o: { url: string; path: string }): Promise<void> {
  const v = await parts.push.checkUrl(o.url);
  if (v.ok) return;
  const { message, reason, address } = v.refusal;
  throw new RpcError('INVALID_PARAMS', { message, data: { path: o.path, refused: reason, ...(address !== undefined && { address }) } });
}

/**
 * Refuses a config whose deliveries could not be stored (their queue name too long for a store key), before anything
 * is stored: -32602 naming the config id. Otherwise every later write of the task would fail with it.
 */
export function assertQueueFits(o: { taskKey: string; configId: string | undefined; path: string }): void {
  const bytes = queueBytes(o.taskKey, o.configId);
  if (bytes <= MAX_QUEUE_BYTES) return;
  throw new RpcError('INVALID_PARAMS', {
    message: `push notification config id too long for this task: with the task id it names a delivery queue of ${bytes} bytes, over ${MAX_QUEUE_BYTES} (a control character counts 6)`,
    data: { path: o.path },
  });
}

/** Stores the config if the task has room for it (push.maxConfigsPerTask); `urlPath` names where the caller wrote it. */
export async function storePushConfig(
  parts: GatewayParts,
  o: { task: Task; config: PushConfig; ctx: CallContext; urlPath: string },
): Promise<StoredPushConfig> {
  const rec: StoredPushConfig = {
    ...o.config,
    id: o.config.id ?? randomUUID(),
    taskId: pushKey(o.task),
    keyId: o.ctx.key.id,
    createdAt: parts.clock.now(),
    disabled: false,
  };
  // the reply masks the credentials either way; the store gets them sealed
  const room = { taskKey: rec.taskId, taskId: o.task.id, configId: o.config.id, path: configPath(o.urlPath) };
  await parts.pushQuota.add(room, parts.push.configs.seal(rec));
  return rec;
}

/** Where the caller named the config: 1.0 calls it `id`, the revisions `pushNotificationConfigId`. */
const configIdPath = (ctx: CallContext) => (ctx.dialect === 'V1' ? 'params.id' : 'params.pushNotificationConfigId');

export async function setPushConfig(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const p = readsOf(ctx).pushSet(params);
  const t = await visibleTask(parts, ctx, p.taskId);
  assertQueueFits({ taskKey: pushKey(t), configId: p.config.id, path: p.urlPath.replace(/url$/, 'id') });
  await assertPushUrl(parts, { url: p.config.url, path: p.urlPath });
  const rec = await storePushConfig(parts, { task: t, config: p.config, ctx, urlPath: p.urlPath });
  return codecs[answerDialect(ctx, t)].pushConfig(rec, t.id);
}

export async function getPushConfig(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const p = readsOf(ctx).pushGet(params);
  const t = await visibleTask(parts, ctx, p.taskId);
  const all = await parts.store.pushConfigs.list(pushKey(t));
  const rec = p.configId !== undefined ? all.find((c) => c.id === p.configId) : all.sort((a, b) => b.createdAt - a.createdAt)[0];
  if (!rec) {
    throw new RpcError('INVALID_PARAMS', {
      message: `Task ${t.id} has no push notification config${p.configId ? ` '${p.configId}'` : ''}`,
      data: { path: configIdPath(ctx) },
    });
  }
  return codecs[answerDialect(ctx, t)].pushConfig(rec, t.id);
}

export async function listPushConfigs(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const p = readsOf(ctx).pushList(params);
  const t = await visibleTask(parts, ctx, p.taskId);
  const all = (await parts.store.pushConfigs.list(pushKey(t))).sort((a, b) => a.createdAt - b.createdAt);
  // a page never holds more than asked (a task has few configs: the bound is push.maxConfigsPerTask)
  const from = p.page?.offset ?? 0;
  const end = p.page?.size ? from + p.page.size : all.length;
  const page = all.slice(from, end);
  return codecs[answerDialect(ctx, t)].pushConfigs(page, t.id, from + page.length < all.length ? String(from + page.length) : '');
}

export async function deletePushConfig(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const p = readsOf(ctx).pushDelete(params);
  const t = await visibleTask(parts, ctx, p.taskId);
  const deleted = await parts.store.pushConfigs.delete(pushKey(t), p.configId);
  if (!deleted) {
    throw new RpcError('INVALID_PARAMS', {
      message: `Task ${t.id} has no push notification config '${p.configId}'`,
      data: { path: configIdPath(ctx) },
    });
  }
  return null;
}
