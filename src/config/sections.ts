// The config's setting groups (pool, card, push, redis, instances, tasks, connections, dashboard, metrics, retention,
// streaming): each group's fields, bounds and defaults. The top-level schema (schema.ts) puts them under their keys.
import { z } from 'zod';
import { MAX_RESULT_RETENTION_HOURS, MAX_RETENTION_MS } from '../protocol/connections.js';
import { MAX_TIMEOUT_MS } from '../protocol/long-timeout.js';
import { DEFAULT_ADMIN_AUTH_FAILURES, DEFAULT_ADMIN_LIMITS, RateLimits } from '../protocol/records.js';
import { MAX_UNREAD_BYTES } from '../protocol/stream-lag.js';
import { IpOrCidr } from '../runtime/net/ip-lists.js';

/** MB per agent worker: room for a module agent's real work, far below V8's default heap (GBs on a big machine) */
const DEFAULT_WORKER_HEAP_MB = 512;

export const PoolSection = z
  .object({
    minThreads: z.number().int().positive().optional(),
    maxThreads: z.number().int().positive().optional(),
    /**
     * old-generation heap cap of each agent worker thread, in MB: a module agent that allocates past it ends its
     * own worker (its task fails, worker_crash) instead of growing to the process's own multi-GB default
     */
    maxHeapMb: z.number().int().min(32).default(DEFAULT_WORKER_HEAP_MB),
  })
  .strict()
  .default({ maxHeapMb: DEFAULT_WORKER_HEAP_MB });

export const CardSection = z
  .object({
    name: z.string().min(1).default('a2a-gateway'),
    description: z.string().default('An A2A gateway: runs tasks on its agents for external agents over JSON-RPC.'),
  })
  .strict()
  .default({ name: 'a2a-gateway', description: 'An A2A gateway: runs tasks on its agents for external agents over JSON-RPC.' });

export const PushSection = z
  .object({
    /** internal addresses (CIDRs or exact IPs) a webhook URL may reach anyway; everything internal is refused otherwise */
    allowlist: z.array(IpOrCidr).default([]),
    /** each delivery attempt gives up after this long */
    timeoutMs: z.number().int().positive().default(10_000),
    /** a delivery is given up after this many failed attempts */
    maxAttempts: z.number().int().positive().default(12),
    /** the delay before the first retry; it doubles per failure (with jitter) up to backoffMaxMs */
    backoffBaseMs: z.number().int().positive().default(2_000),
    backoffMaxMs: z
      .number()
      .int()
      .positive()
      .default(15 * 60_000),
    /** push configs one task may hold (each is one webhook per change); another is refused until one is deleted */
    maxConfigsPerTask: z.number().int().positive().default(10),
    /**
     * delivery attempts one workspace may have in flight at once, of the worker's 16 (hence the bound): a workspace
     * whose receivers hang holds at most this many while the others' webhooks go out
     */
    maxInFlightPerWorkspace: z.number().int().min(1).max(16).default(8),
  })
  .strict()
  .default({
    allowlist: [],
    timeoutMs: 10_000,
    maxAttempts: 12,
    backoffBaseMs: 2_000,
    backoffMaxMs: 15 * 60_000,
    maxConfigsPerTask: 10,
    maxInFlightPerWorkspace: 8,
  });

export const RedisSection = z
  .object({
    /** a Redis command unanswered this long fails: calls during an outage get a 503 instead of hanging */
    commandTimeoutMs: z
      .number()
      .int()
      .positive()
      // the deadline is one timer: past this Node fires it after 1 ms, and every command would time out at once
      .max(MAX_TIMEOUT_MS, `at most ${MAX_TIMEOUT_MS} ms (about 24 days)`)
      .default(2_000),
    /**
     * how often one instance adds to the workspace task index the tasks an instance of an older version wrote
     * without it (a rolling upgrade; tasks/list misses them until then); 0 never does
     */
    indexRepairMs: z
      .number()
      .int()
      .nonnegative()
      .default(5 * 60_000),
  })
  .strict()
  .default({ commandTimeoutMs: 2_000, indexRepairMs: 5 * 60_000 });

/** scale-out on Redis: each instance stamps a beat; work of an instance silent past deadAfterMs is failed */
export const InstancesSection = z
  .object({
    heartbeatMs: z.number().int().positive().default(5_000),
    deadAfterMs: z.number().int().positive().default(20_000),
  })
  .strict()
  // silent for less than two beats is no sign of death: shorter, every live instance is judged dead between its
  // own beats (or at one late beat) and its running tasks are failed (instance_lost)
  .refine((i) => i.deadAfterMs >= 2 * i.heartbeatMs, {
    path: ['deadAfterMs'],
    message: 'must be at least twice instances.heartbeatMs, else live instances are judged dead between their beats',
  })
  .default({ heartbeatMs: 5_000, deadAfterMs: 20_000 });

export const TasksSection = z
  .object({
    /**
     * a blocking send's new task is first written when it settles, or after this long if it has not by then: a
     * quick task costs one write instead of two (nothing of it is acknowledged before its write is stored)
     */
    firstWriteHoldMs: z.number().int().nonnegative().default(100),
    /**
     * the content one task may hold (artifacts, and messages of both sides), summed over its turns: a turn that
     * would pass it is stopped and the task fails (`output_too_large`), and a caller's message that would pass it
     * is refused (-32602), so neither an agent nor a caller can make a task, and each write of it, huge
     */
    maxTaskBytes: z
      .number({ error: 'must be a number of bytes' })
      .int()
      .positive()
      .default(8 * 1024 * 1024),
  })
  .strict()
  .default({ firstWriteHoldMs: 100, maxTaskBytes: 8 * 1024 * 1024 });

