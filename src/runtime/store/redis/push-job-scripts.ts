// The Lua scripts of the Redis push job queues (their layout: push-jobs.ts), one atomic step each; the store in
// push-jobs.ts runs them.
import type { PushJob } from '../../../protocol/records.js';
import { script } from './scripts.js';
import { packr } from './values.js';

/**
 * Lua: adds one job to its queue (a job already stored at that queue and seq is replaced) and lists the queue as
 * waiting. Shared by the enqueue script and the task write, which enqueues the jobs its change causes in its own step.
 */
export const ENQUEUE_JOB_LUA = `
local function enqueueJob(pushDue, queuePrefix, jobPrefix, q, id, seq, due, data)
  local qkey = queuePrefix .. q
  for _, old in ipairs(redis.call('ZRANGEBYSCORE', qkey, seq, seq)) do
    if old ~= id then
      redis.call('ZREM', qkey, old)
      redis.call('DEL', jobPrefix .. old)
    end
  end
  redis.call('HSET', jobPrefix .. id, 'data', data, 'due', due)
  redis.call('ZADD', qkey, seq, id)
  redis.call('ZADD', pushDue, 'NX', due, q)
end
`;

/** The ARGV of each job for enqueueJob (after the prefixes): queue, id, seq, due, packed job (five per job). */
export function pushJobArgs(jobs: readonly PushJob[]): Array<string | Buffer> {
  const args: Array<string | Buffer> = [];
  for (const j of jobs) args.push(j.queue, j.id, String(j.seq), String(j.dueAt), packr.pack(j));
  return args;
}

/** KEYS: pushDue. ARGV: queue prefix, job prefix, then per job: queue, id, seq, due, packed job. */
export const enqueuePush1 = script({
  numberOfKeys: 1,
  lua: `${ENQUEUE_JOB_LUA}
for i = 3, #ARGV, 5 do
  enqueueJob(KEYS[1], ARGV[1], ARGV[2], ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4])
end
return 1
`,
});

/**
 * Lua: the key of the sorted set counting the leases now held on a queue's workspace (every instance's), from the
 * queue name's workspace prefix (what workspaceQueuePrefix builds: up to and including the first '/'); nil for a
 * name that has none.
 */
const INFLIGHT_LUA = `
local function inflightKey(prefix, q)
  local ws = string.match(q, '^%[".-/')
  if ws then return prefix .. ws, ws end
  return nil, nil
end
`;

/**
 * Lua: the attempts a workspace holds in flight: the larger of the leases every instance holds on its queues (those
 * not lapsed by `now`) and what this instance says it holds. `prune` drops the lapsed leases (a claim's write).
 */
const HELD_LUA = `
local function heldCounter(prefix, now, mine, prune)
  local cache = {}
  return function(ws)
    local n = cache[ws]
    if n == nil then
      local key = prefix .. ws
      local shared
      if prune then
        redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
        shared = redis.call('ZCARD', key)
      else
        shared = redis.call('ZCOUNT', key, '(' .. now, '+inf')
      end
      n = math.max(shared, mine[ws] or 0)
    end
    cache[ws] = n
    return n
  end, function(ws, n) cache[ws] = n end
end
`;

/**
 * The most due queues one claim script reads (CLAIM_PAGE at a time); the claim runs scripts one after another,
 * each from where the last stopped, until it has its heads or has read every due queue: Redis is never held for more
 * than this many, and no queue, however many others wait before it, is past the claim's reach.
 */
export const CLAIM_SCAN = 10_000;
const CLAIM_PAGE = 500;
/** the first page a wake-up reads (firstDue1); each next one is 8 times larger, up to CLAIM_PAGE */
const FIRST_DUE_PAGE = 8;

/**
 * KEYS: pushDue, pushLeases. ARGV: now, lease end, token, limit, queue prefix, job prefix, in-flight prefix, lease ms,
 * first rank, most queues to read, then the workspace cap (capArgs: max, 0 for none, then workspace queue prefix and
 * attempts this instance holds, per workspace holding some).
 * Returns: 1 when every due queue from the first rank on was read (0: the bound stopped it), the rank to go on from,
 * then the packed heads it leased. A queue left empty, or a head whose record is gone, is tidied up.
 *
 * Due queues come oldest first (push-due's order: score, then name), and only those: each page is cut to the queues
 * scored at or before now, so none waiting out a backoff or a lease is read. A queue passed over for its workspace's cap
 * keeps its place (and its score), a leased one is re-scored past now, so the rank to go on from counts those that
 * stayed. A workspace's held attempts are counted across instances: each lease is a member of its workspace's
 * in-flight set until it ends or lapses.
 */
