// fs.watch with `recursive: true` (callback or promise) on Linux: the handles Node opens for it belong to the watcher.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { callerFile, recordLive } from './unrefs.js';

/** Where Node watches a tree itself on Linux: one fs.watch of its own per file and folder, made as entries appear. */
const TREE_WALKER = 'node:internal/fs/recursive_watch';

type Handle = { _handle?: unknown; once(event: 'close', fn: () => void): unknown };

/** The watchers Node opened for recursive ones, until each closes (its `_handle` goes: also on an error, with no 'close'). */
const entryWatchers = new Set<Handle>();

/** How many live handles (FSEventWrap) Node's recursive watching holds now: the live-handle count leaves them out. */
export function treeWatcherHandles(): number {
  for (const w of entryWatchers) if (!w._handle) entryWatchers.delete(w);
  return entryWatchers.size;
}

let installed = false;

/**
 * A recursive watcher's handles come and go with the tree, in whatever turn a file or folder appears or goes: one
 * started as the module loads (standing state) grew the live-handle count in each turn that wrote into its tree, and
 * the worker was recycled after nearly every turn; one the turn started was named twice (its label and FSEventWrap).
 * So Node's own watchers of a tree's entries are left out of the count (leftovers.ts), and the recursive watcher
 * agent code makes is recorded instead, named 'FSEventWrap' (as it was) while it is open; a promise one is recorded
 * by promise-watchers.ts from its first step. Installed after ref-options.ts (whose `persistent` rewrite it calls
 * through), before any agent loads.
 */
export function watchRecursiveWatchers(): void {
  if (installed) return;
  installed = true;
  const fs = createRequire(import.meta.url)('node:fs') as Record<string, unknown>;
  const original = fs.watch;
  if (typeof original !== 'function') return;
  const watch = function (this: unknown, ...args: unknown[]): unknown {
    const made: unknown = original.apply(this, args);
    if (typeof made !== 'object' || made === null) return made;
    const from = callerFile(watch);
    // the tree walker looks `fs.watch` up on each entry, so it calls this one
    if (from === TREE_WALKER) entryWatchers.add(made as Handle);
    else if (!from?.startsWith('node:') && isRecursive(args[1])) {
      let open = true;
      (made as Handle).once('close', () => {
        open = false;
      });
      recordLive({ handle: made, live: () => open, label: 'FSEventWrap' });
    }
    return made;
  };
  fs.watch = watch;
  // an agent's later `import { watch } from 'node:fs'` sees the wrapped function
  syncBuiltinESMExports();
}

const isRecursive = (options: unknown): boolean => typeof options === 'object' && options !== null && (options as { recursive?: unknown }).recursive === true;
