// The agent pool's public shape: what callers pass in and what they can read back.
import type { AgentEvent, AgentRunInput, AgentRunResult } from '../../protocol/agent-events.js';
import type { TurnSignal } from '../agents/turn-signal.js';
import type { CallHandler } from './calls.js';
import type { RunFailureReason } from './run.js';

export interface AgentPoolOptions {
  minThreads?: number;
  maxThreads?: number;
  /** how long a thread above minThreads may sit idle before it is ended (default 30 s) */
  idleTimeoutMs?: number;
  /** old-generation heap cap per worker: an agent past it ends its worker (worker_crash), not the process */
  maxHeapMb?: number;
  /**
   * a module agent's output per turn (`tasks.maxTaskBytes`): past it the worker fails the run with output_too_large
   * before the event crosses to the main thread; none when absent
   */
  maxOutputBytes?: number;
  /** most cooperative runs sent to a worker in one message (default 16) */
  maxBatch?: number;
  /**
   * A module turn's worker is being replaced because its agent left something behind (a timer, a socket, a changed
   * global): `left` names what, as the worker found it. The turn's own result is unchanged.
   */
  onRecycle?: (r: { agentId: string; left: readonly string[] }) => void;
}

export interface AgentRunOptions {
  signal?: TurnSignal;
  /** called in order, live, and never after `run` resolved */
  onEvent?: (ev: AgentEvent) => void;
  /** default: input.agent.timeoutMs; counted from the call, so time spent queued counts too */
  timeoutMs?: number;
  /**
   * Serves the agent's `ctx.call`s (client mode), each already checked. Rejecting with an error whose `code` is a
   * string hands that code and the message to the agent. Without it, a call fails with code 'client_mode_off'.
   */
  onCall?: CallHandler;
}

export interface AgentPoolStats {
  threads: number;
  queued: number;
  /** runs accepted and not yet settled, queued ones included */
  inFlight: number;
  succeeded: number;
  failed: Record<RunFailureReason, number>;
  /** exceptions thrown by onEvent subscribers (swallowed so one subscriber cannot break a run) */
  subscriberErrors: number;
  /** worker errors that belonged to no run, e.g. a timer an agent left behind */
  strayWorkerErrors: number;
  /** event batches and calls a worker posted under another run's id without that run's key, dropped */
  forged: number;
  /** `ctx.call`s opened by agents, and those still open */
  calls: { opened: number; open: number };
  /**
   * threads started and ended over the pool's life: a cancel, timeout or crash ends one, and a new one replaces it;
   * `recycled`: ended after a module run whose agent left a timer, socket or the like running in it
   */
  workers: { created: number; destroyed: number; recycled: number };
}

export interface AgentPool {
  run(input: AgentRunInput, o?: AgentRunOptions): Promise<AgentRunResult>;
  /** stops taking runs, lets running ones finish, then ends the threads; idempotent */
  close(): Promise<void>;
  /** ends the threads now; unfinished runs settle as pool_closed; idempotent */
  destroy(): Promise<void>;
  stats(): AgentPoolStats;
}
