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
