// Listing tasks (1.0's ListTasks; tasks/list for the revisions): the key's workspace only, only tasks the key may see
// (its agents, the URL's agent, the agent's trust level), newest status first, filtered by context, state and time.
// One listing, one dialect: every task reads in the call's, whatever dialect each was created in. A key that sees every
// task of its workspace reads the page from the store's listing index (cost of a page); a key limited to some agents
// (an agent list, an agent's URL, agents refusing it) reads the index kept to those agents' entries (a bounded walk per
// page, the total from per-agent counts). No listing scans the workspace: a query names at most one state.
import { codecs, taskListPage, versionAnswersV1, type ListQuery } from '../../protocol/codec.js';
import { listToken, type ListCursor } from '../../protocol/list-token.js';
import type { Task, TaskDialect } from '../../protocol/model.js';
import type { ListAgents } from '../../runtime/store/types.js';
import { taskView } from '../../protocol/views.js';
import { canSee, viewOptions, type CallContext, type GatewayParts } from '../context.js';

/**
 * ListTasks is 1.0's; tasks/list (a name the revisions share) answers in the dialect A2A-Version names, 1.0 included:
 * 1.0 asks that a request be read with the semantics of the version it names. No header reads as 0.3, as 1.0 reads it.
 * Not each task's own dialect: a page mixing three shapes is one no client can read.
 */
const listDialect = (ctx: CallContext): TaskDialect => ctx.dialect ?? (versionAnswersV1(ctx.a2aVersion) ? 'V1' : 'B');

export async function listTasks(params: unknown, ctx: CallContext, parts: GatewayParts) {
  const codec = codecs[listDialect(ctx)];
  const q = codec.read.listTasks(params);
  const { page, total, next } = await indexedPage(q, ctx, parts);
  const view = viewOptions(ctx, q.historyLength);
  return taskListPage({
    tasks: page.map((t) => {
      // artifacts only when asked for: a listing is for finding tasks, GetTask reads one
      return codec.listedTask(taskView(t, view), q.includeArtifacts);
    }),
    // the page's last place in the listing (a keyset cursor), not its last task shown: an index entry left out of a
    // page is not read again
    nextPageToken: next ? listToken(next) : '',
    pageSize: q.pageSize,
    totalSize: total,
  });
}

interface Page {
  page: Task[];
  total: number;
  /** where the next page starts; absent on the last */
  next?: ListCursor | undefined;
}

/**
 * The agents whose tasks the caller's listing keeps, as the index reads it (undefined: every task of the workspace).
 * The same judgement as canSee and the agents' trust levels, made once per agent instead of once per task: a list
 * (the URL's agent, the key's agents) kept to those the agent lets in, or every agent but those the registry says
 * refuse the key. An agent gone refuses nothing, as canSee and allowsScope have it.
 */
export function listedAgents(ctx: CallContext, parts: GatewayParts): ListAgents | undefined {
  const ws = ctx.key.workspaceId;
  const lets = (a: string) => canSee(parts, ctx, { agentId: a }) && parts.agents.allowsScope(ws, a, ctx.scope);
  if (ctx.urlAgentId !== undefined) return { only: [ctx.urlAgentId].filter(lets) };
  if (ctx.key.agents.length > 0) return { only: [...new Set(ctx.key.agents)].filter(lets) };
  const refusing = parts.agents.refusing(ctx.key, ctx.scope);
  return refusing.length === 0 ? undefined : { except: refusing };
}

async function indexedPage(q: ListQuery, ctx: CallContext, parts: GatewayParts): Promise<Page> {
  // no state asked for matches (one the gateway never holds): nothing to read
  if (q.states?.length === 0) return { page: [], total: 0 };
  const state = q.states?.[0];
  const agents = listedAgents(ctx, parts);
  if (agents !== undefined && 'only' in agents && agents.only.length === 0) return { page: [], total: 0 };
  const r = await parts.store.tasks.listPage({
    workspaceId: ctx.key.workspaceId,
    ...(q.contextId !== undefined && { contextId: q.contextId }),
    ...(state !== undefined && { state }),
    ...(q.statusSince !== undefined && { since: q.statusSince }),
    ...(q.after !== undefined && { after: q.after }),
    ...(agents !== undefined && { agents }),
    limit: q.pageSize,
  });
  return {
    page: r.tasks.filter((t) => canSee(parts, ctx, t) && parts.agents.allowsScope(ctx.key.workspaceId, t.agentId, ctx.scope)),
    total: r.total,
    next: r.next,
  };
}
