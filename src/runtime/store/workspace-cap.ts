// A claim's per-workspace bound on attempts in flight, as both engines apply it: one workspace whose receivers hang
// must not take every delivery slot while other workspaces' webhooks wait (see decisions.md, "fair claiming").
import { workspaceQueuePrefix } from './push-queues.js';
import type { WorkspaceCap } from './types.js';

/**
 * A gate for one claim: `admit(workspace)` is true (and counts the head as taken) while the workspace holds fewer
 * than `max` attempts, counting those already under way and those this claim took. No cap admits every head.
 */
export function capGate(cap: WorkspaceCap | undefined): { admit(workspaceId: string): boolean; hasRoom(workspaceId: string): boolean } {
  if (!cap) return { admit: () => true, hasRoom: () => true };
  const taken = new Map<string, number>();
  const hasRoom = (workspaceId: string) => (cap.held.get(workspaceId) ?? 0) + (taken.get(workspaceId) ?? 0) < cap.max;
  return {
    /** whether admit would be true, counting nothing (a head not yet read may still not be claimed) */
    hasRoom,
    admit(workspaceId) {
      if (!hasRoom(workspaceId)) return false;
      taken.set(workspaceId, (taken.get(workspaceId) ?? 0) + 1);
      return true;
    },
  };
}

/** True when the workspace already holds its whole share (heads of it are passed over); false without a cap. */
export const isFull = (cap: WorkspaceCap | undefined, workspaceId: string): boolean => cap !== undefined && (cap.held.get(workspaceId) ?? 0) >= cap.max;

/**
 * The cap as a Redis claim script reads it: the max (0: none), then per workspace holding attempts its queues'
 * common prefix (what the script cuts from a queue name: up to and including the first '/') and how many it holds.
 */
export function capArgs(cap: WorkspaceCap | undefined): string[] {
  if (!cap) return ['0'];
  const out = [String(cap.max)];
  for (const [ws, n] of cap.held) if (n > 0) out.push(workspaceQueuePrefix(ws), String(n));
  return out;
}
