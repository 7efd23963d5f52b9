// Test support: a race between two admin writes made deterministic. A real sub-store (LMDB or Redis, not a stand-in)
// is wrapped so that the first read its caller makes through one named method answers, then another real operation
// runs to its end, and only then does the caller go on: the exact point where one read-modify-write has read and not
// yet written, the moment a concurrent writer lands in production.

export interface Interleaved<S> {
  /** the sub-store to hand the first operation */
  store: S;
  /** whether the other operation ran (the first one did read through the hooked method) */
  ran(): boolean;
}

/**
 * `reads` in order of preference: the first one the store has is hooked (a store that reads through a versioned read
 * is held right after it, one without, after its plain read), so the same test runs the same race before and after a
 * store gains a method.
 */
export function afterFirstRead<S extends object>(store: S, o: { reads: readonly string[]; meanwhile: () => Promise<unknown> }): Interleaved<S> {
  const hooked = o.reads.find((m) => typeof (store as Record<string, unknown>)[m] === 'function');
  let fired = false;
  let done = false;
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (prop !== hooked || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        const answer: unknown = await value.apply(target, args);
        if (!fired) {
          fired = true;
          await o.meanwhile();
          done = true;
        }
        return answer;
      };
    },
  });
  return { store: proxy, ran: () => done };
}
