// The Redis push job queues: every step is one Lua script, so that claims by several instances never overlap.
//
// Layout (names from runtime/redis/keys.ts): each job is a hash {data, due}; each queue (task + config) a
// sorted set of job ids by seq; `push-due` a sorted set of the queues that have jobs, scored by the
// time their head may be claimed (its due time, or the end of the lease someone holds on it); and
// `push-leases` maps a queue to the token of that lease; `push-inflight:<workspace queue prefix>` is a sorted set of
// the workspace's leased queues by lease end, so that its share of delivery attempts holds across every instance (a
// lapsed lease, a crashed instance's, stops counting at its end). A claim takes the due queues' heads, oldest first,
// and re-scores them to the lease end, so a crashed instance's job is claimable again once it lapses.
//
// The scripts reach a queue's and a job's keys through prefixes passed in ARGV (bullmq does the
// same): on Redis Cluster, put a hash tag in the store prefix so that every key is in one slot.
import { PushJob } from '../../../protocol/records.js';
import { TopK } from '../../top-k.js';
import { dueBefore, taskKeyOfQueue, workspaceQueuePrefix } from '../push-queues.js';
import { StoreCorruptError } from '../errors.js';
import type { ClaimedPushJob, PushJobStore } from '../types.js';
import { checked, listed } from '../validate.js';
import { instanceStart, leaseToken, runStart } from '../lease-holder.js';
import { capArgs } from '../workspace-cap.js';
import type { RedisParts } from './client.js';
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
const enqueuePush1 = script({
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
const CLAIM_SCAN = 10_000;
const CLAIM_PAGE = 500;

/**
 * KEYS: pushDue, pushLeases. ARGV: now, lease end, token, limit, queue prefix, job prefix, in-flight prefix, lease ms,
 * first rank, most queues to read, then the workspace cap (capArgs: max, 0 for none, then workspace queue prefix and
 * attempts this instance holds, per workspace holding some).
 * Returns: 1 when every due queue from the first rank on was read (0: the bound stopped it), the rank to go on from,
 * then the packed heads it leased. A queue left empty, or a head whose record is gone, is tidied up.
 *
 * Due queues come oldest first (push-due's order: score, then name). A queue passed over for its workspace's cap
 * keeps its place (and its score), a leased one is re-scored past now, so the rank to go on from counts those that
 * stayed. A workspace's held attempts are counted across instances: each lease is a member of its workspace's
 * in-flight set until it ends or lapses.
 */
const claimPush2 = script({
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
  local page = math.min(${CLAIM_PAGE}, budget - read)
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
const finishPush4 = script({
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
const retryPush3 = script({
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
const listPush1 = script({
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
const dropQueues2 = script({
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
const DROP_QUEUES = 50;

/**
 * KEYS: pushDue, pushLeases. ARGV: the instance's token start, this run's token start, queue prefix, job prefix,
 * in-flight prefix. Frees the leases of the instance's other runs: each queue is due again at its head's due time,
 * and counts no more against its workspace's share. Returns how many.
 */
const releaseEarlier2 = script({
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
const peekQueues0 = script({
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
const SCAN_COUNT = 500;
const PEEK_JOBS = 500;

/** A glob (ZSCAN MATCH) matching exactly the names that begin with `prefix`. */
const startsWithGlob = (prefix: string): string => `${prefix.replace(/[\\*?[\]]/g, '\\$&')}*`;

/**
 * KEYS: pushDue. ARGV: now ('' when unknown: only this instance's attempts count), in-flight prefix, first rank, most
 * queues to read, then the workspace cap (capArgs). The score of the first queue from that rank on whose workspace is
 * below its share: { 'at', score }; { 'none' } when there is none; { 'more', rank } when the bound stopped the read
 * first (go on from that rank).
 */
const firstDue1 = script({
  numberOfKeys: 1,
  lua: `${INFLIGHT_LUA}${HELD_LUA}
local max = tonumber(ARGV[5])
local mine = {}
for i = 6, #ARGV, 2 do mine[ARGV[i]] = tonumber(ARGV[i + 1]) end
local heldBy = heldCounter(ARGV[2], ARGV[1], mine, false)
if ARGV[1] == '' then heldBy = function(ws) return mine[ws] or 0 end end
local rank, budget, read = tonumber(ARGV[3]), tonumber(ARGV[4]), 0
while read < budget do
  local page = math.min(${CLAIM_PAGE}, budget - read)
  local got = redis.call('ZRANGE', KEYS[1], rank, rank + page - 1, 'WITHSCORES')
  for i = 1, #got, 2 do
    local _, ws = inflightKey('', got[i])
    if max == 0 or not ws or heldBy(ws) < max then return { 'at', got[i + 1] } end
  end
  if #got < 2 * page then return { 'none' } end
  rank = rank + page
  read = read + page
end
return { 'more', tostring(rank) }
`,
});

export function redisPushJobStore(
  o: Pick<RedisParts, 'run' | 'keys' | 'client' | 'onCorrupt'> & {
    /** the most due queues one script reads (tests make it small); default CLAIM_SCAN */
    scanPerScript?: number;
  },
): PushJobStore {
  const { run, keys: k, client, onCorrupt } = o;
  const queuePrefix = k.idPrefix.pushQueue;
  const jobPrefix = k.idPrefix.pushJob;
  const inflightPrefix = k.idPrefix.pushInflight;
  const budget = String(o.scanPerScript ?? CLAIM_SCAN);

  function decodeJob(bytes: unknown): PushJob {
    if (!Buffer.isBuffer(bytes)) throw new StoreCorruptError({ record: 'push-job', id: '(reply)' });
    let value: unknown;
    try {
      value = packr.unpack(bytes);
    } catch (cause) {
      throw new StoreCorruptError({ record: 'push-job', id: '(packed)', cause });
    }
    const id = typeof value === 'object' && value !== null && 'id' in value && typeof value.id === 'string' ? value.id : '(unknown)';
    return checked({ schema: PushJob, value, record: 'push-job', id });
  }
  const list = (reply: unknown): unknown[] => (Array.isArray(reply) ? reply : []);

  return {
    async enqueue(jobs) {
      if (jobs.length === 0) return;
      await run({ script: enqueuePush1, keys: [k.pushDue], args: [queuePrefix, jobPrefix, ...pushJobArgs(jobs)] });
    },
    async claim({ now, leaseMs, limit, holder, perWorkspace }) {
      if (limit <= 0) return [];
      const lease = leaseToken(holder);
      const cap = capArgs(perWorkspace);
      const out: ClaimedPushJob[] = [];
      // one script per bounded stretch of the due queues, each going on where the last stopped: Redis serves others
      // between them, and a queue behind any number of passed-over ones is still reached
      let rank = 0;
      let taken = 0;
      for (;;) {
        const reply = list(
          await run({
            script: claimPush2,
            keys: [k.pushDue, k.pushLeases],
            args: [
              String(now),
              String(now + leaseMs),
              lease,
              String(limit - taken),
              queuePrefix,
              jobPrefix,
              inflightPrefix,
              String(leaseMs),
              String(rank),
              budget,
              ...cap,
            ],
          }),
        );
        const [done, next, ...heads] = reply;
        taken += heads.length;
        // a damaged job (with onCorrupt) is reported and left out, so the good ones claimed with it are still delivered
        for (const bytes of heads) {
          const job = listed(onCorrupt, () => decodeJob(bytes));
          if (job) out.push({ job, lease });
        }
        if (Number(done) === 1 || taken >= limit) return out;
        rank = Number(next);
      }
    },
    async complete(c) {
      const reply = await run({
        script: finishPush4,
        keys: [k.pushDue, k.pushLeases, k.pushQueue(c.job.queue), k.pushJob(c.job.id)],
        args: [c.job.queue, c.job.id, c.lease, jobPrefix, inflightPrefix],
      });
      return reply === 1;
    },
    async retry(c, update) {
      const { lastError: _previous, ...rest } = c.job;
      const job: PushJob = { ...rest, attempts: update.attempts, dueAt: update.dueAt, ...(update.lastError !== undefined && { lastError: update.lastError }) };
      const reply = await run({
        script: retryPush3,
        keys: [k.pushDue, k.pushLeases, k.pushJob(c.job.id)],
        args: [c.job.queue, c.lease, packr.pack(job), String(update.dueAt), inflightPrefix],
      });
      return reply === 1;
    },
    async releaseEarlierLeases(holder) {
      const reply = await run({
        script: releaseEarlier2,
        keys: [k.pushDue, k.pushLeases],
        args: [instanceStart(holder.instance), runStart(holder), queuePrefix, jobPrefix, inflightPrefix],
      });
      return Number(reply);
    },
    async nextDueAt({ passOver, now } = {}) {
      const cap = capArgs(passOver);
      let rank = 0;
      for (;;) {
        const reply = list(
          await run({ script: firstDue1, keys: [k.pushDue], args: [now === undefined ? '' : String(now), inflightPrefix, String(rank), budget, ...cap] }),
        );
        const [what, value] = reply.map((v) => String(v));
        if (what === 'more') {
          rank = Number(value);
          continue;
        }
        const score = Number(value);
        return what === 'at' && Number.isFinite(score) ? score : undefined;
      }
    },
    async dropTasks(taskKeys) {
      const drop = new Set(taskKeys);
      if (drop.size === 0) return 0;
      // the swept tasks' queues, found in push-due a ZSCAN step at a time, then dropped whole a few per script: every
      // reply is bounded and each its own round trip (one script reading every waiting job held Redis for all of them)
      const queues = new Set<string>();
      for await (const batch of client.zScanIterator(k.pushDue, { COUNT: SCAN_COUNT })) {
        for (const m of batch) {
          const tk = taskKeyOfQueue(m.value);
          if (tk !== undefined && drop.has(tk)) queues.add(m.value);
        }
      }
      const names = [...queues];
      let n = 0;
      for (let i = 0; i < names.length; i += DROP_QUEUES) {
        const args = [queuePrefix, jobPrefix, inflightPrefix, ...names.slice(i, i + DROP_QUEUES)];
        n += Number(await run({ script: dropQueues2, keys: [k.pushDue, k.pushLeases], args }));
      }
      return n;
    },
    async list() {
      return list(await run({ script: listPush1, keys: [k.pushDue], args: [queuePrefix, jobPrefix] })).map(decodeJob);
    },
    async listWorkspace({ workspaceId, limit }) {
      // the workspace's queues, found by name in push-due a ZSCAN step at a time (Redis filters each step, so only
      // this workspace's names come back), then peeked a few queues per script: every reply is bounded, and each is
      // its own round trip, so other callers' commands run between them.
      // A queue's jobs after its head are due in seq order (each was due when enqueued; only a head is retried to a
      // later time), so its first limit + 1 jobs hold all of it that can be among the soonest `limit`.
      const perQueue = limit + 1;
      const queuesPerPeek = Math.max(1, Math.floor(PEEK_JOBS / perQueue));
      const top = new TopK<PushJob>(limit, dueBefore);
      let total = 0;
      const seen = new Set<string>();
      const peek = async (queues: string[]) => {
        const reply = await run({ script: peekQueues0, keys: [], args: [queuePrefix, jobPrefix, String(perQueue), ...queues] });
        for (const one of list(reply)) {
          const [count, ...jobs] = list(one);
          total += Number(count);
          for (const bytes of jobs) {
            const job = decodeJob(bytes);
            if (job.workspaceId === workspaceId) top.offer(job);
          }
        }
      };
      for await (const batch of client.zScanIterator(k.pushDue, { MATCH: startsWithGlob(workspaceQueuePrefix(workspaceId)), COUNT: SCAN_COUNT })) {
        // ZSCAN may hand a member out twice (the set rehashing between calls)
        const queues = batch.map((m) => m.value).filter((q) => !seen.has(q));
        for (const q of queues) seen.add(q);
        for (let i = 0; i < queues.length; i += queuesPerPeek) await peek(queues.slice(i, i + queuesPerPeek));
      }
      return { jobs: top.sorted(), total };
    },
  };
}
