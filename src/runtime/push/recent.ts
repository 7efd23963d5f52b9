// The last webhook delivery attempts of each workspace, in memory, for the dashboard (what was tried, how it went).
import type { AttemptReport } from './worker.js';

export interface DeliveryView {
  id: string;
  task_id: string;
  config_id: string;
  attempts: number;
  result: AttemptReport['result'];
  status: number | null;
  error: string | null;
  at: string;
}

export class RecentDeliveries {
  private readonly byWorkspace = new Map<string, DeliveryView[]>();

  constructor(private readonly o: { perWorkspace: number; now: () => number }) {}

  record(a: AttemptReport): void {
    const ws = a.job.workspaceId;
    let list = this.byWorkspace.get(ws);
    if (!list) this.byWorkspace.set(ws, (list = []));
    const failed = a.outcome.kind === 'failed' ? a.outcome : undefined;
    list.unshift({
      id: a.job.id,
      // the task key is workspace/id: the id is what the workspace knows
      task_id: a.job.taskKey.slice(ws.length + 1),
      config_id: a.job.configId,
      attempts: a.job.attempts + 1,
      result: a.result,
      status: a.outcome.status ?? null,
      error: failed?.reason ?? null,
      at: new Date(this.o.now()).toISOString(),
    });
    if (list.length > this.o.perWorkspace) list.length = this.o.perWorkspace;
  }

  list(workspace: string): DeliveryView[] {
    return this.byWorkspace.get(workspace) ?? [];
  }
}