export const claimPush2 = script({
  numberOfKeys: 2,
  lua: `${INFLIGHT_LUA}${HELD_LUA}
local out = {}
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[4])
local max = tonumber(ARGV[11])
local mine = {}
for i = 12, #ARGV, 2 do mine[ARGV[i]] = tonumber(ARGV[i + 1]) end
local heldBy, setHeld = heldCounter(ARGV[7], ARGV[1], mine, true)
local rank, budget, read, done = tonumber(ARGV[9]), tonumber(ARGV[10]), 0, 0
while #out < limit and read < budget do
  -- only the queues already claimable (O(log n) to count): those waiting out a backoff or a lease are never read, so
  -- a claim costs the same behind any backlog of them
  local page = math.min(${CLAIM_PAGE}, budget - read, redis.call('ZCOUNT', KEYS[1], '-inf', now) - rank)
  if page <= 0 then done = 1 break end
  local due = redis.call('ZRANGE', KEYS[1], rank, rank + page - 1, 'WITHSCORES')
  local stayed = 0
  local ended = #due < 2 * page
  for i = 1, #due, 2 do
    if #out >= limit then ended = false break end
    local q = due[i]
    if tonumber(due[i + 1]) > now then ended = true break end
    read = read + 1
    local ikey, ws = inflightKey(ARGV[7], q)
    if max > 0 and ws and heldBy(ws) >= max then
      -- its workspace holds its share: the queue waits, in order, for a later claim
      stayed = stayed + 1
    else
      local qkey = ARGV[5] .. q
      local head = redis.call('ZRANGE', qkey, 0, 0)[1]
      if not head then
        redis.call('ZREM', KEYS[1], q)
        redis.call('HDEL', KEYS[2], q)
      else
        local data = redis.call('HGET', ARGV[6] .. head, 'data')
        if data then
          redis.call('ZADD', KEYS[1], ARGV[2], q)
          redis.call('HSET', KEYS[2], q, ARGV[3])
          out[#out + 1] = data
          if ikey then
            redis.call('ZADD', ikey, ARGV[2], q)
            -- a safety net for a set no claim looks at again: it lasts as long as its longest lease may
            if redis.call('PTTL', ikey) < tonumber(ARGV[8]) then redis.call('PEXPIRE', ikey, ARGV[8]) end
            if max > 0 then setHeld(ws, heldBy(ws) + 1) end
          end
        else
          redis.call('ZREM', qkey, head)
          stayed = stayed + 1
        end
      end
    end
  end
  rank = rank + stayed
  if ended then done = 1 break end
end
local reply = { done, rank }
for _, d in ipairs(out) do reply[#reply + 1] = d end
return reply
`,
});

/**
 * KEYS: pushDue, pushLeases, queue, job. ARGV: queue, job id, token, job prefix, in-flight prefix. 1 when done, 0
 * when the lease is not this one.
 */
export const finishPush4 = script({
  numberOfKeys: 4,
  lua: `${INFLIGHT_LUA}
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[3] then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
local ikey = inflightKey(ARGV[5], ARGV[1])
if ikey then redis.call('ZREM', ikey, ARGV[1]) end
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('DEL', KEYS[4])
local head = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
if not head then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], redis.call('HGET', ARGV[4] .. head, 'due') or 0, ARGV[1])
end
return 1
`,
});

/**
 * KEYS: pushDue, pushLeases, job. ARGV: queue, token, packed job, due, in-flight prefix. 1 when done, 0 when the lease
 * is not this one.
 */
export const retryPush3 = script({
  numberOfKeys: 3,
  lua: `${INFLIGHT_LUA}
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
local ikey = inflightKey(ARGV[5], ARGV[1])
if ikey then redis.call('ZREM', ikey, ARGV[1]) end
redis.call('HSET', KEYS[3], 'data', ARGV[3], 'due', ARGV[4])
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
return 1
`,
});

/** KEYS: pushDue. ARGV: queue prefix, job prefix. Every waiting job, queue by queue, each in seq order. */
export const listPush1 = script({
  numberOfKeys: 1,
  lua: `
local out = {}
for _, q in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  for _, id in ipairs(redis.call('ZRANGE', ARGV[1] .. q, 0, -1)) do
    local data = redis.call('HGET', ARGV[2] .. id, 'data')
    if data then out[#out + 1] = data end
  end
end
return out
`,
});

/**
 * KEYS: pushDue, pushLeases. ARGV: queue prefix, job prefix, in-flight prefix, then queues. Removes those queues with
 * every job in them (a job delivered meanwhile is simply already gone), and their leases. Returns how many jobs.
 */
