// The supervisor hook: turns each stored change of a task into push jobs, one per live config, in the task's own commit.
import type { Task } from '../../protocol/model.js';
import type { Clock } from '../clock.js';
import type { KeyStore, PushConfigStore } from '../store/types.js';
import { taskKey } from '../store/types.js';
import { jobsFor, type PushView } from './jobs.js';
import type { PushJob, StoredPushConfig } from '../../protocol/records.js';
import { type AgentPermits, pushViewOf } from './key-view.js';

export interface PushNotifierOptions {
  configs: PushConfigStore;
  keys: KeyStore;
  clock: Clock;
  /** the task's agent's own check of a config's key (absent: none) */
  permits?: AgentPermits;
  /** told after a change's jobs were stored (the worker wakes up) */
  onEnqueued: () => void;
}

/** The jobs of one group of changes, and what to tell once the store took them (with the change, in one write). */
export interface PreparedJobs {
  jobs: readonly PushJob[];
  stored: () => void;
}

export interface PushNotifier {
  /**
   * Reads the task's live configs and prepares its jobs for `records` (one group of changes of one task, in
   * order); undefined when nobody is to be notified. The caller stores the jobs in the change's own atomic write
   * (TaskWriteEvents.pushJobs): a crash can lose neither one without the other.
   */
  prepare(records: readonly Task[]): Promise<PreparedJobs | undefined>;
}

export function createPushNotifier(o: PushNotifierOptions): PushNotifier {
  return {
    async prepare(records) {
      const first = records[0];
      if (!first) return undefined;
      const live = (await o.configs.list(taskKey(first.workspaceId, first.id))).filter((c) => !c.disabled);
      if (live.length === 0) return undefined;
      const now = o.clock.now();
      // each config's body is what its registering key may read now; a revoked or expired key's configs get nothing,
      // nor those of a key the task's agent no longer lets in
      const configs: Array<{ config: StoredPushConfig; view: PushView }> = [];
      for (const config of live) {
        const view = await pushViewOf({ keys: o.keys, keyId: config.keyId, now, agentId: first.agentId, permits: o.permits });
        if (view) configs.push({ config, view });
      }
      if (configs.length === 0) return undefined;
      return { jobs: records.flatMap((task) => jobsFor({ task, configs, now })), stored: o.onEnqueued };
    },
  };
}
