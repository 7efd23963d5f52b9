// The messages between the pool (main thread) and agent-worker: plain structured-clone data, no classes.
import { MessagePort } from 'node:worker_threads';
import type { AgentEvent, AgentRunInput } from '../../protocol/agent-events.js';
import type { RemoteEvent, RemoteTask } from '../../protocol/connections.js';

/** One run as posted to a worker. `live: false` means nobody listens, so events are only counted. */
export interface RunRequest {
  runId: number;
  live: boolean;
  input: AgentRunInput;
  /**
   * A random key the run's event batches and calls carry, so that what names this run's id comes from this run (run
   * ids are a counter, easy to guess) and not from another agent posting on its own parentPort.
   */
  key: string;
  /** a module agent's output per turn is refused in its worker past this many bytes (output_too_large) */
  maxOutputBytes?: number;
}

/**
 * Events sent while the agent runs, over the worker's parentPort (Piscina re-emits those as
 * 'message' on the pool). The tag keeps them apart from anything else a worker may post.
 */
export interface EventBatch {
  a2aRun: number;
  /** the run's key (RunRequest.key) */
  key: string;
  events: AgentEvent[];
}

/** `worker_crash`: the worker must be replaced (its agent's Buffers passed the cap); always sent as a RecycleReply */
export type FailureReason = 'agent_error' | 'agent_protocol' | 'agent_not_found' | 'output_too_large' | 'worker_crash';

/**
 * How a run's events ended up: `events` yielded in all, `posted` of them sent as EventBatches and
 * `tail`, the ones not yet flushed when the run ended, riding in the reply (a message saved for
 * short runs such as echo). The reply travels on Piscina's own port, which is not ordered with
 * parentPort, so the pool waits until it has received `posted` events before it settles the run.
 */
export interface EventTally {
  events: number;
  posted: number;
  tail: AgentEvent[];
}

export type RunReply = EventTally & ({ ok: true } | { ok: false; reason: FailureReason; message: string });

export const isEventBatch = (m: unknown): m is EventBatch =>
  typeof m === 'object' &&
  m !== null &&
  'a2aRun' in m &&
  typeof m.a2aRun === 'number' &&
  'events' in m &&
  Array.isArray(m.events) &&
  'key' in m &&
  typeof m.key === 'string';

/**
 * A module agent's `ctx.call`, posted on parentPort like an EventBatch (a different tag) with one end of a channel made
 * for this call alone; `call` is what the agent passed (an AgentCall once the main thread has checked it).
 */
export interface CallOpen {
  a2aCall: number;
  key: string | undefined;
  port: MessagePort;
  call: unknown;
}

/** The main thread's answers on a call's port: events (streaming calls only), then one result or one error. */
export type CallReply =
  | { kind: 'event'; event: RemoteEvent }
  | { kind: 'result'; task: RemoteTask }
  | { kind: 'error'; code: string; message: string; remoteCode?: number };

/** The worker's one message on a call's port: the agent's signal aborted. */
export interface CallCancel {
  kind: 'cancel';
}

/** Anything on parentPort may come from an agent's own code: a call without a real port is dropped. */
export const isCallOpen = (m: unknown): m is CallOpen =>
  typeof m === 'object' && m !== null && 'a2aCall' in m && typeof m.a2aCall === 'number' && 'port' in m && m.port instanceof MessagePort;

/**
 * A module run's reply when its agent left something running in the worker (a timer, a socket...): sent on parentPort,
 * behind the run's event batches, instead of as Piscina's reply. The worker's Piscina task never ends, so the pool
 * settles the run from this and then aborts the task, which ends the worker: no later run is served beside the leftover.
 */
export interface RecycleReply {
  a2aRecycle: number;
  /** the run's key (RunRequest.key) */
  key: string;
  reply: RunReply;
  /** what the worker found the agent left behind (its kinds, e.g. "Timeout", "a global added or removed"), for the log */
  left?: string[];
}

export const isRecycleReply = (m: unknown): m is RecycleReply =>
  typeof m === 'object' &&
  m !== null &&
  'a2aRecycle' in m &&
  typeof m.a2aRecycle === 'number' &&
  'key' in m &&
  typeof m.key === 'string' &&
  'reply' in m &&
  typeof m.reply === 'object' &&
  m.reply !== null;

/**
 * A run's pacing channel, opened by its worker (on parentPort, behind the run's batches) the first time its agent gets
 * too far ahead of the main thread. On it the worker sends PaceWait and the pool answers PaceAck.
 */
export interface PaceOpen {
  a2aPace: number;
  /** the run's key (RunRequest.key) */
  key: string;
  port: MessagePort;
}

/** Answer once `until` of the run's posted events have been handed on. */
export interface PaceWait {
  until: number;
}

/** How many of the run's events the pool has handed on. */
export interface PaceAck {
  received: number;
}

export const isPaceOpen = (m: unknown): m is PaceOpen =>
  typeof m === 'object' &&
  m !== null &&
  'a2aPace' in m &&
  typeof m.a2aPace === 'number' &&
  'key' in m &&
  typeof m.key === 'string' &&
  'port' in m &&
  m.port instanceof MessagePort;
