// The Redis push configs: one hash per task (config id -> packed StoredPushConfig); a bounded add is one script.
import { StoredPushConfig } from '../../../protocol/records.js';
import type { PushConfigStore } from '../types.js';
import { entries, type RedisParts } from './client.js';
import { script } from './scripts.js';
import { decode, packr } from './values.js';

/**
 * KEYS: the task's config hash. ARGV: config id, packed config, the most configs the task may hold.
 * Count and write in one atomic step, so two instances adding at once cannot both pass the count. A config id the
 * hash holds is replaced and not counted. -1 stored; otherwise the count held, and nothing written.
 */
const addConfig = script({
  numberOfKeys: 1,
  lua: `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  local held = redis.call('HLEN', KEYS[1])
  if held >= tonumber(ARGV[3]) then return held end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return -1
`,
});

export function redisPushConfigStore(o: Pick<RedisParts, 'client' | 'bin' | 'keys' | 'run'>): PushConfigStore {
  const { client, bin, keys: k, run } = o;
  const decodePush = (bytes: Buffer, id: string) => decode({ schema: StoredPushConfig, bytes, record: 'push-config', id });
  return {
    async put(cfg) {
      await client.hSet(k.pushConfigs(cfg.taskId), cfg.id, packr.pack(cfg));
    },
    async add(cfg, { maxPerTask }) {
      const reply = Number(await run({ script: addConfig, keys: [k.pushConfigs(cfg.taskId)], args: [cfg.id, packr.pack(cfg), String(maxPerTask)] }));
      return reply < 0 ? { stored: true } : { stored: false, held: reply };
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
