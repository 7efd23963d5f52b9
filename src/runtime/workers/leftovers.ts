// What a module agent left running in its worker after its turn: timers, immediates, sockets, open ports, ...
import { unrefdLeft } from './unrefs.js';

/** How many of each kind of live handle or request the worker's thread holds now. */
export function activeResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/**
 * The kinds the thread holds more of than before the turn, and what the agent unref'd and left live (Node does not list
 * those). A worker runs one module turn at a time, so these are the agent's: a timer that fires later runs in whatever
 * turn the worker serves next (another agent's, even another workspace's), where a busy loop or a process.exit() would
 * fail that turn instead of this one.
 */
export function leftSince(before: ReadonlyMap<string, number>): string[] {
  const out = unrefdLeft();
  for (const [kind, n] of activeResources()) if (n > (before.get(kind) ?? 0)) out.push(kind);
  return out;
}

/** One event-loop turn: what the run itself queued for "right after" (its last flush, an agent's setImmediate) runs first. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
