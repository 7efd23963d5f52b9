// tasks/get and tasks/cancel: shared by both revisions; answered in the header's dialect, else the task's.
import { codecs, dialectOfVersionHeader } from '../../protocol/codec.js';
import { parseParams, TaskIdParams, TaskQueryParams } from '../../protocol/params.js';
import { taskView } from '../../protocol/views.js';
import { answerDialect, viewOptions, visibleTask, type CallContext, type GatewayParts } from '../context.js';

export async function getTask(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const p = parseParams(TaskQueryParams, params);
  const t = await visibleTask(parts, ctx, p.id);
  const d = answerDialect(dialectOfVersionHeader(ctx.a2aVersion), t);
  return codecs[d].task(taskView(t, viewOptions(ctx, p.historyLength)));
}

export async function cancelTask(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const p = parseParams(TaskIdParams, params);
  const t = await visibleTask(parts, ctx, p.id);
  const canceled = await parts.supervisor.cancel(t);
  const d = answerDialect(dialectOfVersionHeader(ctx.a2aVersion), t);
  return codecs[d].task(taskView(canceled, viewOptions(ctx, undefined)));
}
