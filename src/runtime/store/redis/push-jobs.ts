// The Redis push job queues: every step is one Lua script, so that claims by several instances never overlap.
//
// Layout (names from runtime/redis/keys.ts): each job is a hash {data, due}; each queue (task + config) a
// sorted set of job ids by seq; `push-due` a sorted set of the queues that have jobs, scored by the
// time their head may be claimed (its due time, or the end of the lease someone holds on it); and
// `push-leases` maps a queue to the token of that lease. A claim takes the due queues' heads and
// re-scores them to the lease end, so a crashed instance's job is claimable again once it lapses.
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
 * The most due queues one claim reads (paged, CLAIM_PAGE at a time after a first page of `limit`): past them a queue
 * waits for the next look, so a workspace with more due queues than this, all held back by its cap, ahead of every
 * other workspace's can still delay them (until its own queues are leased, retried later or delivered).
 */
const CLAIM_SCAN = 10_000;
const CLAIM_PAGE = 500;

/**
 * KEYS: pushDue, pushLeases. ARGV: now, lease end, token, limit, queue prefix, job prefix, then the workspace cap
 * (capArgs: max, 0 for none, then workspace queue prefix and attempts held, per workspace holding some).
 * Returns the packed heads it leased. A queue left empty, or a head whose record is gone, is tidied up.
 *
 * Due queues are read a page at a time: a queue passed over for its workspace's cap keeps its place (and its score),
 * so the next page starts after the ones that stayed in the due range; one claim reads at most CLAIM_SCAN of them.
 */
const claimPush2 = script({
  numberOfKeys: 2,
  lua: `
local out = {}
local limit = tonumber(ARGV[4])
local max = tonumber(ARGV[7])
local held = {}
for i = 8, #ARGV, 2 do held[ARGV[i]] = tonumber(ARGV[i + 1]) end
local stayed, scanned, page = 0, 0, limit
while #out < limit and scanned < ${CLAIM_SCAN} do
  local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', stayed, page)
  for _, q in ipairs(due) do
    if #out >= limit then break end
    local ws = string.match(q, '^%[".-/')
    if max > 0 and ws and (held[ws] or 0) >= max then
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
          if ws then held[ws] = (held[ws] or 0) + 1 end
        else
          redis.call('ZREM', qkey, head)
          stayed = stayed + 1
        end
      end
    end
  end
  scanned = scanned + #due
  if #due < page then break end
  page = ${CLAIM_PAGE}
end
return out
`,
});

