// The Lua scripts of the Redis store: steps that must read before they write, done in one atomic round trip.
import { createHash } from 'node:crypto';

export interface LuaScript {
  readonly lua: string;
  readonly sha: string;
  readonly numberOfKeys: number;
}

export function script(opts: { numberOfKeys: number; lua: string }): LuaScript {
  return { ...opts, sha: createHash('sha1').update(opts.lua).digest('hex') };
}

/**
 * KEYS: keyRecords, keyIdByHash, keyHashById. ARGV: id, hash, packed record.
 * A key whose hash changed must stop resolving by its old hash; the guard on the old entry
 * keeps us from deleting a hash that now belongs to a different key.
 */
export const putKey3 = script({
  numberOfKeys: 3,
  lua: `
local old = redis.call('HGET', KEYS[3], ARGV[1])
if old and old ~= ARGV[2] and redis.call('HGET', KEYS[2], old) == ARGV[1] then
  redis.call('HDEL', KEYS[2], old)
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
return 1
`,
});

/** KEYS: keyIdByHash, keyRecords. ARGV: hash. Returns the packed record or nil: authentication in one round trip. */
export const keyByHash2 = script({
  numberOfKeys: 2,
  lua: `
local id = redis.call('HGET', KEYS[1], ARGV[1])
if not id then return false end
return redis.call('HGET', KEYS[2], id)
`,
});
