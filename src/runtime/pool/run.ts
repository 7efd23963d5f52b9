// One run as the pool tracks it: delivers its events in order and settles it exactly once.
import { AgentEvent, badFileAt, type AgentRunResult } from '../../protocol/agent-events.js';
import { MAX_JSON_DEPTH, notJsonAt, tooDeepAt } from '../../protocol/json-depth.js';
import type { MessagePort } from 'node:worker_threads';
import type { PaceAck, PaceWait, RunReply } from '../workers/wire.js';
import { type CallHandler, RunCalls, refuseCall } from './calls.js';

export type RunFailureReason =
  | 'canceled'
  | 'timeout'
  | 'worker_crash'
  | 'agent_error'
  | 'agent_protocol'
  | 'agent_not_found'
  | 'output_too_large'
  | 'pool_closed';

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
  /** the most bytes a ctx.call's message may take (module agents: the pool's maxOutputBytes) */
  maxCallBytes?: number;
}

/** live events handed on per event-loop turn, all runs together (about 10 ms of main-thread work for tiny chunks) */
const DELIVER_BUDGET = 512;

/**
 * Live events a run may have waiting to be handed on. An agent that yields faster than the main thread takes its
 * events (a loop of progress statuses, each a task change) left them piling up here without end: 330,000 in 8 s, the
 * heap growing about 12 MB/s toward the process's limit. Its worker now stops pulling from it while the main thread is
 * behind (workers/event-pace.ts, a window far below this), so only a worker that ignores that (agent code posting
 * past it) reaches the bound: past it the run fails and its worker is ended.
 */
export const MAX_BACKLOG = 200_000;

/** this turn's spending, and the runs whose batches wait for the next turn; one setImmediate per turn that spent */
const turn = { spent: 0, resetQueued: false, waiting: new Set<PoolRun>() };

function spend(n: number): void {
  turn.spent += n;
  if (turn.resetQueued) return;
  turn.resetQueued = true;
  setImmediate(() => {
    turn.resetQueued = false;
    turn.spent = 0;
    const waiting = [...turn.waiting];
    turn.waiting.clear();
    for (const run of waiting) run.resume();
  });
}

export class PoolRun {
  #received = 0;
  /** events in #queued */
  #backlog = 0;
  #reply: RunReply | null = null;
  #settled = false;
  #recycling = false;
  #left: readonly string[] = [];
  #calls: RunCalls | null = null;
  /** live batches not handed on yet (the first may wait for a later event-loop turn) */
  #queued: Array<readonly unknown[]> = [];
  /** the worker's pacing channel, once its agent got far ahead, and the count it waits for (PaceWait) */
  #pace: MessagePort | null = null;
  #paceUntil: number | null = null;
  readonly #hooks: RunHooks;

  constructor(hooks: RunHooks) {
    this.#hooks = hooks;
  }

  get settled(): boolean {
    return this.#settled;
  }

