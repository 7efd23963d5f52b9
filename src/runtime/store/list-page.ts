// What both engines' listing indexes agree on: the status time a task is sorted by, and whether a task read through
// an index entry is one the query asks for (an entry an older writer left stale is skipped, never shown misfiled).
import type { Task } from '../../protocol/model.js';
import type { ListAgents, ListPageQuery } from './types.js';

/** A task's status time in ms, its listing sort key (an unreadable time sorts as 0, oldest). */
export const statusTime = (t: Task): number => {
  const ms = Date.parse(t.status.timestamp);
  return Number.isFinite(ms) ? ms : 0;
};

export function matchesListQuery(t: Task, q: ListPageQuery): boolean {
  return (
    t.workspaceId === q.workspaceId &&
    (q.contextId === undefined || t.contextId === q.contextId) &&
    (q.state === undefined || t.status.state === q.state) &&
    (q.since === undefined || statusTime(t) >= q.since) &&
    (q.agents === undefined || agentListed(q.agents, t.agentId))
  );
}

/** Whether a listing limited to agents keeps this agent's tasks. */
export const agentListed = (agents: ListAgents, agentId: string): boolean =>
  'only' in agents ? agents.only.includes(agentId) : !agents.except.includes(agentId);

/**
 * Index entries a page limited to agents steps over at most (shown or not): a key whose agents hold few of the scope's
 * tasks gets a short page (even an empty one) and a token to go on, rather than a walk of the whole workspace.
 */
export const LIST_WALK = 2_000;
