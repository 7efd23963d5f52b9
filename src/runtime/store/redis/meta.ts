// The Redis meta area: one hash (meta key -> packed value) for server-wide values such as per-workspace webhook secrets,
// and a sorted set of the keys put with an expiry, scored by it, swept a bounded batch at a time by each expiring put
// (judged on the caller's clock, as the LMDB engine does, rather than by a Redis TTL: a hash field has none before 7.4).
import { StoreCorruptError } from '../errors.js';
import type { MetaStore } from '../types.js';
import type { RedisParts } from './client.js';
import { script } from './scripts.js';
import { packr } from './values.js';
import { versionOf } from '../versioned.js';

/** Expired entries removed per expiring put: a put never pays for a long backlog, and the puts recur (beats). */
const SWEEP_BATCH = 20;

/**
 * KEYS: meta, metaExpiry. ARGV: key, packed value, now, expiresAt, sweep limit. Removes up to `limit` entries that
 * expired by `now`, then stores the value and its expiry.
 */
const putExpiring2 = script({
  numberOfKeys: 2,
  lua: `
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[3], 'LIMIT', 0, tonumber(ARGV[5]))) do
  redis.call('HDEL', KEYS[1], m)
  redis.call('ZREM', KEYS[2], m)
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
return 1
`,
});

/**
 * KEYS: meta, metaExpiry. ARGV: key, packed value, version ('' for none). Stores the value for good only while the
 * entry's bytes are at that version (store/versioned.ts), or with '' only while there is no entry.
 */
const putIfVersion2 = script({
  numberOfKeys: 2,
  lua: `
local v = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[3] == '' then
  if v then return 0 end
elseif not v or redis.sha1hex(v) ~= ARGV[3] then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`,
});

function unpacked(key: string, bytes: Buffer): unknown {
  try {
    return packr.unpack(bytes);
  } catch (cause) {
    throw new StoreCorruptError({ record: 'meta', id: key, cause });
  }
}

export function redisMetaStore(o: Pick<RedisParts, 'client' | 'bin' | 'keys' | 'run'>): MetaStore {
  const { client, bin, keys: k, run } = o;
  return {
    async get(key) {
      const bytes = await bin.hGet(k.meta, key);
      return bytes === null ? undefined : unpacked(key, bytes);
    },
    async getVersioned(key) {
      const bytes = await bin.hGet(k.meta, key);
      return bytes === null ? undefined : { rec: unpacked(key, bytes), version: versionOf(bytes) };
    },
    async putIfVersion(key, value, version) {
      return (await run({ script: putIfVersion2, keys: [k.meta, k.metaExpiry], args: [key, packr.pack(value), version ?? ''] })) === 1;
    },
    async put(key, value, exp) {
      if (exp) {
        await run({
          script: putExpiring2,
          keys: [k.meta, k.metaExpiry],
          args: [key, packr.pack(value), String(exp.now), String(exp.expiresAt), String(SWEEP_BATCH)],
        });
        return;
      }
      // kept for good: an expiry an earlier put gave it goes in the same transaction
      await client.multi().hSet(k.meta, key, packr.pack(value)).zRem(k.metaExpiry, key).exec();
    },
  };
}
