// The per-workspace task sets' repair: adds to its workspace's set every stored task missing from it, a bounded step
// at a time. Two callers: the one-time build on store open, for data written before the sets existed, and the
// periodic repair pass (runtime/index-repair.ts), for tasks written after that by an instance still running the code
// from before the sets (a rolling upgrade: its task write script adds to the state sets only).
//
// The build runs on store open until it has once completed (the `workspaceTasksBuilt` marker). Both are safe to run
// twice at once (two instances opening together, one that died half way, a pass overlapping the build): they only
// add members, and SADD of a member already there changes nothing. Safe while tasks are written: every task write of
// this code adds its own key in its write script, so a task created, or moved from a state set not yet scanned to one
// already scanned, is indexed by that write (an older instance's such task is found by the next pass). Safe while the
// sweep runs: a member is added only by a script that finds the task's record, atomically, so a task swept between
// the scan and the add leaves no stale member. A step reads the state sets, never the workspace sets or the task
// write path: its cost is one SSCAN step and an EXISTS and SADD per task key scanned.
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

type Parts = Pick<RedisParts, 'client' | 'keys' | 'run'>;

/** Where a pass stands: `<state index>:<SSCAN cursor of that state's set>`; '' before the first step and after the last. */
const STEP_CURSOR = /^(\d+):(\d+)$/;

/**
 * One bounded step of a pass over every state set (each task key sits in one): one SSCAN step of one set, its task
 * keys indexed. Start with cursor ''; pass back each cursor returned; '' again when the pass is done.
 */
export async function indexStep(o: Parts, cursor: string): Promise<{ cursor: string; added: number }> {
  const { client, keys: k, run } = o;
  const at = cursor === '' ? ['', '0', '0'] : STEP_CURSOR.exec(cursor);
  const state = at ? TaskState.options[Number(at[1])] : undefined;
  if (!at || state === undefined) throw new Error(`workspace index step: not a cursor of this pass: ${JSON.stringify(cursor)}`);
  const reply = await client.sScan(k.tasksInState(state), at[2]!, { COUNT: CHUNK });
  let added = 0;
  for (let i = 0; i < reply.members.length; i += CHUNK) {
    // a key without '/' is no task key of this code base: nothing to index it under
    const ids = reply.members.slice(i, i + CHUNK).filter((id) => id.includes('/'));
    if (ids.length === 0) continue;
    const keys = ids.flatMap((id) => [k.task(id), k.workspaceTasks(id.slice(0, id.indexOf('/')))]);
    added += Number(await run({ script: indexTasks, keys, args: ids }));
  }
  const stateIndex = Number(at[1]);
  if (reply.cursor !== '0') return { cursor: `${stateIndex}:${reply.cursor}`, added };
  return { cursor: stateIndex + 1 < TaskState.options.length ? `${stateIndex + 1}:0` : '', added };
}

/**
 * True for the one caller, among every instance sharing this Redis, that should run a repair pass now: none was
 * claimed in the last `everyMs` (the claim is a key that expires after it), so N instances make one pass per period.
 */
export async function claimIndexRepair(o: Pick<RedisParts, 'client' | 'keys'>, everyMs: number): Promise<boolean> {
  const reply = await o.client.set(o.keys.workspaceTasksRepair, String(Date.now()), { condition: 'NX', expiration: { type: 'PX', value: everyMs } });
  return reply === 'OK';
}

/** Builds the workspace task sets unless the marker says they are built; returns how many entries it added. */
export async function ensureWorkspaceIndex(o: Parts): Promise<number> {
  if ((await o.client.exists(o.keys.workspaceTasksBuilt)) === 1) return 0;
  let added = 0;
  let cursor = '';
  do {
    const step = await indexStep(o, cursor);
    added += step.added;
    cursor = step.cursor;
  } while (cursor !== '');
  await o.client.set(o.keys.workspaceTasksBuilt, String(Date.now()));
  return added;
}
