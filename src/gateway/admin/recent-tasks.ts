// The dashboard's recent tasks (GET /tasks): the newest of a workspace, by state and agent if asked, read from the
// tasks/list index page by page (its order: newest status first, ties by id) instead of a scan of the workspace.
import type { Task, TaskState } from '../../protocol/model.js';
import type { ListCursor, TaskStore } from '../../runtime/store/types.js';

/**
 * Up to `limit` tasks in listing order. An agent filter is the index's (its entries hold the agent): a page limited to
 * an agent may come back short (a bounded walk over others' entries) with a place to go on from, so pages are read
 * until `limit` are found or the listing ends; no task of another agent is read.
 */
export async function recentTasks(
  tasks: Pick<TaskStore, 'listPage'>,
  o: { workspace: string; state?: TaskState | undefined; agent?: string | undefined; limit: number },
): Promise<Task[]> {
  const out: Task[] = [];
  let after: ListCursor | undefined;
  do {
    const page = await tasks.listPage({
      workspaceId: o.workspace,
      ...(o.state !== undefined && { state: o.state }),
      ...(o.agent !== undefined && { agents: { only: [o.agent] } }),
      ...(after !== undefined && { after }),
      limit: o.limit - out.length,
    });
    out.push(...page.tasks);
    after = page.next;
  } while (after !== undefined && out.length < o.limit);
  return out;
}
