// The cap on a worker's ArrayBuffer memory (Buffers, ArrayBuffers, typed arrays), which V8's heap limit leaves out.
import { getHeapStatistics } from 'node:v8';
import { resourceLimits } from 'node:worker_threads';
import { unrefOwn } from './unrefs.js';

/** Between a module agent's events, measured at most this often (and not in a turn's first one). */
const CHECK_EVERY_MS = 1;
/** While a module turn awaits (an agent allocating between awaits, yielding nothing), measured this often. */
const WATCH_EVERY_MS = 100;

const MB = 1024 * 1024;

/**
 * The worker's heap cap (`pool.maxHeapMb`, given to the worker as its old-generation limit) bounds its ArrayBuffer memory
 * too, separately: a worker holds at most about twice the setting. None when the pool set no cap.
 */
const capBytes = (): number | null => {
  const mb = resourceLimits.maxOldGenerationSizeMb;
  return typeof mb === 'number' && mb > 0 ? mb * MB : null;
};

/**
 * SharedArrayBuffers (and shared WebAssembly memories) made since the module turn began. V8's external memory leaves
 * them out, so only the measure that reads /proc sees them (about 6 µs): a turn's end pays for it only when the turn
 * made one, which a counter on their constructors tells for nothing on every other turn.
 */
let sharedMade = 0;

/** Counts constructions through `owner[name]` (when `counts` says so) without changing what it makes or `instanceof`. */
function countConstructions(owner: Record<string, unknown>, name: string, counts: (args: unknown[]) => boolean): void {
  const original = owner[name];
  if (typeof original !== 'function') return;
  const counted: object = new Proxy(original, {
    construct(target, args, newTarget): object {
      if (counts(args)) sharedMade++;
      return Reflect.construct(target, args, newTarget) as object;
    },
  });
  Object.defineProperty(owner, name, { value: counted, writable: true, configurable: true, enumerable: false });
  // `new buffer.constructor(n)` is counted too
  Object.defineProperty((original as { prototype: object }).prototype, 'constructor', {
    value: counted,
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

let watching = false;

/** Installs the count once per worker, before any agent module loads. */
export function watchSharedBuffers(): void {
  if (watching) return;
  watching = true;
  countConstructions(globalThis as unknown as Record<string, unknown>, 'SharedArrayBuffer', () => true);
  const wasm = (globalThis as { WebAssembly?: Record<string, unknown> }).WebAssembly;
  if (wasm) countConstructions(wasm, 'Memory', (args) => (args[0] as { shared?: unknown } | undefined)?.shared === true);
}

export interface BufferOverrun {
  reason: 'worker_crash';
  message: string;
}

/** One module turn's watch: `check` between events and at the end, `onOverrun` from the timer while the turn awaits. */
export class BufferCap {
  readonly #max: number;
  #lastAt = performance.now();
  #timer: ReturnType<typeof setInterval> | null = null;

  private constructor(max: number) {
    this.#max = max;
  }

  /** null when the pool set no cap */
  static start(onOverrun: (o: BufferOverrun) => void): BufferCap | null {
    const max = capBytes();
    if (max === null) return null;
    sharedMade = 0;
    const cap = new BufferCap(max);
    cap.#timer = setInterval(() => {
      const over = cap.check({ now: true, shared: true });
      if (over) onOverrun(over);
    }, WATCH_EVERY_MS);
    unrefOwn(cap.#timer);
    return cap;
  }

  /**
   * The overrun, or null. `now` measures even if the last measure was under CHECK_EVERY_MS ago (a turn's end).
   * V8's external memory counts every ArrayBuffer's bytes but a SharedArrayBuffer's, for about 1.6 µs;
   * `process.memoryUsage().arrayBuffers` counts those too but reads the process's RSS from /proc (about 6 µs), so it
   * is the timer's (`shared`), which a turn only pays when it lasts 100 ms, and the turn's end's when it made one.
   */
  check(o: { now?: boolean; shared?: boolean } = {}): BufferOverrun | null {
    const at = performance.now();
    if (!o.now && at - this.#lastAt < CHECK_EVERY_MS) return null;
    this.#lastAt = at;
    const external = getHeapStatistics().external_memory;
    const used = o.shared ? Math.max(external, process.memoryUsage().arrayBuffers) : external;
    if (used <= this.#max) return null;
    this.stop();
    const message = `the agent's Buffers and ArrayBuffers took ${Math.round(used / MB)} MB in its worker, past the cap of ${this.#max / MB} MB (pool.maxHeapMb); the turn was stopped and the worker replaced`;
    return { reason: 'worker_crash', message };
  }

  /** At the turn's end: measured, SharedArrayBuffers too if the turn made one. */
  checkEnd(): BufferOverrun | null {
    return this.check({ now: true, shared: sharedMade > 0 });
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }
}
