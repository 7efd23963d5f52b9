// Timers of any length: Node fires a setTimeout of 2^31 ms or more at once (with a warning), so longer waits are
// chained. Pure JS with no I/O, here so that the worker agents (which may import only protocol/) use it too.

/** The longest delay one setTimeout honours. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** Runs `fn` after `ms` (any length; NaN or negative: at once); returns a cancel function. `unref` as for setTimeout. */
export function setLongTimeout(fn: () => void, ms: number, o: { unref?: boolean } = {}): () => void {
  let handle: ReturnType<typeof setTimeout> | undefined;
  const arm = (left: number) => {
    const step = Math.min(left, MAX_TIMEOUT_MS);
    handle = setTimeout(() => (left > MAX_TIMEOUT_MS ? arm(left - MAX_TIMEOUT_MS) : fn()), step);
    if (o.unref) handle.unref?.();
  };
  arm(Number.isNaN(ms) ? 0 : Math.max(0, ms));
  return () => clearTimeout(handle);
}

/** Resolves after `ms` (any length); rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      cancel();
      reject(signal!.reason);
    };
    const cancel = setLongTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
