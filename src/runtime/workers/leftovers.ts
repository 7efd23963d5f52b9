// What a module agent left behind in its worker after its turn: timers, immediates, sockets, open ports, changed globals.
import { treeWatcherHandles } from './recursive-watchers.js';
import { type SharedMark, sharedChanges, sharedMark } from './shared-globals.js';
import { forgetUnrefs, unrefdLeft } from './unrefs.js';

/**
 * How many of each kind of live handle or request the worker's thread holds now, less the watchers Node opens for a
 * recursive fs.watch: those are the recursive watcher's, counted as one record of it (recursive-watchers.ts).
 */
export function activeResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  const tree = treeWatcherHandles();
  if (tree > 0) counts.set(FS_WATCHER, Math.max(0, (counts.get(FS_WATCHER) ?? 0) - tree));
  return counts;
}

const FS_WATCHER = 'FSEventWrap';

/** The kinds the thread holds more of now than `before` counted, and how many more. */
export function grownSince(before: ReadonlyMap<string, number>): Map<string, number> {
  const grown = new Map<string, number>();
  for (const [kind, n] of activeResources()) if (n > (before.get(kind) ?? 0)) grown.set(kind, n - (before.get(kind) ?? 0));
  return grown;
}

/** The worker's state as a module turn starts (after the module's import: what it sets up there is standing state). */
export interface TurnStart {
  resources: Map<string, number>;
  shared: SharedMark;
}

export function turnStart(): TurnStart {
  forgetUnrefs();
  return { resources: activeResources(), shared: sharedMark() };
}

/**
 * The kinds the thread holds more of than before the turn, what the agent unref'd or started and left live (Node does
 * not list those, or lists them net of the turn's other handles), each named once (the live handles those hold are
 * not counted again), and what it changed of the state every agent on the worker shares. A worker runs one module
 * turn at a time, so these are the agent's: a timer that fires later runs in whatever turn the worker serves next
 * (another agent's, even another workspace's), where a busy loop or a process.exit() would fail that turn instead of
 * this one, and a polluted prototype or a replaced built-in would be read there.
 */
export function leftSince(before: TurnStart): string[] {
  const { kinds, held } = unrefdLeft();
  const out = kinds;
  for (const [kind, more] of grownSince(before.resources)) if (more > (held.get(kind) ?? 0)) out.push(kind);
  out.push(...sharedChanges(before.shared));
  return out;
}

/** One event-loop turn: what the run itself queued for "right after" (its last flush, an agent's setImmediate) runs first. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * File-system requests in flight end by themselves (a read, a stat, a write), unlike a timer or a socket. At a turn's
 * end one may still be running that is not the agent's at all (the module loader's, a transpiler's cache write after
 * the import, seen in CI under load: a clean first turn was judged to leave one and its worker replaced), or the
 * agent's, whose callback would then run in the next turn. Either way the turn waits for them, up to `maxMs`, and is
 * judged after: what their callbacks left is counted then.
 */
// `CloseReq` is a FileHandle's close (fs.promises) in flight: it ends by itself too, queued in the same thread pool
const FINITE_REQUESTS = ['FSReqCallback', 'FSReqPromise', 'CloseReq'];
// taken as this module loads, before any agent code: an agent may replace the globals
const later = globalThis.setTimeout;
const clock = performance;
const clockNow = performance.now;

export async function settleFsRequests(before: TurnStart, o: { maxMs: number }): Promise<void> {
  const pending = (): boolean => {
    const now = activeResources();
    return FINITE_REQUESTS.some((kind) => (now.get(kind) ?? 0) > (before.resources.get(kind) ?? 0));
  };
  const now = (): number => clockNow.call(clock);
  const until = now() + o.maxMs;
  while (pending() && now() < until) await new Promise((resolve) => later(resolve, 1));
  // the last one's callback, and what it queued for right after
  await nextTurn();
}
