// The shared store engine: Redis via node-redis, for several gateway instances sharing tasks, keys and configs.
//
// This file opens the connection and composes the sub-stores (one file each: keys, tasks, push-configs, meta, events,
// push-jobs, connections, results, dashboard). Values are msgpack (msgpackr, plain maps rather than msgpackr records, so any msgpack reader can
// inspect them) stored as Buffers; key names come from runtime/redis/keys.ts. Each task write is one Lua script that
// checks the task's rev (create: absent; put: not terminal, at the expected seq) and then writes the record, its
// per-state index sets, its workspace's task set (what an instance older than the listing sets lists a workspace from),
// the ended index and its events, so listByState is a SUNION plus an MGET. Key writes and the by-hash lookup need a read before the
// write or a second lookup, so they are Lua scripts too. Opening builds the workspace task sets once for data written
// before they existed (workspace-index.ts), before the store is handed out; tasks an older instance writes after that
// (a rolling upgrade) are added by the periodic repair (tasks.repairIndexStep, run by runtime/index-repair.ts).
import { connectRedis } from '../../redis/connect.js';
import { redisKeys } from '../../redis/keys.js';
import { ErrorReply } from 'redis';
import { connectionDeadline, deadlined, reportingAnswers } from '../../deadline.js';
import type { Clock, Timers } from '../../clock.js';
import type { Store } from '../types.js';
import { binary, type RedisParts } from './client.js';
import type { OnCorrupt } from '../validate.js';
import { redisConnectionStore } from './connections.js';
import { redisDashboardStore } from './dashboard.js';
import { redisRelayStore } from './relays.js';
import { redisEventStore } from './events.js';
import { redisKeyStore } from './keys.js';
import { redisMetaStore } from './meta.js';
import { redisPushConfigStore } from './push-configs.js';
import { redisPushJobStore } from './push-jobs.js';
import { redisResultStore } from './results.js';
import { scriptRunner } from './scripts.js';
import { redisTaskStore } from './tasks.js';
import { ensureWorkspaceIndex } from './workspace-index.js';
import { checkKeyTypes } from './key-types.js';

export async function openRedisStore(opts: {
  url: string;
  prefix: string;
  /**
   * A call fails with a TimeoutError once the connection has answered nothing for this long (default 2 s): since the
   * call began or since the last answer, so calls queued behind a burst on a live Redis wait their turn.
   */
  commandTimeoutMs?: number;
  /** time and timers of that deadline (tests inject a ManualClock); default monotonic time and real timers */
  deadlineClock?: Clock & Timers;
  /** Connection errors; the client reconnects by itself and commands fail on their own meanwhile. */
  onError?: (err: Error) => void;
  /** Damaged records a listing left out (see `listed`); none: a damaged record fails the listing. */
  onCorrupt?: OnCorrupt;
}): Promise<Store> {
  const client = await connectRedis({
    url: opts.url,
    name: 'a2a-gateway:store',
    commandTimeoutMs: opts.commandTimeoutMs ?? 2_000,
    // the connection deadline below is the one stall detector: node-redis's own timeout would fail a call queued behind a burst
    timeoutUnwritten: false,
    onError: opts.onError,
  });
  const ms = opts.commandTimeoutMs ?? 2_000;
  const isAnswer = (e: unknown) => e instanceof ErrorReply;
  // one deadline for the whole connection: replies come in order, so any answer shows the calls behind it are moving
  const deadline = connectionDeadline({
    ms,
    isAnswer,
    ...(opts.deadlineClock ? { clock: opts.deadlineClock, timers: opts.deadlineClock } : {}),
  });
  // the sub-stores' commands go through these, so each reply counts, not only a whole call's end
  const bin = reportingAnswers(binary(client), deadline, isAnswer);
  const parts: RedisParts = {
    client: reportingAnswers(client, deadline, isAnswer),
    bin,
    keys: redisKeys(opts.prefix),
    run: scriptRunner(bin),
    onCorrupt: opts.onCorrupt,
  };
  try {
    await checkKeyTypes(parts);
    await ensureWorkspaceIndex(parts);
  } catch (err) {
    // the caller gets no store to close: release the connection here
    client.destroy();
    throw err;
  }

  let closing: Promise<void> | undefined;
  const calls = { ms, what: 'redis store', race: deadline.race };

  return withDeadlines({
    kind: 'redis',
    keys: redisKeyStore(parts),
    tasks: redisTaskStore(parts),
    pushConfigs: redisPushConfigStore(parts),
    pushJobs: redisPushJobStore(parts),
    events: redisEventStore(parts),
    meta: redisMetaStore(parts),
    connections: redisConnectionStore(parts),
    relays: redisRelayStore(parts),
    results: redisResultStore(parts),
    dashboard: redisDashboardStore(parts),
    async ping() {
      await client.ping();
    },
    close() {
      closing ??= (async () => {
        if (!client.isOpen) return;
        try {
          await client.close();
        } catch {
          // A socket that died under us has nothing left to flush; make sure it is released.
          if (client.isOpen) client.destroy();
        }
      })();
      return closing;
    },
  });

  /** Every call of every sub-store (and ping) gets the connection's deadline; close does not. */
  function withDeadlines(store: Store): Store {
    return {
      ...store,
      keys: deadlined(store.keys, calls),
      tasks: deadlined(store.tasks, calls),
      pushConfigs: deadlined(store.pushConfigs, calls),
      pushJobs: deadlined(store.pushJobs, calls),
      meta: deadlined(store.meta, calls),
      events: deadlined(store.events, calls),
      connections: deadlined(store.connections, calls),
      relays: deadlined(store.relays, calls),
      results: deadlined(store.results, calls),
      dashboard: deadlined(store.dashboard, calls),
      ping: () => deadline.race(store.ping(), 'redis store.ping'),
    };
  }
}
