// The per-run abort handle Piscina watches: a cancel, a timeout or a closing pool ends the run the same way.
import type { RunFailureReason } from './run.js';

type Listener = () => void;

/**
 * Piscina accepts an EventEmitter-shaped signal, and an abort while the task runs terminates its
 * worker, which is the only way to stop an agent stuck in a busy loop. This object costs far less
 * per run than an AbortController with its EventTarget, on the path every request takes.
 */
export class RunAbort {
  aborted = false;
  /** why the worker was stopped: the run's failure, or 'recycle' after a run whose agent left work running there */
  reason: RunFailureReason | 'recycle' | null = null;
  #listener: Listener | null = null;

  once(_name: 'abort', listener: Listener): void {
    this.#listener = listener;
  }

  off(_name: 'abort', listener: Listener): void {
    if (this.#listener === listener) this.#listener = null;
  }

  removeListener(name: 'abort', listener: Listener): void {
    this.off(name, listener);
  }

  fire(reason: RunFailureReason | 'recycle'): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listener = this.#listener;
    this.#listener = null;
    listener?.();
  }
}
