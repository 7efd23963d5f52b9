// Listing tasks (1.0's ListTasks; tasks/list for the revisions): the key's workspace only, only tasks the key may see
// (its agents, the URL's agent, the agent's trust level), newest status first, filtered by context, state and time.
// One listing, one dialect: every task reads in the call's, whatever dialect each was created in. A key that sees every
// task of its workspace reads the page from the store's listing index (cost of a page); any other (an agent list, an
// agent's URL, an agent refusing it) has its tasks picked out of a scan of the workspace.
import { codecs, taskListPage, versionAnswersV1, type ListQuery } from '../../protocol/codec.js';
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
  const { page, total } = readsWholeIndex(ctx, parts, q) ? await indexedPage(q, ctx, parts) : await scannedPage(q, ctx, parts);
  const end = q.offset + q.pageSize;
  const view = viewOptions(ctx, q.historyLength);
  return taskListPage({
    tasks: page.map((t) => {
      // artifacts only when asked for: a listing is for finding tasks, GetTask reads one
      return codec.listedTask(taskView(t, view), q.includeArtifacts);
    }),
    // the page's end in the listing, not past its tasks: an index entry left out of a page is not read again
    nextPageToken: end < total ? String(end) : '',
    pageSize: q.pageSize,
    totalSize: total,
  });
}

interface Page {
  page: Task[];
  total: number;
}

/** The index holds one state per entry, and no visibility: it answers a query of at most one state, for a key that sees every task. */
const readsWholeIndex = (ctx: CallContext, parts: GatewayParts, q: ListQuery): boolean =>
  ctx.urlAgentId === undefined && (q.states === undefined || q.states.length <= 1) && parts.agents.readsEveryTask(ctx.key, ctx.scope);

async function indexedPage(q: ListQuery, ctx: CallContext, parts: GatewayParts): Promise<Page> {
  // no state asked for matches (one the gateway never holds): nothing to read
  if (q.states?.length === 0) return { page: [], total: 0 };
  const state = q.states?.[0];
  const r = await parts.store.tasks.listPage({
    workspaceId: ctx.key.workspaceId,
    ...(q.contextId !== undefined && { contextId: q.contextId }),
    ...(state !== undefined && { state }),
    ...(q.statusSince !== undefined && { since: q.statusSince }),
    offset: q.offset,
    limit: q.pageSize,
  });
  return { page: r.tasks.filter((t) => canSee(parts, ctx, t)), total: r.total };
}

async function scannedPage(q: ListQuery, ctx: CallContext, parts: GatewayParts): Promise<Page> {
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
  return { page, total: kept.offered };
}
