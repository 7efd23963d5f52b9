// One run as the pool tracks it: delivers its events in order and settles it exactly once.
import { AgentEvent, type AgentRunResult } from '../../protocol/agent-events.js';
import { MAX_JSON_DEPTH, notJsonAt, tooDeepAt } from '../../protocol/json-depth.js';
import type { MessagePort } from 'node:worker_threads';
import type { RunReply } from '../workers/wire.js';
import { type CallHandler, RunCalls, refuseCall } from './calls.js';

export type RunFailureReason = 'canceled' | 'timeout' | 'worker_crash' | 'agent_error' | 'agent_protocol' | 'agent_not_found' | 'pool_closed';

export const failure = (reason: RunFailureReason, message: string): AgentRunResult => ({ ok: false, error: { reason, message } });

export interface RunHooks {
  onEvent: ((ev: AgentEvent) => void) | undefined;
  /** a subscriber threw: the run goes on, the pool counts it */
  onSubscriberError: (err: unknown) => void;
  /** called once, before the run's promise resolves, with the failure reason or null on success */
  onSettle: (reason: RunFailureReason | null) => void;
  resolve: (result: AgentRunResult) => void;
  /** serves the agent's ctx.call; undefined: calls fail with 'client_mode_off' */
  onCall: CallHandler | undefined;
  /** the pool's call counters, which a run's calls keep up to date */
  callCounts: { opened: number; open: number };
  /** the key this run's event batches and calls must carry (RunRequest.key) */
  key: string;
  /** builtin agents: their events are typed at compile time; any other run's events are checked here too */
  trusted: boolean;
  /** a batch or call that names this run without its key (another worker's forgery) was dropped */
  onForged: () => void;
}

export class PoolRun {
  #received = 0;
  #reply: RunReply | null = null;
  #settled = false;
  #calls: RunCalls | null = null;
  readonly #hooks: RunHooks;

  constructor(hooks: RunHooks) {
    this.#hooks = hooks;
  }

  get settled(): boolean {
    return this.#settled;
  }

  /** A live batch from the worker. Nothing is delivered after the run settled. */
  deliver(events: readonly unknown[], key: string): void {
    if (key !== this.#hooks.key) {
      this.#hooks.onForged();
      return;
    }
    if (this.#settled || !this.#checked(events)) return;
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

  /** A `ctx.call` from this run's agent, with the port to answer on. */
  call(port: MessagePort, raw: unknown, key: string | undefined): void {
    if (key !== this.#hooks.key) {
      this.#hooks.onForged();
      refuseCall(port, 'invalid_request', 'ctx.call refused: the call does not come from its run');
      return;
    }
    this.#calls ??= new RunCalls(this.#hooks.onCall, this.#hooks.callCounts);
    this.#calls.serve(port, raw);
  }

  fail(reason: RunFailureReason, message: string): void {
    this.#settle(failure(reason, message), reason);
  }

  #tryComplete(reply: RunReply): void {
    if (this.#received < reply.posted) return;
    if (!this.#checked(reply.tail)) return;
    this.#emit(reply.tail);
    if (reply.ok) this.#settle({ ok: true, events: reply.events }, null);
    else this.#settle(failure(reply.reason, reply.message), reply.reason);
  }

  /**
   * An untrusted agent's events were checked in its worker, but its own code could post past that check: the main
   * thread, where a malformed event could break the task's machine, checks them again. A bad one fails the run.
   */
  #checked(events: readonly unknown[]): events is readonly AgentEvent[] {
    if (this.#hooks.trusted) return true;
    for (const ev of events) {
      if (tooDeepAt(ev, { limit: MAX_JSON_DEPTH + 5, root: 'event' }) !== undefined || notJsonAt(ev, 'event') || !AgentEvent.safeParse(ev).success) {
        this.fail('agent_protocol', 'the agent posted an event that is not a valid agent event');
        return false;
      }
    }
    return true;
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
    this.#calls?.endAll(reason ? `its run ended (${reason})` : 'its run ended');
    this.#hooks.onSettle(reason);
    this.#hooks.resolve(result);
  }
}
