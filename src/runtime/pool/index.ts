// The agent worker pool: runs agent turns on Piscina threads, streams their events back, never rejects.
import { randomUUID } from 'node:crypto';
import { Piscina } from 'piscina';
import type { AgentRef, AgentRunInput, AgentRunResult } from '../../protocol/agent-events.js';
import { setLongTimeout } from '../../protocol/long-timeout.js';
import { RunAbort } from './abort.js';
import { RunBatcher, type BatchEntry } from './batcher.js';
import { failure, PoolRun, type RunFailureReason } from './run.js';
import type { AgentPool, AgentPoolOptions, AgentRunOptions } from './types.js';
import { agentWorkerEntry } from './worker-file.js';
import { COOPERATIVE_BUILTINS } from '../workers/agents/cooperative.js';
import { isCallOpen, isEventBatch, isPaceOpen, isRecycleReply, type RunReply, type RunRequest } from '../workers/wire.js';
import { refuseCall } from './calls.js';
import { MAX_THROWN_CHARS } from '../workers/thrown.js';
import { cutCodePoints } from '../../protocol/summary.js';

export type { AgentPool, AgentPoolOptions, AgentPoolStats, AgentRunOptions } from './types.js';
export type { RunFailureReason } from './run.js';
export type { CallHandler, PoolCall } from './calls.js';

/** A dead worker's error may carry an agent's own words (an uncaught throw in its timer): no more than it may throw. */
const errorText = (err: unknown): string => cutCodePoints(err instanceof Error ? err.message : String(err), MAX_THROWN_CHARS);

/**
 * Cooperative builtins share a worker and travel in batches; anything else (module agents, `slow`,
 * which may busy-loop) gets a worker to itself, so a cancel or timeout can terminate that worker
 * without taking other runs down with it.
 */
const isCooperative = (agent: AgentRef): boolean => agent.kind === 'builtin' && COOPERATIVE_BUILTINS.has(agent.entry ?? agent.id);

/** Most kinds a recycle names, and their length: a kind may hold a name the agent chose (a replaced built-in's). */
const MAX_LEFT_KINDS = 8;
const MAX_LEFT_CHARS = 200;

/** What a worker said was left behind, as the log may show it: strings only, few and short (agent code can post here). */
const leftOf = (v: unknown): string[] =>
  Array.isArray(v)
    ? v
        .filter((k): k is string => typeof k === 'string')
        .slice(0, MAX_LEFT_KINDS)
        .map((k) => cutCodePoints(k, MAX_LEFT_CHARS))
    : [];