export const dropQueues2 = script({
  numberOfKeys: 2,
  lua: `${INFLIGHT_LUA}
local n = 0
for i = 4, #ARGV do
  local q = ARGV[i]
  local qkey = ARGV[1] .. q
  for _, id in ipairs(redis.call('ZRANGE', qkey, 0, -1)) do
    n = n + redis.call('DEL', ARGV[2] .. id)
  end
  redis.call('DEL', qkey)
  redis.call('ZREM', KEYS[1], q)
  redis.call('HDEL', KEYS[2], q)
  local ikey = inflightKey(ARGV[3], q)
  if ikey then redis.call('ZREM', ikey, q) end
end
return n
`,
});

/** queues per dropQueues2 call (a swept task's queue holds a few jobs: one per change while its webhook failed) */
export const DROP_QUEUES = 50;

/**
 * KEYS: pushDue, pushLeases. ARGV: the instance's token start, this run's token start, queue prefix, job prefix,
 * in-flight prefix. Frees the leases of the instance's other runs: each queue is due again at its head's due time,
 * and counts no more against its workspace's share. Returns how many.
 */
export const releaseEarlier2 = script({
  numberOfKeys: 2,
  lua: `${INFLIGHT_LUA}
local n = 0
local all = redis.call('HGETALL', KEYS[2])
for i = 1, #all, 2 do
  local q, token = all[i], all[i + 1]
  if string.sub(token, 1, #ARGV[1]) == ARGV[1] and string.sub(token, 1, #ARGV[2]) ~= ARGV[2] then
    redis.call('HDEL', KEYS[2], q)
    local ikey = inflightKey(ARGV[5], q)
    if ikey then redis.call('ZREM', ikey, q) end
    local head = redis.call('ZRANGE', ARGV[3] .. q, 0, 0)[1]
    if head then
      redis.call('ZADD', KEYS[1], redis.call('HGET', ARGV[4] .. head, 'due') or 0, q)
    else
      redis.call('ZREM', KEYS[1], q)
    end
    n = n + 1
  end
end
return n
`,
});

/**
 * ARGV: queue prefix, job prefix, how many jobs per queue, then queues. For each queue: its length, then the packed
 * jobs at its front (those whose record is still there). The caller bounds queues x jobs, so the reply is bounded.
 */
export const peekQueues0 = script({
  numberOfKeys: 0,
  lua: `
local out = {}
local n = tonumber(ARGV[3])
for i = 4, #ARGV do
  local qkey = ARGV[1] .. ARGV[i]
  local one = { redis.call('ZCARD', qkey) }
  for _, id in ipairs(redis.call('ZRANGE', qkey, 0, n - 1)) do
    local data = redis.call('HGET', ARGV[2] .. id, 'data')
    if data then one[#one + 1] = data end
  end
  out[#out + 1] = one
end
return out
`,
});

/** queue names per ZSCAN step over push-due, and the most jobs one peek may answer with */
export const SCAN_COUNT = 500;
export const PEEK_JOBS = 500;

/** A glob (ZSCAN MATCH) matching exactly the names that begin with `prefix`. */
export const startsWithGlob = (prefix: string): string => `${prefix.replace(/[\\*?[\]]/g, '\\$&')}*`;

/**
 * KEYS: pushDue. ARGV: now ('' when unknown: only this instance's attempts count), in-flight prefix, first rank, most
 * queues to read, then the workspace cap (capArgs). The score of the first queue from that rank on whose workspace is
 * below its share: { 'at', score }; { 'none' } when there is none; { 'more', rank } when the bound stopped the read
 * first (go on from that rank).
 */
export const firstDue1 = script({
  numberOfKeys: 1,
  lua: `${INFLIGHT_LUA}${HELD_LUA}
local max = tonumber(ARGV[5])
local mine = {}
for i = 6, #ARGV, 2 do mine[ARGV[i]] = tonumber(ARGV[i + 1]) end
local heldBy = heldCounter(ARGV[2], ARGV[1], mine, false)
if ARGV[1] == '' then heldBy = function(ws) return mine[ws] or 0 end end
local rank, budget, read = tonumber(ARGV[3]), tonumber(ARGV[4]), 0
-- pages grow from a few queues: the first queue answers unless its workspace is at its share, so the common wake-up
-- reads a handful of entries, not a full page of a backlog it does not need
local size = ${FIRST_DUE_PAGE}
while read < budget do
  local page = math.min(size, budget - read)
  local got = redis.call('ZRANGE', KEYS[1], rank, rank + page - 1, 'WITHSCORES')
  for i = 1, #got, 2 do
    local _, ws = inflightKey('', got[i])
    if max == 0 or not ws or heldBy(ws) < max then return { 'at', got[i + 1] } end
  end
  if #got < 2 * page then return { 'none' } end
  rank = rank + page
  read = read + page
  size = math.min(size * 8, ${CLAIM_PAGE})
end
return { 'more', tostring(rank) }
`,
});
