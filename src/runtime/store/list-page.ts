// What both engines' listing indexes agree on: the status time a task is sorted by, and whether a task read through
// an index entry is one the query asks for (an entry an older writer left stale is skipped, never shown misfiled).
import type { Task } from '../../protocol/model.js';
import type { ListPageQuery } from './types.js';

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
    (q.since === undefined || statusTime(t) >= q.since)
  );
}