/** client mode: outbound connections to external A2A agents (created with `a2a-gateway connections add`) */
export const ConnectionsSection = z
  .object({
    /** the first retry of a failed discovery waits up to this long (full jitter); each failure doubles it up to backoffMaxMs */
    backoffBaseMs: z.number().int().positive().default(1_000),
    backoffMaxMs: z.number().int().positive().default(60_000),
    /** this many failures in a row open a connection's circuit: its calls are refused at once */
    circuitFailures: z.number().int().positive().default(5),
    /** an open circuit lets one probe through after this long */
    coolDownMs: z.number().int().positive().default(30_000),
    /** a call waits this long at most for a connection still reading its remote's card */
    readyWaitMs: z.number().int().positive().default(10_000),
    /** how often the store is read again for connections added, changed or removed by the CLI */
    rescanMs: z.number().int().positive().default(5_000),
    /** one outbound call (send and wait for the result) gives up after this long */
    callTimeoutMs: z.number().int().positive().default(300_000),
    /** a remote card without cache headers is used this long before it is read again */
    cardTtlMs: z.number().int().positive().default(300_000),
    /** a remote card's own Cache-Control max-age keeps it at most this long before it is read again */
    cardMaxTtlMs: z.number().int().positive().default(3_600_000),
  })
  .strict()
  .default({
    backoffBaseMs: 1_000,
    backoffMaxMs: 60_000,
    circuitFailures: 5,
    coolDownMs: 30_000,
    readyWaitMs: 10_000,
    rescanMs: 5_000,
    callTimeoutMs: 300_000,
    cardTtlMs: 300_000,
    cardMaxTtlMs: 3_600_000,
  });

/** the web dashboard at /dashboard and its JSON admin API at /api/admin/ (sign-in with an admin key) */
export const DashboardSection = z
  .object({
    enabled: z.boolean().default(true),
    sessionTtlMs: z
      .number()
      .int()
      .positive()
      // as the other retention settings: a longer one is a slip, and past a Date's range no sign-in could answer
      .max(MAX_RETENTION_MS, `at most ${MAX_RETENTION_MS} ms (${MAX_RESULT_RETENTION_HOURS} hours, 10 years)`)
      .default(8 * 3_600_000),
    /** each admin key's budget of admin API calls (Bearer or its session), apart from its A2A budget */
    limits: RateLimits.default(DEFAULT_ADMIN_LIMITS),
    /** failed admin authentications (a wrong Bearer or sign-in key) allowed per client address */
    authFailures: RateLimits.default(DEFAULT_ADMIN_AUTH_FAILURES),
    /** live views (SSE) one admin key may hold open on one instance at once; the next is refused with HTTP 429 */
    maxStreamsPerKey: z.number().int().positive().default(20),
  })
  .strict()
  .default({ enabled: true, sessionTtlMs: 8 * 3_600_000, limits: DEFAULT_ADMIN_LIMITS, authFailures: DEFAULT_ADMIN_AUTH_FAILURES, maxStreamsPerKey: 20 });

/** Prometheus metrics at GET /metrics (prom-client); off: no /metrics and no counting */
export const MetricsSection = z
  .object({ enabled: z.boolean().default(true) })
  .strict()
  .default({ enabled: true });

/** terminal tasks (with their events, push configs and jobs) are deleted once they have been terminal for taskTtlMs */
export const RetentionSection = z
  .object({
    /** 7 days by default; 0 keeps tasks forever; at most 10 years, as a connection's results (a longer one is a slip) */
    taskTtlMs: z
      .number()
      .int()
      .nonnegative()
      .max(MAX_RETENTION_MS, `at most ${MAX_RETENTION_MS} ms (${MAX_RESULT_RETENTION_HOURS} hours, 10 years); 0 keeps tasks forever`)
      .default(7 * 86_400_000),
    sweepIntervalMs: z
      .number()
      .int()
      .positive()
      .default(10 * 60_000),
  })
  .strict()
  .default({ taskTtlMs: 7 * 86_400_000, sweepIntervalMs: 10 * 60_000 });

export const StreamingSection = z
  .object({
    /** a `: ping` comment after this much silence on a stream */
    pingIntervalMs: z.number().int().positive().default(15_000),
    /** events kept per task for resubscribe replay */
    eventRetention: z.number().int().positive().default(1000),
    /** bytes a slow reader may leave unsent before its stream is closed */
    maxBufferedBytes: z.number().int().positive().default(MAX_UNREAD_BYTES),
    /** how often the keys holding open streams are read again: a revoked key's streams end within this */
    keyCheckMs: z.number().int().positive().default(1_000),
    /** SSE streams one key may hold open on one instance at once; the next is refused with HTTP 429 until one closes */
    maxStreamsPerKey: z.number().int().positive().default(100),
  })
  .strict()
  .default({ pingIntervalMs: 15_000, eventRetention: 1000, maxBufferedBytes: MAX_UNREAD_BYTES, keyCheckMs: 1_000, maxStreamsPerKey: 100 });
