// Listing tasks (1.0's ListTasks; tasks/list for the revisions): the key's workspace only, only tasks the key may see
// (its agents, the URL's agent, the agent's trust level), newest status first, filtered by context, state and time.
import { codecs, taskListPage } from '../../protocol/codec.js';
import type { Task } from '../../protocol/model.js';
import { taskView } from '../../protocol/views.js';
import { answerDialect, canSee, readsOf, viewOptions, type CallContext, type GatewayParts } from '../context.js';

const statusTime = (t: Task) => Date.parse(t.status.timestamp);
/** Newest status first (the time statusTimestampAfter filters on); ties by id, so pages never overlap while nothing changes. */
const newestFirst = (a: Task, b: Task) => statusTime(b) - statusTime(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export async function listTasks(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const q = readsOf(ctx).listTasks(params);
  const ws = ctx.key.workspaceId;
  const matching = (await parts.store.tasks.listByWorkspace(ws))
    .filter(
      (t) =>
        canSee(parts, ctx, t) &&
        parts.agents.allowsScope(ws, t.agentId, ctx.scope) &&
        (q.contextId === undefined || t.contextId === q.contextId) &&
        (q.states === undefined || q.states.includes(t.status.state)) &&
        (q.statusSince === undefined || statusTime(t) >= q.statusSince),
    )
    .sort(newestFirst);
  const page = matching.slice(q.offset, q.offset + q.pageSize);
  const end = q.offset + page.length;
  const view = viewOptions(ctx, q.historyLength);
  return taskListPage({
    tasks: page.map((t) => {
      const v = taskView(t, view);
      // artifacts only when asked for: a listing is for finding tasks, GetTask reads one
      return codecs[answerDialect(ctx, t)].task(q.includeArtifacts ? v : { ...v, artifacts: [] });
    }),
    nextPageToken: end < matching.length ? String(end) : '',
    pageSize: q.pageSize,
    totalSize: matching.length,
  });
}
