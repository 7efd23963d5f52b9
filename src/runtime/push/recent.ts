// The last webhook delivery attempts of each workspace for the dashboard (what was tried, how it went), kept in the
// store so that every instance lists the deliveries any of them made. Recording never holds up or fails a delivery:
// the write runs on its own and a store error is only logged.
import type { DeliveryRecord } from '../../protocol/dashboard.js';
import type { Clock } from '../clock.js';
import type { DashboardStore } from '../store/types.js';
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

const view = (d: DeliveryRecord): DeliveryView => ({
  id: d.id,
  task_id: d.taskId,
  config_id: d.configId,
  attempts: d.attempts,
  result: d.result,
  status: d.status,
  error: d.error,
  at: new Date(d.at).toISOString(),
});

export class RecentDeliveries {
  private readonly writing = new Set<Promise<void>>();

  constructor(
    private readonly o: {
      store: Pick<DashboardStore, 'recordDelivery' | 'deliveries'>;
      /** deliveries kept per workspace */
      perWorkspace: number;
      clock: Clock;
      onError: (e: unknown) => void;
    },
  ) {}

  record(a: AttemptReport): void {
    const ws = a.job.workspaceId;
    const failed = a.outcome.kind === 'failed' ? a.outcome : undefined;
    const d: DeliveryRecord = {
      id: a.job.id,
      // the task key is workspace/id: the id is what the workspace knows
      taskId: a.job.taskKey.slice(ws.length + 1),
      configId: a.job.configId,
      attempts: a.job.attempts + 1,
      result: a.result,
      status: a.outcome.status ?? null,
      error: failed?.reason ?? null,
      at: this.o.clock.now(),
    };
    // the store's methods are async: a failure is a rejection, never a throw here
    const p = this.o.store.recordDelivery(ws, d, { keep: this.o.perWorkspace }).catch(this.o.onError);
    this.writing.add(p);
    void p.finally(() => this.writing.delete(p));
  }

  async list(workspace: string): Promise<DeliveryView[]> {
    return (await this.o.store.deliveries(workspace)).map(view);
  }

  /** Resolves when every record under way is written (tests, and a closing instance). */
  async idle(): Promise<void> {
    await Promise.all([...this.writing]);
  }
}
