// One run as the pool tracks it: delivers its events in order and settles it exactly once.
import type { AgentEvent, AgentRunResult } from '../../protocol/agent-events.js';
import type { RunReply } from '../workers/wire.js';

export type RunFailureReason = 'canceled' | 'timeout' | 'worker_crash' | 'agent_error' | 'agent_protocol' | 'agent_not_found' | 'pool_closed';

export const failure = (reason: RunFailureReason, message: string): AgentRunResult => ({ ok: false, error: { reason, message } });

export interface RunHooks {
  onEvent: ((ev: AgentEvent) => void) | undefined;
  /** a subscriber threw: the run goes on, the pool counts it */
  onSubscriberError: (err: unknown) => void;
  /** called once, before the run's promise resolves, with the failure reason or null on success */
  onSettle: (reason: RunFailureReason | null) => void;
  resolve: (result: AgentRunResult) => void;
}

export class PoolRun {
  #received = 0;
  #reply: RunReply | null = null;
  #settled = false;
  readonly #hooks: RunHooks;

  constructor(hooks: RunHooks) {
    this.#hooks = hooks;
  }

  get settled(): boolean {
    return this.#settled;
  }

  /** A live batch from the worker. Nothing is delivered after the run settled. */
  deliver(events: readonly AgentEvent[]): void {
    if (this.#settled) return;
    this.#emit(events);
    this.#received += events.length;
    if (this.#reply) this.#tryComplete(this.#reply);
  }

  /** The worker's answer; it may overtake live batches still in flight, so wait for them. */
  replied(reply: RunReply): void {
    if (this.#settled) return;
    this.#reply = reply;
    this.#tryComplete(reply);
  }

  fail(reason: RunFailureReason, message: string): void {
    this.#settle(failure(reason, message), reason);
  }

  #tryComplete(reply: RunReply): void {
    if (this.#received < reply.posted) return;
    this.#emit(reply.tail);
    if (reply.ok) this.#settle({ ok: true, events: reply.events }, null);
    else this.#settle(failure(reply.reason, reply.message), reply.reason);
  }

  #emit(events: readonly AgentEvent[]): void {
    const onEvent = this.#hooks.onEvent;
    if (!onEvent) return;
    for (const ev of events) {
      try {
        onEvent(ev);
      } catch (err) {
        this.#hooks.onSubscriberError(err);
      }
    }
  }

  #settle(result: AgentRunResult, reason: RunFailureReason | null): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#hooks.onSettle(reason);
    this.#hooks.resolve(result);
  }
}
