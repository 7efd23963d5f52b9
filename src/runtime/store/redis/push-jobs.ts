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
import { packr } from './values.js';
import {
  enqueuePush1,
  pushJobArgs,
  CLAIM_SCAN,
  claimPush2,
  finishPush4,
  retryPush3,
  listPush1,
  dropQueues2,
  DROP_QUEUES,
  releaseEarlier2,
  peekQueues0,
  SCAN_COUNT,
  PEEK_JOBS,
  startsWithGlob,
  firstDue1,
} from './push-job-scripts.js';

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
