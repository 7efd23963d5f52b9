// The supervisor hook: turns each stored change of a task into push jobs, one per live config, in the task's own commit.
import type { Task } from '../../protocol/model.js';
import type { Clock } from '../clock.js';
import type { PushConfigStore, PushJobStore } from '../store/types.js';
import { taskKey } from '../store/types.js';
import { jobsFor } from './jobs.js';

export interface PushNotifierOptions {
  configs: PushConfigStore;
  jobs: PushJobStore;
  clock: Clock;
  /** told after jobs were stored (the worker wakes up) */
  onEnqueued: () => void;
}

/** Issues the prepared writes; called in the same tick as the task's own writes, so they share one commit. */
export type SideWrite = () => Promise<void>;

export interface PushNotifier {
  /**
   * Reads the task's live configs and prepares its jobs for `records` (one group of changes of one task, in
   * order); undefined when nobody is to be notified. The jobs enter the store with the change itself: a crash
   * can lose neither one without the other.
   */
  prepare(records: readonly Task[]): Promise<SideWrite | undefined>;
}

export function createPushNotifier(o: PushNotifierOptions): PushNotifier {
  return {
    async prepare(records) {
      const first = records[0];
      if (!first) return undefined;
      const configs = (await o.configs.list(taskKey(first.workspaceId, first.id))).filter((c) => !c.disabled);
      if (configs.length === 0) return undefined;
      const now = o.clock.now();
      const jobs = records.flatMap((task) => jobsFor({ task, configs, now }));
      return async () => {
        await o.jobs.enqueue(jobs);
        o.onEnqueued();
      };
    },
  };
}
