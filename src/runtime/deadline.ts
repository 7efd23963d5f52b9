// A deadline on calls to a server that may stall. node-redis times a command out only until it is written to the
// socket; once written to a stalled Redis (SIGSTOP, a network black hole) it waits for ever. So our calls race a
// timer: the caller gets a TimeoutError at the deadline, whatever the client does with the command afterwards.
// A connection's calls share one deadline (`connectionDeadline`): it measures how long the connection has been silent,
// not how long a call has been queued behind others, so a burst on a busy but answering Redis does not fail.
import { systemTimers, type Clock, type Timers } from './clock.js';

export class DeadlineError extends Error {
  readonly code = 'ERR_DEADLINE';
  constructor(what: string, ms: number) {
    super(`${what}: no answer within ${ms} ms`);
    // the name the store's "unavailable" check knows (it is what node-redis names its own timeouts)
    this.name = 'TimeoutError';
  }
}

export function withDeadline<T>(p: Promise<T>, o: { ms: number; what: string }): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(o.what, o.ms)), o.ms);
    timer.unref?.();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Races a promise against a deadline (`withDeadline`, or a connection's shared one). */
export type Race = <T>(p: Promise<T>, what: string) => Promise<T>;

/** Monotonic: a wall-clock step must not fail or extend a call. */
const monotonic: Clock = { now: () => performance.now() };

/** A connection's shared deadline: `race` a call against it; `answered` whenever the connection answers anything. */
export interface ConnectionDeadline {
  race: Race;
  answered(): void;
}

/**
 * The deadline of the calls on one connection. Redis answers a connection's commands in order, so a call queued behind
 * a burst of others is waiting its turn on a live server; what marks a stalled one is a connection that answers
 * nothing. A call therefore fails once `ms` have passed since it began, or since the connection last answered
 * (`answered`: any command's reply, a call's own included), whichever is later: a stall fails every pending call `ms`
 * after the last answer, and no call waits in silence longer than `ms`, however many round trips it makes. A call that
 * fulfils counts as an answer; a rejected one only when `isAnswer` says so (a Redis error reply is one, a closed socket
 * is not).
 */
export function connectionDeadline(o: { ms: number; isAnswer?: (err: unknown) => boolean; clock?: Clock; timers?: Timers }): ConnectionDeadline {
  const clock = o.clock ?? monotonic;
  const timers = o.timers ?? systemTimers;
  let lastAnswer = Number.NEGATIVE_INFINITY;
  const answered = () => {
    lastAnswer = Math.max(lastAnswer, clock.now());
  };
  const race = <T>(p: Promise<T>, what: string) =>
    new Promise<T>((resolve, reject) => {
      // counted from the next turn: the caller's own synchronous work (a loop issuing thousands of calls on a starved
      // CPU) is not Redis's silence, and node-redis writes a turn's commands in a setImmediate queued before this one
      let started = clock.now();
      setImmediate(() => {
        started = Math.max(started, clock.now());
      });
      let settled = false;
      let cancel = (): void => {};
      const dueAt = () => Math.max(started, lastAnswer) + o.ms;
      const arm = () => {
        cancel = timers.after(Math.max(0, dueAt() - clock.now()), () => {
          // decide after this turn's I/O is read: a late timer on a busy process must not beat a reply already here
          setImmediate(() => {
            if (settled) return;
            if (dueAt() > clock.now()) return arm();
            settled = true;
            reject(new DeadlineError(what, o.ms));
          });
        });
      };
      arm();
      p.then(
        (v) => {
          answered();
          if (settled) return;
          settled = true;
          cancel();
          resolve(v);
        },
        (err: unknown) => {
          if (o.isAnswer?.(err)) answered();
          if (settled) return;
          settled = true;
          cancel();
          reject(err);
        },
      );
    });
  return { race, answered };
}

/**
 * The same client whose every command reports its answer to `d` (its promise fulfilled, or rejected as `isAnswer`
 * says): a call of many round trips (a scan in slices) shows the connection alive at each one.
 */
export function reportingAnswers<C extends object>(client: C, d: ConnectionDeadline, isAnswer: (err: unknown) => boolean): C {
  return new Proxy(client, {
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop, target);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        const r: unknown = (v as (...a: unknown[]) => unknown).apply(target, args);
        if (r instanceof Promise)
          r.then(d.answered, (e: unknown) => {
            if (isAnswer(e)) d.answered();
          });
        return r;
      };
    },
  });
}

type AnyFn = (...args: never[]) => unknown;

/**
 * The same object with each of its methods given the deadline (methods that return no promise are left alone):
 * `race` when given (a connection's shared deadline), else a deadline of `ms` per call.
 */
export function deadlined<T extends object>(target: T, o: { ms: number; what: string; skip?: readonly string[]; race?: Race }): T {
  const race: Race = o.race ?? ((p, what) => withDeadline(p, { ms: o.ms, what }));
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(target)) {
    if (typeof v !== 'function' || o.skip?.includes(name)) {
      out[name] = v;
      continue;
    }
    const fn = v as AnyFn;
    out[name] = (...args: never[]) => {
      const r = fn.apply(target, args);
      return r instanceof Promise ? race(r, `${o.what}.${name}`) : r;
    };
  }
  return out as T;
}
