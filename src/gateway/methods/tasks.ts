// Reading and canceling one task (tasks/get, tasks/cancel, GetTask, CancelTask): answered in the call's dialect.
import { codecs } from '../../protocol/codec.js';
import { taskView } from '../../protocol/views.js';
import { answerDialect, readsOf, viewOptions, visibleTask, type CallContext, type GatewayParts } from '../context.js';

export async function getTask(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const p = readsOf(ctx).taskQuery(params);
  const t = await visibleTask(parts, ctx, p.id);
  return codecs[answerDialect(ctx, t)].task(taskView(t, viewOptions(ctx, p.historyLength)));
}

export async function cancelTask(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const p = readsOf(ctx).taskId(params);
  const t = await visibleTask(parts, ctx, p.id);
  const canceled = await parts.supervisor.cancel(t, { requestId: ctx.requestId });
  return codecs[answerDialect(ctx, t)].task(taskView(canceled, viewOptions(ctx, undefined)));
}
