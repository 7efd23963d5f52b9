// Sends one run's events to the main thread: at once when the agent paces itself, batched when it bursts.
import { parentPort } from 'node:worker_threads';
import type { AgentEvent } from '../../protocol/agent-events.js';
import { EventPace, PACE_WINDOW } from './event-pace.js';
import { describeThrown } from './thrown.js';
import type { EventBatch, EventTally } from './wire.js';

/**
 * An event that follows a pause this long (since the run began or since the previous event) is
 * sent on its own right away: the agent is doing real work between events and the subscriber
 * should see progress now. Closer events are batched, and a batch is never held longer than this.
 */
const PACED_MS = 1;

// One setImmediate for every outbox with buffered events, rather than one per run.
const dirty = new Set<EventOutbox>();
let flushQueued = false;
function flushDirty(): void {
  flushQueued = false;
  for (const outbox of dirty) outbox.flush();
  dirty.clear();
}

export class EventOutbox {
  readonly #runId: number;
  readonly #key: string;
  readonly #live: boolean;
  readonly #trusted: boolean;
  #buffer: AgentEvent[] = [];
  #firstBufferedAt = 0;
  #lastAt = performance.now();
  #count = 0;
  #posted = 0;
  #closed = false;
  #problem: string | null = null;
  /** made once the run has pushed a window's worth of events: most runs never need it */
  #pace: EventPace | null = null;

  /**
   * `trusted` (builtin) agents may leave their last events in the reply. An untrusted agent's
   * events are always posted here, where a value structured clone refuses (a function inside a
   * data part passes the schema) is caught; inside Piscina's reply it would kill the worker.
   */
  constructor(opts: { runId: number; key: string; live: boolean; trusted: boolean }) {
    this.#runId = opts.runId;
    this.#key = opts.key;
    this.#live = opts.live;
    this.#trusted = opts.trusted;
  }

  /** Returns a protocol problem to end the run with, or null. */
  push(event: AgentEvent): string | null {
    // the run was ended from outside its loop (its worker's memory cap): the agent gets no further
    if (this.#closed) return 'the run has ended';
    this.#count++;
    if (!this.#live) return null;
    const now = performance.now();
    const gap = now - this.#lastAt;
    this.#lastAt = now;
    if (this.#buffer.length === 0) {
      if (gap > PACED_MS) {
        this.#post([event]);
        return this.#problem;
      }
      this.#firstBufferedAt = now;
    }
    this.#buffer.push(event);
    // A burst from an agent that never gives the event loop a turn would starve setImmediate.
    if (now - this.#firstBufferedAt > PACED_MS) this.flush();
    else {
      dirty.add(this);
      if (!flushQueued) {
        flushQueued = true;
        setImmediate(flushDirty);
      }
    }
    return this.#problem;
  }

  /**
   * null, or what to await before pulling the agent's next event: the main thread is more than PACE_WINDOW events
   * behind, and a fast agent is paused rather than let fill the pool's backlog (which fails the run past its bound).
   */
  pace(): Promise<void> | null {
    if (!this.#live || this.#count <= PACE_WINDOW || this.#closed) return null;
    this.#pace ??= new EventPace({ runId: this.#runId, key: this.#key });
    if (!this.#pace.behind(this.#count)) return null;
    this.flush();
    return this.#problem ? null : this.#pace.caughtUp(this.#posted);
  }

  flush(): void {
    if (this.#closed || this.#buffer.length === 0) return;
    const batch = this.#buffer;
    this.#buffer = [];
    this.#post(batch);
  }

  /** Ends the run: a trusted agent's unsent events ride along in the reply instead of a message of their own. */
  finish(): EventTally & { problem: string | null } {
    if (!this.#trusted) this.flush();
    this.#closed = true;
    this.#pace?.close();
    dirty.delete(this);
    const tail = this.#buffer;
    this.#buffer = [];
    return { events: this.#count, posted: this.#posted, tail, problem: this.#problem };
  }

  #post(events: AgentEvent[]): void {
    if (this.#problem) return;
    const batch: EventBatch = { a2aRun: this.#runId, key: this.#key, events };
    try {
      parentPort?.postMessage(batch);
      this.#posted += events.length;
    } catch (err) {
      this.#problem = `agent yielded an event that cannot cross threads: ${describeThrown(err)}`;
    }
  }
}
