// The supervisor hook: turns each stored change of a task into push jobs, one per live config, without blocking the task.
import type { Task } from '../../protocol/model.js';
import type { Clock } from '../clock.js';
import type { Log } from '../log.js';
import type { PushConfigStore, PushJobStore } from '../store/types.js';
import { taskKey } from '../store/types.js';
import { jobsFor } from './jobs.js';

export interface PushNotifierOptions {
  configs: PushConfigStore;
  jobs: PushJobStore;
  clock: Clock;
  log: Log;
  /** told after jobs were stored (the worker wakes up) */
  onEnqueued: () => void;
}

export interface PushNotifier {
  /** the supervisor's `onPersisted`: returns at once; the work is chained per task so jobs enter in order */
  onPersisted(task: Task): void;
  /** resolves when every change handed in so far has its jobs stored */
  settled(): Promise<void>;
}

export function createPushNotifier(o: PushNotifierOptions): PushNotifier {
  const chains = new Map<string, Promise<void>>();

  async function enqueue(task: Task): Promise<void> {
    const configs = (await o.configs.list(taskKey(task.workspaceId, task.id))).filter((c) => !c.disabled);
    if (configs.length === 0) return;
    await o.jobs.enqueue(jobsFor({ task, configs, now: o.clock.now() }));
    o.onEnqueued();
  }

  return {
    onPersisted(task) {
      const key = taskKey(task.workspaceId, task.id);
      const next = (chains.get(key) ?? Promise.resolve())
        .then(() => enqueue(task))
        .catch((err: unknown) => o.log('push notification not queued', { task: key, seq: task.seq, error: err instanceof Error ? err.message : String(err) }));
      chains.set(key, next);
      void next.then(() => {
        if (chains.get(key) === next) chains.delete(key);
      });
    },
    async settled() {
      while (chains.size > 0) await Promise.allSettled([...chains.values()]);
    },
  };
}
