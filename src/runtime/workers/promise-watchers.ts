// fs.promises.watch iterators an agent starts: recorded from their first step, not left to the live-handle count.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { recordLive } from './unrefs.js';

type Step = (this: object, ...args: unknown[]) => Promise<unknown>;
type Generator = Record<'next' | 'return' | 'throw', Step | undefined>;

/** From the first `next()` until a step says done, a step rejects, or `return()`/`throw()` is called. */
const started = new WeakSet<object>();
const ended = new WeakSet<object>();
const running = (it: object): boolean => started.has(it) && !ended.has(it);

/** The generator's own next/return/throw, each marking it as they are called and settle; its prototype unchanged. */
function track(it: object): void {
  const gen = it as Generator;
  const wrap = (name: 'next' | 'return' | 'throw', onCall: () => void): void => {
    const step = gen[name];
    if (typeof step !== 'function') return;
    Object.defineProperty(it, name, {
      value: function (this: object, ...args: unknown[]): Promise<unknown> {
        onCall();
        // the agent gets the promise these handlers make, so a rejection it leaves unhandled is still reported as one
        return step.apply(this, args).then(
          (r) => {
            if (typeof r === 'object' && r !== null && (r as { done?: unknown }).done === true) ended.add(it);
            return r;
          },
          (err: unknown) => {
            ended.add(it);
            throw err;
          },
        );
      },
      writable: true,
      configurable: true,
    });
  };
  wrap('next', () => started.add(it));
  wrap('return', () => ended.add(it));
  wrap('throw', () => ended.add(it));
}

let installed = false;

/**
 * The promise watcher opens its native handle (an FSEventWrap) in its first step, with no JS object to test its
 * liveness on, and the live-handle count only sees it net of the turn's other watchers (one closed in the turn, or
 * one of the worker's own still closing when the turn began, hides it). So each one agent code starts is recorded
 * from its first `next()` (a `for await` makes that call at once) and, while its iteration has not ended, recycles
 * the worker at the turn's end: its `for await` body runs on each change, in whatever turn the worker serves next.
 * One made but never iterated holds nothing and is not counted. Installed before any agent loads, after
 * ref-options.ts (whose `persistent` rewrite it calls through).
 */
export function watchPromiseWatchers(): void {
  if (installed) return;
  installed = true;
  // the same object as `node:fs/promises`
  const fsp = (createRequire(import.meta.url)('node:fs') as { promises: Record<string, unknown> }).promises;
  const original = fsp.watch;
  if (typeof original !== 'function') return;
  fsp.watch = function watch(this: unknown, ...args: unknown[]): unknown {
    const it: unknown = original.apply(this, args);
    if (typeof it === 'object' && it !== null) {
      track(it);
      recordLive(it, running, 'fs.promises.watch');
    }
    return it;
  };
  // an agent's later `import { watch } from 'node:fs/promises'` sees the wrapped function
  syncBuiltinESMExports();
}
