// Reading and canceling one task (tasks/get, tasks/cancel, GetTask, CancelTask): answered in the call's dialect.
import { codecs } from '../../protocol/codec.js';
import type { Task } from '../../protocol/model.js';
import { RawJson } from '../../protocol/raw-json.js';
import { taskView } from '../../protocol/views.js';
import { toSanitizedJson } from '../../runtime/sanitizer.js';
import { answerDialect, readsOf, viewOptions, visibleTask, type CallContext, type GatewayParts } from '../context.js';

/**
 * A task's answer, serialized, per task object and per way of seeing it (dialect, scopes). A stored task's object
 * stays the same until the task is written again (the store's read cache; a live task's view is replaced on each
 * change), so a polled task is encoded once per change, not once per poll. Only the whole history is kept: a
 * `historyLength` is the caller's number and could make one task hold any number of answers.
 */
const answers = new WeakMap<Task, Map<string, RawJson>>();

export async function getTask(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const p = readsOf(ctx).taskQuery(params);
  const t = await visibleTask(parts, ctx, p.id);
  const dialect = answerDialect(ctx, t);
  const view = viewOptions(ctx, p.historyLength);
  if (p.historyLength !== undefined) return codecs[dialect].task(taskView(t, view));
  const way = `${dialect}${view.results ? 'r' : ''}${view.files ? 'f' : ''}`;
  let known = answers.get(t);
  const hit = known?.get(way);
  if (hit) return hit;
  const made = new RawJson(toSanitizedJson(codecs[dialect].task(taskView(t, view))));
  if (!known) answers.set(t, (known = new Map()));
  known.set(way, made);
  return made;
}

export async function cancelTask(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const p = readsOf(ctx).taskId(params);
  const t = await visibleTask(parts, ctx, p.id);
  const canceled = await parts.supervisor.cancel(t, { requestId: ctx.requestId });
  return codecs[answerDialect(ctx, t)].task(taskView(canceled, viewOptions(ctx, undefined)));
}
