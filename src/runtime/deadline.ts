// A deadline on calls to a server that may stall. node-redis times a command out only until it is written to the
// socket; once written to a stalled Redis (SIGSTOP, a network black hole) it waits for ever. So our calls race a
// timer: the caller gets a TimeoutError at the deadline, whatever the client does with the command afterwards.

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

type AnyFn = (...args: never[]) => unknown;

/** The same object with each of its methods given the deadline (methods that return no promise are left alone). */
export function deadlined<T extends object>(target: T, o: { ms: number; what: string; skip?: readonly string[] }): T {
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(target)) {
    if (typeof v !== 'function' || o.skip?.includes(name)) {
      out[name] = v;
      continue;
    }
    const fn = v as AnyFn;
    out[name] = (...args: never[]) => {
      const r = fn.apply(target, args);
      return r instanceof Promise ? withDeadline(r, { ms: o.ms, what: `${o.what}.${name}` }) : r;
    };
  }
  return out as T;
}
