// The LMDB push configs: `push-configs` ([taskKey, configId] -> StoredPushConfig), read by task with a range.
import type { Database, Key, RootDatabase } from 'lmdb';
import { StoredPushConfig } from '../../../protocol/records.js';
import type { PushConfigStore } from '../types.js';
import { checked } from '../validate.js';
import { getDecoded, rangeDecoded } from './decoded.js';
import { AFTER_ANY_STRING } from './ranges.js';

export interface LmdbPushConfigStoreOptions {
  root: RootDatabase;
  /** [taskKey, configId] -> StoredPushConfig */
  db: Database<unknown, Key>;
  /** drops lmdb-js's reused read snapshot, so a read sees other processes' commits */
  fresh: () => void;
}

export function lmdbPushConfigStore(o: LmdbPushConfigStoreOptions): PushConfigStore {
  const { root, db: push, fresh } = o;
  return {
    async put(cfg) {
      await push.put([cfg.taskId, cfg.id], cfg);
    },
    add(cfg, { maxPerTask }) {
      // count and write in one write transaction: LMDB runs one at a time, across processes too
      return root.transaction(() => {
        const k = [cfg.taskId, cfg.id];
        if (!push.doesExist(k)) {
          const held = push.getKeysCount({ start: [cfg.taskId], end: [cfg.taskId, AFTER_ANY_STRING] });
          if (held >= maxPerTask) return { stored: false, held } as const;
        }
        push.put(k, cfg);
        return { stored: true } as const;
      });
    },
    async get(taskId, id) {
      fresh();
      const v = getDecoded({ db: push, key: [taskId, id], record: 'push-config', id });
      return v === undefined ? undefined : checked({ schema: StoredPushConfig, value: v, record: 'push-config', id });
    },
    async list(taskId) {
      fresh();
      const out: StoredPushConfig[] = [];
      const range = { start: [taskId], end: [taskId, AFTER_ANY_STRING] };
      for (const { value } of rangeDecoded({ db: push, range, record: 'push-config', idOf: (k) => (Array.isArray(k) ? String(k[1]) : taskId) })) {
        out.push(checked({ schema: StoredPushConfig, value, record: 'push-config', id: taskId }));
      }
      return out;
    },
    async delete(taskId, id) {
      // lmdb-js resolves remove() with true even when nothing was there, so look inside the write.
      return root.transaction(() => {
        const k = [taskId, id];
        if (!push.doesExist(k)) return false;
        push.remove(k);
        return true;
      });
    },
  };
}

/** Inside a write transaction: drops every push config of one task (retention). */
export function dropPushConfigs(push: Database<unknown, Key>, taskId: string): void {
  for (const c of push.getKeys({ start: [taskId], end: [taskId, AFTER_ANY_STRING] })) push.remove(c);
}

/** Whether the task holds any push config (inside a task write's transaction: one key read at most). */
export function holdsPushConfigs(push: Database<unknown, Key>, taskId: string): boolean {
  for (const _ of push.getKeys({ start: [taskId], end: [taskId, AFTER_ANY_STRING], limit: 1 })) return true;
  return false;
}
