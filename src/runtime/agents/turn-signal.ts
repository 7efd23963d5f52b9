// The cancel signal of one agent turn: AbortSignal's shape, without its cost (a turn on the hot path needs one each).
type Listener = () => void;

/** What a runner may read and listen to; an AbortSignal is one too. */
export interface TurnSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: Listener, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: Listener): void;
}

/**
 * A turn's cancel: an AbortController with a listener costs about 10 µs (its EventTarget is tracked for GC), a
 * sizeable share of a quick turn. A runner that must hand a real AbortSignal on (fetch) makes one that follows it.
 */
export class TurnCancel implements TurnSignal {
  aborted = false;
  #listeners: Listener[] | undefined;

  addEventListener(_type: 'abort', listener: Listener): void {
    if (this.aborted) return;
    (this.#listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: Listener): void {
    const l = this.#listeners;
    const i = l ? l.indexOf(listener) : -1;
    if (i >= 0) l!.splice(i, 1);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const l = this.#listeners;
    this.#listeners = undefined;
    if (l) for (const fn of l) fn();
  }
}
