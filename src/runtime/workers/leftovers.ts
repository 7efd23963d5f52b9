// What a module agent left behind in its worker after its turn: timers, immediates, sockets, open ports, changed globals.
import { type SharedMark, sharedChanges, sharedMark } from './shared-globals.js';
import { forgetUnrefs, unrefdLeft } from './unrefs.js';

/** How many of each kind of live handle or request the worker's thread holds now. */
export function activeResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
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
 * The kinds the thread holds more of than before the turn, what the agent unref'd and left live (Node does not list
 * those), and what it changed of the state every agent on the worker shares. A worker runs one module turn at a time,
 * so these are the agent's: a timer that fires later runs in whatever turn the worker serves next (another agent's,
 * even another workspace's), where a busy loop or a process.exit() would fail that turn instead of this one, and a
 * polluted prototype or a replaced built-in would be read there.
 */
export function leftSince(before: TurnStart): string[] {
  const out = unrefdLeft();
  for (const [kind, n] of activeResources()) if (n > (before.resources.get(kind) ?? 0)) out.push(kind);
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
const FINITE_REQUESTS = ['FSReqCallback', 'FSReqPromise'];
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