  /**
   * A live batch from the worker. Nothing is delivered after the run settled. Batches are queued and handed on at most
   * DELIVER_BUDGET events per event-loop turn, across all runs: a worker that outruns the main thread leaves many
   * batches queued, and Node drains a port's whole queue in one go, so handing each batch on there would hold every
   * other caller until the agent's whole burst was handled (100,000 chunks: 2 s).
   */
  deliver(events: readonly unknown[], key: string): void {
    if (key !== this.#hooks.key) {
      this.#hooks.onForged();
      return;
    }
    if (this.#settled) return;
    this.#backlog += events.length;
    if (this.#backlog > MAX_BACKLOG) {
      this.#queued = [];
      this.#backlog = 0;
      this.fail('agent_protocol', `the agent yielded events faster than the gateway could take them (over ${MAX_BACKLOG} waiting); the turn was stopped`);
      return;
    }
    this.#queued.push(events);
    if (this.#queued.length === 1) this.#drain();
  }

  /** the next turn: hands on what waited (called by the turn's reset, not by the run's owner) */
  resume(): void {
    this.#drain();
  }

  #drain(): void {
    while (this.#queued.length > 0 && !this.#settled) {
      const room = DELIVER_BUDGET - turn.spent;
      if (room <= 0) {
        turn.waiting.add(this);
        return;
      }
      let events = this.#queued[0]!;
      if (events.length > room) {
        // the rest of a long batch waits for the next turn, in front of the batches after it
        this.#queued[0] = events.slice(room);
        events = events.slice(0, room);
      } else this.#queued.shift();
      spend(events.length);
      this.#backlog -= events.length;
      const checked = this.#checked(events);
      if (!checked) break;
      this.#emit(checked);
      this.#received += events.length;
    }
    this.#queued = [];
    this.#backlog = 0;
    this.#answerPace();
    if (this.#reply) this.#tryComplete(this.#reply);
  }

  /** The worker paused its agent until this run has handed on enough of its events (see workers/event-pace.ts). */
  paced(port: MessagePort, key: string): void {
    if (key !== this.#hooks.key) {
      this.#hooks.onForged();
      port.close();
      return;
    }
    if (this.#settled || this.#pace) {
      port.close();
      return;
    }
    this.#pace = port;
    port.on('message', (m: PaceWait) => {
      if (typeof m?.until !== 'number') return;
      this.#paceUntil = m.until;
      this.#answerPace();
    });
    port.unref();
  }

  #answerPace(): void {
    if (this.#paceUntil === null || this.#received < this.#paceUntil || this.#settled) return;
    this.#paceUntil = null;
    const ack: PaceAck = { received: this.#received };
    this.#pace?.postMessage(ack);
  }

  /** The worker's answer; it may overtake live batches still in flight, so wait for them. */
  replied(reply: RunReply): void {
    if (this.#settled) return;
    this.#reply = reply;
    this.#tryComplete(reply);
  }

  /**
   * The worker's reply on parentPort: its agent left something running there, so the worker must not serve another
   * run. The pool ends it once this run has settled (`recycling`).
   */
  repliedRecycling(reply: RunReply, key: string, left: readonly string[]): void {
    if (key !== this.#hooks.key) {
      this.#hooks.onForged();
      return;
    }
    this.#recycling = true;
    this.#left = left;
    this.replied(reply);
  }

  /** the run's worker asked to be ended after the run (see repliedRecycling) */
  get recycling(): boolean {
    return this.#recycling;
  }

  /** what its worker said the agent left behind, when it asked to be ended */
  get left(): readonly string[] {
    return this.#left;
  }

  /** A `ctx.call` from this run's agent, with the port to answer on. */
  call(port: MessagePort, raw: unknown, key: string | undefined): void {
    if (key !== this.#hooks.key) {
      this.#hooks.onForged();
      refuseCall(port, 'invalid_request', 'ctx.call refused: the call does not come from its run');
      return;
    }
    this.#calls ??= new RunCalls(this.#hooks.onCall, this.#hooks.callCounts, this.#hooks.maxCallBytes);
    this.#calls.serve(port, raw);
  }

  fail(reason: RunFailureReason, message: string): void {
    this.#settle(failure(reason, message), reason);
  }

  #tryComplete(reply: RunReply): void {
    if (this.#queued.length > 0 || this.#received < reply.posted) return;
    const tail = this.#checked(reply.tail);
    if (!tail) return;
    this.#emit(tail);
    if (reply.ok) this.#settle({ ok: true, events: reply.events }, null);
    else this.#settle(failure(reply.reason, reply.message), reply.reason);
  }

  /**
   * An untrusted agent's events were checked in its worker, but its own code could post past that check: the main
   * thread, where a malformed event could break the task's machine, checks them again. A bad one fails the run
   * (undefined). The events as the schema reads them go on (an artifact's name and description cut to ARTIFACT_TEXT),
   * not as posted.
   */
  #checked(events: readonly unknown[]): readonly AgentEvent[] | undefined {
    if (this.#hooks.trusted) return events as readonly AgentEvent[];
    const read: AgentEvent[] = [];
    for (const ev of events) {
      const parsed = tooDeepAt(ev, { limit: MAX_JSON_DEPTH + 5, root: 'event' }) === undefined && !notJsonAt(ev, 'event') ? AgentEvent.safeParse(ev) : null;
      if (!parsed?.success || badFileAt(parsed.data)) {
        this.fail('agent_protocol', 'the agent posted an event that is not a valid agent event');
        return undefined;
      }
      read.push(parsed.data);
    }
    return read;
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
    // the worker's end wakes its agent, which is being let go
    this.#pace?.close();
    this.#pace = null;
    this.#calls?.endAll(reason ? `its run ended (${reason})` : 'its run ended');
    this.#hooks.onSettle(reason);
    this.#hooks.resolve(result);
  }
}
