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

/**
 * KEYS: the task, then the six state index sets in TaskState order. ARGV: mode ('put' | 'create'), the packed task,
 * its index member (the task key), its state's position (1-based, among the sets), then the terminal states' positions.
 * create: nothing when the task exists. put: nothing when the stored task's state is terminal (read from the index,
 * so the record is not decoded). Returns 1 when written, 0 when refused.
 */
export const writeTask7 = script({
  numberOfKeys: 7,
  lua: `
local exists = redis.call('EXISTS', KEYS[1]) == 1
if ARGV[1] == 'create' and exists then return 0 end
if ARGV[1] == 'put' and exists then
  for i = 5, #ARGV do
    if redis.call('SISMEMBER', KEYS[1 + tonumber(ARGV[i])], ARGV[3]) == 1 then return 0 end
  end
end
redis.call('SET', KEYS[1], ARGV[2])
local own = 1 + tonumber(ARGV[4])
for i = 2, 7 do
  if i == own then redis.call('SADD', KEYS[i], ARGV[3]) else redis.call('SREM', KEYS[i], ARGV[3]) end
end
return 1
`,
});
