// The one-time build of the per-workspace task sets from the state sets, for data written before those sets existed.
//
// Runs on store open until it has once completed (the `workspaceTasksBuilt` marker). Safe to run twice at once (two
// instances opening together, or one that died half way and runs it again): it only adds members, and SADD of a member
// already there changes nothing. Safe while tasks are written: every task write adds its own key in its write script,
// so a task created, or moved from a state set not yet scanned to one already scanned, is indexed by that write. Safe
// while the sweep runs: a member is added only by a script that finds the task's record, atomically, so a task swept
// between the scan and the add leaves no stale member. Not covered: an instance still running the code from before
// the sets (a rolling upgrade) writing new tasks after the marker is set; delete the marker to build again.
import { TaskState } from '../../../protocol/model.js';
import type { RedisParts } from './client.js';
import { script } from './scripts.js';

/** Task keys per SSCAN step and per indexing script. */
const CHUNK = 500;

/**
 * KEYS: pairs of (task record, its workspace's task set). ARGV: the task keys, in the same order.
 * Adds each task key to its workspace's set if its record is still stored; returns how many were added.
 */
const indexTasks = script({
  numberOfKeys: 2 * CHUNK, // at most: two per task key
  lua: `
local n = 0
for i = 1, #ARGV do
  if redis.call('EXISTS', KEYS[2 * i - 1]) == 1 then n = n + redis.call('SADD', KEYS[2 * i], ARGV[i]) end
end
return n
`,
});

/** Builds the workspace task sets unless the marker says they are built; returns how many entries it added. */
export async function ensureWorkspaceIndex(o: Pick<RedisParts, 'client' | 'keys' | 'run'>): Promise<number> {
  const { client, keys: k, run } = o;
  if ((await client.exists(k.workspaceTasksBuilt)) === 1) return 0;
  let added = 0;
  for (const state of TaskState.options) {
    for await (const batch of client.sScanIterator(k.tasksInState(state), { COUNT: CHUNK })) {
      for (let i = 0; i < batch.length; i += CHUNK) {
        // a key without '/' is no task key of this code base: nothing to index it under
        const ids = batch.slice(i, i + CHUNK).filter((id) => id.includes('/'));
        if (ids.length === 0) continue;
        const keys = ids.flatMap((id) => [k.task(id), k.workspaceTasks(id.slice(0, id.indexOf('/')))]);
        added += Number(await run({ script: indexTasks, keys, args: ids }));
      }
    }
  }
  await client.set(k.workspaceTasksBuilt, String(Date.now()));
  return added;
}
