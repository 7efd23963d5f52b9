// Keeps what an outbound call brought back: a summary always (at most 500 characters), the raw task only when the
// connection's store_results says so; each until the connection's result_retention_hours have passed.
import type { ConnectionRecord, RemoteTask, StoredResult } from '../protocol/connections.js';
import { summarize } from '../protocol/summary.js';
import { timeOrderedId } from './time-ordered-id.js';
import type { Clock } from './clock.js';
import type { ResultStore } from './store/types.js';

const HOUR_MS = 3_600_000;

export function createResultKeeper(o: { results: ResultStore; clock: Clock }) {
  return async (r: { rec: ConnectionRecord; agentId: string | undefined; task: RemoteTask }): Promise<StoredResult> => {
    const now = o.clock.now();
    const stored: StoredResult = {
      // time-ordered, so that a commit's new results sit side by side in the store rather than on random pages
      id: `res_${timeOrderedId(now).replace(/-/g, '')}`,
      workspace: r.rec.workspace,
      connection: r.rec.name,
      ...(r.agentId !== undefined && { agentId: r.agentId }),
      remoteTaskId: r.task.id,
      state: r.task.status.state,
      summary: summarize(r.task),
      ...(r.rec.storeResults && { raw: r.task }),
      createdAt: now,
      expiresAt: now + Math.round(r.rec.resultRetentionHours * HOUR_MS),
    };
    await o.results.put(stored);
    return stored;
  };
}
