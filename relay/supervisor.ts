// The relay's supervisor: keeps one XState actor (the tunnel, or one local agent's health) running. When the actor
// crashes (its logic throws: the actor's snapshot goes to status 'error') it is disposed of and a fresh one started,
// at most `maxRestarts` times in any `windowMs` (on the injected clock); a child crashing faster than that waits until
// the window lets it restart, so a bug in one child never spins the CPU, never stops the others, never ends the relay.
import type { AnyActorRef } from 'xstate';
import type { Clock, Timers } from '../src/runtime/clock.js';
import { errorText, type Log } from '../src/runtime/log.js';

/** One incarnation of a supervised child: its actor (not yet started) and what to release when it crashes. */
export interface Incarnation<A extends AnyActorRef> {
  actor: A;
  /**
   * Releases what the actor held (an open session, a pending check). XState does not stop the invoked children of an
   * actor that errored, so the child's owner says here how to end them.
   */
  dispose?: () => void;
}

export interface SuperviseOptions<A extends AnyActorRef> {
  /** the child's name in log lines: `tunnel`, `health sdk-echo` */
  name: string;
  /**
   * Makes a fresh incarnation; `restarts` is how many came before it. Whoever subscribes to the actor here must pass
   * an error observer (XState reports an error nobody observes as an uncaught exception, which would end the process).
   */
  create: (restarts: number) => Incarnation<A>;
  log: Log;
  clock: Clock;
  timers: Timers;
  /** restarts allowed in any window of `windowMs` before the next one waits (5 in 60 s by default) */
  maxRestarts?: number;
  windowMs?: number;
}

export interface Supervised<A extends AnyActorRef> {
  /** the running incarnation (an errored one until its restart when the restart has to wait) */
  current(): A;
  /** restarts so far */
  restarts(): number;
  /** when the next restart is due, if one is waiting for the window */
  restartAt(): number | undefined;
  /** stops the child for good: no restart after this */
  stop(): void;
}

export function supervise<A extends AnyActorRef>(o: SuperviseOptions<A>): Supervised<A> {
  const maxRestarts = o.maxRestarts ?? 5;
  const windowMs = o.windowMs ?? 60_000;
  /** the clock times of the restarts still inside the window */
  let recent: number[] = [];
  let restarts = 0;
  let stopped = false;
  let restartAt: number | undefined;
  let cancelRestart = () => {};
  let live: Incarnation<A>;

  const start = () => {
    const made = o.create(restarts);
    let released = false;
    // released once, whether by its crash or by stop()
    const inc: Incarnation<A> = {
      actor: made.actor,
      dispose: () => {
        if (released) return;
        released = true;
        made.dispose?.();
      },
    };
    live = inc;
    inc.actor.subscribe({ error: (e: unknown) => crashed(inc, e) });
    inc.actor.start();
  };

  const restart = () => {
    restartAt = undefined;
    if (stopped) return;
    restarts++;
    recent.push(o.clock.now());
    try {
      start();
    } catch (e) {
      // the incarnation could not even be made: as bounded as a crash
      crashed(live, e);
    }
  };

  /** a crash of `inc` (ignored when it is not the live incarnation: a late report of an old one) */
  const crashed = (inc: Incarnation<A>, e: unknown) => {
    if (stopped || inc !== live) return;
    try {
      inc.dispose!();
    } catch (de) {
      o.log('relay actor cleanup failed', { actor: o.name, error: errorText(de) });
    }
    const now = o.clock.now();
    recent = recent.filter((at) => now - at < windowMs);
    if (recent.length < maxRestarts) {
      o.log('relay actor crashed, restarting it', { actor: o.name, error: errorText(e), restarts: restarts + 1 });
      // not from inside the failing actor's own call stack: the restart is a fresh start
      queueMicrotask(restart);
      return;
    }
    const waitMs = recent[0]! + windowMs - now;
    restartAt = now + waitMs;
    o.log('relay actor crashed too often, restart delayed', {
      actor: o.name,
      error: errorText(e),
      restarts,
      max_restarts: maxRestarts,
      window_ms: windowMs,
      retry_in_ms: waitMs,
    });
    cancelRestart = o.timers.after(waitMs, restart);
  };

  start();
  return {
    current: () => live.actor,
    restarts: () => restarts,
    restartAt: () => restartAt,
    stop() {
      stopped = true;
      cancelRestart();
      if (live.actor.getSnapshot().status === 'active') live.actor.stop();
      live.dispose!();
    },
  };
}
