// A run's credit in its worker: the worker stops pulling events from its agent while the main thread is far behind.
import { MessageChannel, type MessagePort, parentPort } from 'node:worker_threads';
import { unrefOwn } from './unrefs.js';
import type { PaceAck, PaceOpen, PaceWait } from './wire.js';

/**
 * How many posted events may wait on the main thread before the worker stops pulling from the agent; it pulls again
 * once half of them have been handed on. The pool hands on 512 events per event-loop turn, so this is some 30 turns of
 * work: far below the pool's own bound on waiting events (MAX_BACKLOG), and a burst within it costs no round trip.
 */
export const PACE_WINDOW = 16_384;

/**
 * Owns the run's pacing channel, opened on the first wait (most runs never wait): one message each way per wait, and
 * none while the main thread keeps up.
 */
export class EventPace {
  readonly #run: { runId: number; key: string };
  #port: MessagePort | null = null;
  #closed = false;
  /** what the main thread last said it had handed on */
  #received = 0;
  #resume: (() => void) | null = null;

  constructor(run: { runId: number; key: string }) {
    this.#run = run;
  }

  behind(posted: number): boolean {
    return posted - this.#received > PACE_WINDOW;
  }

  /** Resolves once the main thread has handed on all but half a window of the `posted` events (or the run ended). */
  caughtUp(posted: number): Promise<void> {
    const port = this.#open();
    if (!port) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#resume = resolve;
      const wait: PaceWait = { until: posted - PACE_WINDOW / 2 };
      port.postMessage(wait);
    });
  }

  close(): void {
    this.#closed = true;
    this.#port?.close();
    this.#port = null;
    this.#wake();
  }

  #open(): MessagePort | null {
    if (this.#port || this.#closed || !parentPort) return this.#port;
    const { port1, port2 } = new MessageChannel();
    const open: PaceOpen = { a2aPace: this.#run.runId, key: this.#run.key, port: port2 };
    try {
      parentPort.postMessage(open, [port2]);
    } catch {
      port1.close();
      return null;
    }
    port1.on('message', (m: PaceAck) => {
      if (typeof m?.received === 'number') this.#received = m.received;
      this.#wake();
    });
    // the pool closes its end when the run settles: the agent is let go (and its worker is being ended)
    port1.on('close', () => this.close());
    // never what keeps a worker alive, and never an agent's leftover
    unrefOwn(port1);
    this.#port = port1;
    return port1;
  }

  #wake(): void {
    const resume = this.#resume;
    this.#resume = null;
    resume?.();
  }
}
