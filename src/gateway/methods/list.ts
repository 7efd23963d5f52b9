// Listing tasks (1.0's ListTasks; tasks/list for the revisions): the key's workspace only, only tasks the key may see
// (its agents, the URL's agent, the agent's trust level), newest status first, filtered by context, state and time.
// One listing, one dialect: every task reads in the call's, whatever dialect each was created in.
import { codecs, taskListPage, versionAnswersV1 } from '../../protocol/codec.js';
import type { Task, TaskDialect } from '../../protocol/model.js';
import { taskView } from '../../protocol/views.js';
import { TopK } from '../../runtime/top-k.js';
import { canSee, viewOptions, type CallContext, type GatewayParts } from '../context.js';

/** A listed task with its status time read once (the sort key; Date.parse in a comparator would run n log n times). */
interface Listed {
  t: Task;
  time: number;
}
/** Newest status first (the time statusTimestampAfter filters on); ties by id, so pages never overlap while nothing changes. */
const newestFirst = (a: Listed, b: Listed) => a.time > b.time || (a.time === b.time && a.t.id < b.t.id);

/**
 * ListTasks is 1.0's; tasks/list (a name the revisions share) answers in the dialect A2A-Version names, 1.0 included:
 * 1.0 asks that a request be read with the semantics of the version it names. No header reads as 0.3, as 1.0 reads it.
 * Not each task's own dialect: a page mixing three shapes is one no client can read.
 */
const listDialect = (ctx: CallContext): TaskDialect => ctx.dialect ?? (versionAnswersV1(ctx.a2aVersion) ? 'V1' : 'B');

export async function listTasks(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const codec = codecs[listDialect(ctx)];
  const q = codec.read.listTasks(params);
  const ws = ctx.key.workspaceId;
  // only the tasks up to the end of the asked page are kept, whatever the workspace holds; the rest are counted
  const kept = new TopK<Listed>(q.offset + q.pageSize, newestFirst);
  await parts.store.tasks.scanWorkspace(ws, (t) => {
    if (q.contextId !== undefined && t.contextId !== q.contextId) return;
    if (q.states !== undefined && !q.states.includes(t.status.state)) return;
    const time = Date.parse(t.status.timestamp);
    if (q.statusSince !== undefined && time < q.statusSince) return;
    if (!canSee(parts, ctx, t) || !parts.agents.allowsScope(ws, t.agentId, ctx.scope)) return;
    kept.offer({ t, time });
  });
  const page = kept
    .sorted()
    .slice(q.offset)
    .map((l) => l.t);
  const end = q.offset + page.length;
  const view = viewOptions(ctx, q.historyLength);
  return taskListPage({
    tasks: page.map((t) => {
      // artifacts only when asked for: a listing is for finding tasks, GetTask reads one
      return codec.listedTask(taskView(t, view), q.includeArtifacts);
    }),
    nextPageToken: end < kept.offered ? String(end) : '',
    pageSize: q.pageSize,
    totalSize: kept.offered,
  });
}
