// fs.promises.watch iterators an agent starts: each counted against the turn of its first step, named once.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { activeResources, grownSince } from './leftovers.js';
import { recordLive } from './unrefs.js';

type Step = (this: object, ...args: unknown[]) => Promise<unknown>;
type Generator = Record<'next' | 'return' | 'throw', Step | undefined>;

/** From its first `next()` until one of its steps (next, return or throw) settles done or rejects. */
const started = new WeakSet<object>();
const ended = new WeakSet<object>();
const running = (it: object): boolean => started.has(it) && !ended.has(it);

const LABEL = 'fs.promises.watch';

/**
 * The generator's own next/return/throw, each marking it as it settles; its prototype unchanged. Ended only when a
 * step settles, not when `return()` is called: one called while a `next()` waits is queued behind it, so the watcher
 * keeps its handle, and that `next()` resumes the agent's code, until its next event.
 */
function track(it: object): void {
  const gen = it as Generator;
  const wrap = (name: 'next' | 'return' | 'throw'): void => {
    const step = gen[name];
    if (typeof step !== 'function') return;
    Object.defineProperty(it, name, {
      value: function (this: object, ...args: unknown[]): Promise<unknown> {
        const first = name === 'next' && !started.has(it);
        // the first step opens the watcher's handles (an FSEventWrap, one per folder when recursive) before it returns
        const before = first ? activeResources() : null;
        const stepped = step.apply(this, args);
        if (before) {
          started.add(it);
          // the turn that starts it owns it (recorded now, so a turn's start forgets one started before it); the
          // handles it opened are its own, not also a leftover of the live-handle count
          recordLive({ handle: it, live: running, label: LABEL, holds: grownSince(before) });
        }
        // the agent gets the promise these handlers make, so a rejection it leaves unhandled is still reported as one
        return stepped.then(
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
  wrap('next');
  wrap('return');
  wrap('throw');
}

let installed = false;

/**
 * The promise watcher opens its native handle (an FSEventWrap) in its first step, with no JS object to test its
 * liveness on, and the live-handle count only sees it net of the turn's other watchers (one closed in the turn, or
 * one of the worker's own still closing when the turn began, hides it). So each one agent code makes is tracked, and
 * recorded against the turn in which its first `next()` runs (a `for await` makes that call at once), wherever it was
 * made: while its iteration has not ended, it recycles the worker at that turn's end, since its `for await` body runs
 * on each change, in whatever turn the worker serves next. One made but never iterated holds nothing and is not
 * counted; one first stepped as its module loads (or between turns) is standing state, as a timer set there is.
 * Installed before any agent loads, after ref-options.ts (whose `persistent` rewrite it calls through).
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
    if (typeof it === 'object' && it !== null) track(it);
    return it;
  };
  // an agent's later `import { watch } from 'node:fs/promises'` sees the wrapped function
  syncBuiltinESMExports();
}
