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
 * KEYS: task, taskRev, events, tasksEnded, the new state's set, then the other states' sets.
 * ARGV: mode (create|put), expected seq ('' for none), packed task, new rev, ended-at score ('' unless terminal),
 * task id, events trim cut ('' for none), then per event: seq, packed event.
 * The one task write: check, record, state index, ended index and events in one atomic step. 1 written, 0 refused.
 * A task stored before revs existed has none: it is admitted as if open (create still sees the record).
 */
export const writeTask10 = script({
  numberOfKeys: 10,
  lua: `
if ARGV[1] == 'create' then
  if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
else
  local rev = redis.call('GET', KEYS[2])
  if rev then
    local seq, kind = string.match(rev, '^(%d+):(%a+)$')
    if kind == 'end' then return 0 end
    if ARGV[2] ~= '' and seq ~= ARGV[2] then return 0 end
  elseif ARGV[2] ~= '' and redis.call('EXISTS', KEYS[1]) == 0 then
    return 0
  end
end
redis.call('SET', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], ARGV[4])
for i = 6, #KEYS do redis.call('SREM', KEYS[i], ARGV[6]) end
redis.call('SADD', KEYS[5], ARGV[6])
if ARGV[5] ~= '' then redis.call('ZADD', KEYS[4], ARGV[5], ARGV[6]) end
for i = 8, #ARGV, 2 do redis.call('ZADD', KEYS[3], ARGV[i], ARGV[i + 1]) end
if ARGV[7] ~= '' then redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[7]) end
return 1
`,
});

/**
 * KEYS: tasksEnded, then every state's set. ARGV: ended-by score, limit, then the key prefixes of task, taskRev,
 * events and push configs. Deletes the terminal tasks that ended by then, with everything kept under their id;
 * returns their ids.
 */
export const sweepTasks7 = script({
  numberOfKeys: 7,
  lua: `
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(gone) do
  redis.call('DEL', ARGV[3] .. id, ARGV[4] .. id, ARGV[5] .. id, ARGV[6] .. id)
  for i = 2, #KEYS do redis.call('SREM', KEYS[i], id) end
  redis.call('ZREM', KEYS[1], id)
end
return gone
`,
});
