// The messages between the pool (main thread) and agent-worker: plain structured-clone data, no classes.
import type { AgentEvent, AgentRunInput } from '../../protocol/agent-events.js';

/** One run as posted to a worker. `live: false` means nobody listens, so events are only counted. */
export interface RunRequest {
  runId: number;
  live: boolean;
  input: AgentRunInput;
}

/**
 * Events sent while the agent runs, over the worker's parentPort (Piscina re-emits those as
 * 'message' on the pool). The tag keeps them apart from anything else a worker may post.
 */
export interface EventBatch {
  a2aRun: number;
  events: AgentEvent[];
}

export type FailureReason = 'agent_error' | 'agent_protocol' | 'agent_not_found';

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

export const isEventBatch = (m: unknown): m is EventBatch => typeof m === 'object' && m !== null && 'a2aRun' in m && typeof m.a2aRun === 'number';