export function createAgentPool(opts: AgentPoolOptions = {}): AgentPool {
  const { filename, execArgv } = agentWorkerEntry();
  const piscina = new Piscina<RunRequest | RunRequest[], RunReply | RunReply[]>({
    filename,
    execArgv,
    ...(opts.minThreads !== undefined ? { minThreads: opts.minThreads } : {}),
    ...(opts.maxThreads !== undefined ? { maxThreads: opts.maxThreads } : {}),
    // Piscina's default of 0 ends a spare thread the moment it goes idle, which churns threads under load.
    idleTimeout: opts.idleTimeoutMs ?? 30_000,
    ...(opts.maxHeapMb !== undefined ? { resourceLimits: { maxOldGenerationSizeMb: opts.maxHeapMb } } : {}),
    // Batches of cooperative runs may overlap on one worker; exclusive runs still get a worker alone
    // (Piscina never co-schedules a task that has an abort signal).
    concurrentTasksPerWorker: 8,
    // our own counters serve stats(); Piscina's histograms would cost on every run
    recordTiming: false,
  });
  const runs = new Map<number, PoolRun>();
  const failed: Record<RunFailureReason, number> = {
    canceled: 0,
    timeout: 0,
    worker_crash: 0,
    agent_error: 0,
    agent_protocol: 0,
    agent_not_found: 0,
    output_too_large: 0,
    pool_closed: 0,
  };
  let succeeded = 0;
  let subscriberErrors = 0;
  let strayWorkerErrors = 0;
  let forged = 0;
  const countForged = (): void => {
    forged++;
  };
  let nextRunId = 1;
  let closing = false;
  let closed: Promise<void> | null = null;

  const callCounts = { opened: 0, open: 0 };

  piscina.on('message', (m: unknown) => {
    if (isEventBatch(m)) runs.get(m.a2aRun)?.deliver(m.events, m.key);
    else if (isRecycleReply(m)) runs.get(m.a2aRecycle)?.repliedRecycling(m.reply, m.key, leftOf(m.left));
    else if (isPaceOpen(m)) {
      const pending = runs.get(m.a2aPace);
      if (pending) pending.paced(m.port, m.key);
      else m.port.close();
    } else if (isCallOpen(m)) {
      const pending = runs.get(m.a2aCall);
      // a call an agent left behind after its run settled (its reply overtook the call on another port)
      if (pending) pending.call(m.port, m.call, m.key);
      else refuseCall(m.port, 'run_ended', 'the run that made this call has ended');
    }
  });
  const workers = { created: 0, destroyed: 0, recycled: 0 };
  piscina.on('workerCreate', () => {
    workers.created++;
  });
  piscina.on('workerDestroy', () => {
    workers.destroyed++;
  });
  // Without a listener, an error from an idle worker would be thrown in the main thread.
  piscina.on('error', () => {
    strayWorkerErrors++;
  });

  const countSubscriberError = (): void => {
    subscriberErrors++;
  };

  /** A rejected Piscina task: the pool closing, or the worker died under it. */
  function taskLost(entries: ReadonlyArray<{ run: PoolRun; agentId: string }>, err: unknown): void {
    if (closing) {
      for (const e of entries) e.run.fail('pool_closed', `the agent pool closed during the run: ${errorText(err)}`);
      return;
    }
    // The crash report and the worker's last event batches travel on different ports: give those a turn to land.
    setImmediate(() => {
      for (const e of entries) e.run.fail('worker_crash', `the worker running agent ${e.agentId} died: ${errorText(err)}`);
    });
  }

  const batcher = new RunBatcher({
    maxBatch: opts.maxBatch ?? 16,
    dispatch: (batch: BatchEntry[]) => {
      piscina
        .run(
          batch.map((e) => e.req),
          { name: 'runBatch' },
        )
        .then(
          (replies) => {
            if (!Array.isArray(replies)) return taskLost(batch, new Error('worker answered a batch with a single reply'));
            for (let i = 0; i < batch.length; i++) {
              const reply = replies[i];
              if (reply) batch[i]?.run.replied(reply);
            }
          },
          (err: unknown) => taskLost(batch, err),
        );
    },
  });

  function runExclusive(req: RunRequest, run: PoolRun, abort: RunAbort, onTaskEnd: () => void): void {
    piscina.run(req, { signal: abort }).then(
      (reply) => {
        onTaskEnd();
        if (Array.isArray(reply)) taskLost([{ run, agentId: req.input.agent.id }], new Error('unexpected batch reply'));
        else run.replied(reply);
      },
      (err: unknown) => {
        onTaskEnd();
        // after a cancel or timeout the run has already settled
        if (!run.settled) taskLost([{ run, agentId: req.input.agent.id }], err);
      },
    );
  }

  function run(input: AgentRunInput, o: AgentRunOptions = {}): Promise<AgentRunResult> {
    if (closing) return Promise.resolve(failure('pool_closed', 'the agent pool is closed'));
    if (o.signal?.aborted) return Promise.resolve(failure('canceled', 'the run was canceled before it started'));
    const runId = nextRunId++;
    const agentId = input.agent.id;
    const timeoutMs = o.timeoutMs ?? input.agent.timeoutMs;
    const userSignal = o.signal;
    const cooperative = isCooperative(input.agent);
    // Only an exclusive run's worker is terminated on abort; a cooperative run is just let go.
    const abort = cooperative ? null : new RunAbort();
    // what a worker posts for this run must carry this: another agent's worker cannot post into it
    const key = randomUUID();
    // an exclusive run's Piscina task, until it resolves or rejects
    let taskOpen = true;
    // builtins are bounded by their input; a module agent's output and calls are bounded before they leave its worker
    const maxOutputBytes = input.agent.kind === 'module' ? opts.maxOutputBytes : undefined;
    return new Promise<AgentRunResult>((resolve) => {
      const onUserAbort = (): void => {
        abort?.fire('canceled');
        pending.fail('canceled', `run of agent ${agentId} was canceled`);
      };
      const clearTimer = setLongTimeout(() => {
        // An event-loop turn runs its timers before it reads its ports: after the main thread was held up past the
        // deadline, the worker's answer may already wait there. Read it first, or a turn that ended in time would fail
        // as a timeout and its clean worker be ended.
        setImmediate(() => {
          if (pending.settled) return;
          abort?.fire('timeout');
          pending.fail('timeout', `agent ${agentId} ran past its ${timeoutMs} ms deadline`);
        });
      }, timeoutMs);
      const pending = new PoolRun({
        onEvent: o.onEvent,
        onSubscriberError: countSubscriberError,
        resolve,
        onCall: o.onCall,
        callCounts,
        key,
        trusted: input.agent.kind === 'builtin',
        onForged: countForged,
        ...(maxOutputBytes === undefined ? {} : { maxCallBytes: maxOutputBytes }),
        onSettle: (reason) => {
          clearTimer();
          userSignal?.removeEventListener('abort', onUserAbort);
          runs.delete(runId);
          // Settled while its worker's task is still open (a reply on parentPort for a worker to replace, a flood, an
          // event refused here): aborting the task ends the worker, so the agent stops, and Piscina starts another.
          // Never once the task has ended: the worker may be serving another run by then.
          if (abort && taskOpen) abort.fire(reason ?? 'recycle');
          if (pending.recycling) {
            workers.recycled++;
            opts.onRecycle?.({ agentId, left: pending.left });
          }
          if (reason) failed[reason]++;
          else succeeded++;
        },
      });
      runs.set(runId, pending);
      userSignal?.addEventListener('abort', onUserAbort, { once: true });
      const req: RunRequest = { runId, live: o.onEvent !== undefined, input, key };
      if (maxOutputBytes !== undefined) req.maxOutputBytes = maxOutputBytes;
      if (abort)
        runExclusive(req, pending, abort, () => {
          taskOpen = false;
        });
      else batcher.add({ req, run: pending, agentId });
    });
  }

  // A safety net: runs Piscina dropped without a word would otherwise never settle.
  const settleLeftovers = (): void => {
    for (const pending of runs.values()) pending.fail('pool_closed', 'the agent pool closed during the run');
  };

  function close(): Promise<void> {
    closing = true;
    // runs accepted before close still go out: close drains, it does not drop
    batcher.flush();
    closed ??= piscina.close().then(settleLeftovers);
    return closed;
  }

  function destroy(): Promise<void> {
    closing = true;
    const done = piscina.destroy().then(settleLeftovers);
    closed ??= done;
    return done;
  }

  return {
    run,
    close,
    destroy,
    stats: () => ({
      threads: piscina.threads.length,
      queued: piscina.queueSize,
      inFlight: runs.size,
      succeeded,
      failed: { ...failed },
      subscriberErrors,
      strayWorkerErrors,
      forged,
      calls: { ...callCounts },
      workers: { ...workers },
    }),
  };
}