/** KEYS: pushDue, pushLeases, queue, job. ARGV: queue, job id, token, job prefix. 1 when done, 0 when the lease is not this one. */
const finishPush4 = script({
  numberOfKeys: 4,
  lua: `
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[3] then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
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

/** KEYS: pushDue, pushLeases, job. ARGV: queue, token, packed job, due. 1 when done, 0 when the lease is not this one. */
const retryPush3 = script({
  numberOfKeys: 3,
  lua: `
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
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
 * KEYS: pushDue, pushLeases. ARGV: queue prefix, job prefix, then queues. Removes those queues with every job in them
 * (a job delivered meanwhile is simply already gone). Returns how many jobs.
 */
const dropQueues2 = script({
  numberOfKeys: 2,
  lua: `
local n = 0
for i = 3, #ARGV do
  local q = ARGV[i]
  local qkey = ARGV[1] .. q
  for _, id in ipairs(redis.call('ZRANGE', qkey, 0, -1)) do
    n = n + redis.call('DEL', ARGV[2] .. id)
  end
  redis.call('DEL', qkey)
  redis.call('ZREM', KEYS[1], q)
  redis.call('HDEL', KEYS[2], q)
end
return n
`,
});

/** queues per dropQueues2 call (a swept task's queue holds a few jobs: one per change while its webhook failed) */
const DROP_QUEUES = 50;

/**
 * KEYS: pushDue, pushLeases. ARGV: the instance's token start, this run's token start, queue prefix, job prefix.
 * Frees the leases of the instance's other runs: each queue is due again at its head's due time. Returns how many.
 */
const releaseEarlier2 = script({
  numberOfKeys: 2,
  lua: `
local n = 0
local all = redis.call('HGETALL', KEYS[2])
for i = 1, #all, 2 do
  local q, token = all[i], all[i + 1]
  if string.sub(token, 1, #ARGV[1]) == ARGV[1] and string.sub(token, 1, #ARGV[2]) ~= ARGV[2] then
    redis.call('HDEL', KEYS[2], q)
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
 * KEYS: pushDue. ARGV: the workspace cap (capArgs). The first queue whose workspace is below its share, and its score,
 * or an empty list. Past CLAIM_SCAN queues read, the first one not read (the earliest any unread queue can be).
 */
const firstDue1 = script({
  numberOfKeys: 1,
  lua: `
local max = tonumber(ARGV[1])
if max == 0 then return redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES') end
local held = {}
for i = 2, #ARGV, 2 do held[ARGV[i]] = tonumber(ARGV[i + 1]) end
local start = 0
while start < ${CLAIM_SCAN} do
  local page = redis.call('ZRANGE', KEYS[1], start, start + ${CLAIM_PAGE} - 1, 'WITHSCORES')
  for i = 1, #page, 2 do
    local ws = string.match(page[i], '^%[".-/')
    if not (ws and (held[ws] or 0) >= max) then return { page[i], page[i + 1] } end
  end
  if #page < 2 * ${CLAIM_PAGE} then return {} end
  start = start + ${CLAIM_PAGE}
end
return redis.call('ZRANGE', KEYS[1], start, start, 'WITHSCORES')
`,
});

export function redisPushJobStore(o: Pick<RedisParts, 'run' | 'keys' | 'client' | 'onCorrupt'>): PushJobStore {
  const { run, keys: k, client, onCorrupt } = o;
  const queuePrefix = k.idPrefix.pushQueue;
  const jobPrefix = k.idPrefix.pushJob;

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
      const reply = await run({
        script: claimPush2,
        keys: [k.pushDue, k.pushLeases],
        args: [String(now), String(now + leaseMs), lease, String(limit), queuePrefix, jobPrefix, ...capArgs(perWorkspace)],
      });
      // a damaged job (with onCorrupt) is reported and left out, so the good ones claimed with it are still delivered
      const out: ClaimedPushJob[] = [];
      for (const bytes of list(reply)) {
        const job = listed(onCorrupt, () => decodeJob(bytes));
        if (job) out.push({ job, lease });
      }
      return out;
    },
    async complete(c) {
      const reply = await run({
        script: finishPush4,
        keys: [k.pushDue, k.pushLeases, k.pushQueue(c.job.queue), k.pushJob(c.job.id)],
        args: [c.job.queue, c.job.id, c.lease, jobPrefix],
      });
      return reply === 1;
    },
    async retry(c, update) {
      const { lastError: _previous, ...rest } = c.job;
      const job: PushJob = { ...rest, attempts: update.attempts, dueAt: update.dueAt, ...(update.lastError !== undefined && { lastError: update.lastError }) };
      const reply = await run({
        script: retryPush3,
        keys: [k.pushDue, k.pushLeases, k.pushJob(c.job.id)],
        args: [c.job.queue, c.lease, packr.pack(job), String(update.dueAt)],
      });
      return reply === 1;
    },
    async releaseEarlierLeases(holder) {
      const reply = await run({
        script: releaseEarlier2,
        keys: [k.pushDue, k.pushLeases],
        args: [instanceStart(holder.instance), runStart(holder), queuePrefix, jobPrefix],
      });
      return Number(reply);
    },
    async nextDueAt({ passOver } = {}) {
      const reply = list(await run({ script: firstDue1, keys: [k.pushDue], args: capArgs(passOver) }));
      if (reply.length < 2) return undefined;
      const score = Number(String(reply[1]));
      return Number.isFinite(score) ? score : undefined;
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
        const args = [queuePrefix, jobPrefix, ...names.slice(i, i + DROP_QUEUES)];
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
