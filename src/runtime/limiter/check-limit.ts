// The one script behind a Redis check: both windows pruned, decided and recorded atomically.
import { defineLua } from './lua.js';

/**
 * KEYS[1], KEYS[2]: the minute and hour lists, timestamps in ms, oldest first.
 * ARGV: now, perMinute, perHour, minute ms, hour ms (time comes from the caller's clock, not TIME,
 * so tests drive it and every engine measures windows the same way), and '0' to decide without recording (a peek;
 * absent or anything else records).
 * Returns {allowed, minuteCount, minuteGate, hourCount, hourGate}; a gate is -1 while its window has room.
 */
export const checkLimit = defineLua({
  name: 'checkLimit-2',
  numberOfKeys: 2,
  source: `
local now = tonumber(ARGV[1])

local function live(key, windowMs)
  local cutoff = now - windowMs
  local newest = redis.call('LINDEX', key, -1)
  if not newest then return 0, false end
  if tonumber(newest) <= cutoff then
    redis.call('DEL', key)
    return 0, false
  end
  while tonumber(redis.call('LINDEX', key, 0)) <= cutoff do
    redis.call('LPOP', key)
  end
  return redis.call('LLEN', key), newest
end

local function record(key, newest, windowMs)
  -- an instance whose clock lags another's writes the newest time instead, so the list stays
  -- sorted and pruning from the head stays exact (erring towards refusing)
  local t = ARGV[1]
  if newest and tonumber(newest) > now then t = newest end
  redis.call('RPUSH', key, t)
  redis.call('PEXPIRE', key, windowMs)
end

local function gate(key, count, limit)
  if count < limit then return -1 end
  return tonumber(redis.call('LINDEX', key, count - limit))
end

local perMinute, perHour = tonumber(ARGV[2]), tonumber(ARGV[3])
local minuteMs, hourMs = tonumber(ARGV[4]), tonumber(ARGV[5])
local m, mNewest = live(KEYS[1], minuteMs)
local h, hNewest = live(KEYS[2], hourMs)
local allowed = 0
if m < perMinute and h < perHour then
  allowed = 1
  if ARGV[6] ~= '0' then
    record(KEYS[1], mNewest, minuteMs)
    record(KEYS[2], hNewest, hourMs)
    m, h = m + 1, h + 1
  end
end
return {allowed, m, gate(KEYS[1], m, perMinute), h, gate(KEYS[2], h, perHour)}
`,
});
