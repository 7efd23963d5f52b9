// The Redis push configs: one hash per task (config id -> packed StoredPushConfig).
import { StoredPushConfig } from '../../../protocol/records.js';
import type { PushConfigStore } from '../types.js';
import { entries, type RedisParts } from './client.js';
import { decode, packr } from './values.js';

export function redisPushConfigStore(o: Pick<RedisParts, 'client' | 'bin' | 'keys'>): PushConfigStore {
  const { client, bin, keys: k } = o;
  const decodePush = (bytes: Buffer, id: string) => decode({ schema: StoredPushConfig, bytes, record: 'push-config', id });
  return {
    async put(cfg) {
      await client.hSet(k.pushConfigs(cfg.taskId), cfg.id, packr.pack(cfg));
    },
    async get(taskId, id) {
      const bytes = await bin.hGet(k.pushConfigs(taskId), id);
      return bytes === null ? undefined : decodePush(bytes, id);
    },
    async list(taskId) {
      return (await entries(bin, k.pushConfigs(taskId))).map(([id, bytes]) => decodePush(bytes, id));
    },
    async delete(taskId, id) {
      return (await client.hDel(k.pushConfigs(taskId), id)) > 0;
    },
  };
}
