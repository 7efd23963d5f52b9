// The per-workspace task sets' and listing sets' repair: adds to its workspace's set every stored task missing from
// it, and puts in its listing sets (task-list.ts) every task missing from them or listed at another time or state, a
// bounded step at a time. Two callers: the one-time build on store open, for data written before the sets existed, and the
// periodic repair pass (runtime/index-repair.ts), for tasks written after that by an instance still running the code
// from before the sets (a rolling upgrade: its task write script adds to the state sets only).
//
// The build runs on store open until it has once completed (the `workspaceTasksBuilt` marker). Both are safe to run
// twice at once (two instances opening together, one that died half way, a pass overlapping the build): they only
// add members, and SADD of a member already there changes nothing. Safe while tasks are written: every task write of
// this code adds its own key in its write script, so a task created, or moved from a state set not yet scanned to one
// already scanned, is indexed by that write (an older instance's such task is found by the next pass). Safe while the
// sweep runs: a member is added only by a script that finds the task's record, atomically, so a task swept between
// the scan and the add leaves no stale member. A task's listing entries are written only if its rev is still the one
// read with its record, so a write between the read and the script (which lists the task itself) is never undone.
// A step reads the state sets, never the workspace sets or the task write path: its cost is one SSCAN step, an MGET
// and a decode of the step's records, and an EXISTS, GET, SADD and four ZADDs per task key scanned.
import { Task, TaskState } from '../../../protocol/model.js';
import { StoreCorruptError } from '../errors.js';
import type { RedisParts } from './client.js';
import { script } from './scripts.js';
import { LIST_KEYS_LUA, repairArgs } from './task-list.js';
import { decode } from './values.js';

/** Task keys per SSCAN step and per indexing script. */
const CHUNK = 500;

/**
 * KEYS: triples of (task record, its rev, its workspace's task set). ARGV: the listing sets' prefix, then per task key:
 * the key, the rev read with its record ('' none; '-' a record that does not decode: not listed), its listing score,
 * context, state and agent (its placement and agent counts are set from the last two). Adds each task key to its workspace's set if its record is still stored, and to its listing sets
 * if its rev is unchanged, taking it out of the other states' ones when it was not in its own (and out of the
 * context-and-state sets an older build kept); returns how many tasks
 * it added or moved anything for.
 */
const indexTasks = script({
  numberOfKeys: 3 * CHUNK, // at most: three per task key
  lua: `${LIST_KEYS_LUA}
local states = { ${TaskState.options.map((s) => `'${s}'`).join(', ')} }
local p = ARGV[1]
local n = 0
for i = 1, #KEYS / 3 do
  local a = 2 + (i - 1) * 6
  local member, score, ctx, state, agent = ARGV[a], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5]
  if redis.call('EXISTS', KEYS[3 * i - 2]) == 1 then
    local changed = redis.call('SADD', KEYS[3 * i], member)
    local rev = redis.call('GET', KEYS[3 * i - 1]) or ''
    if ARGV[a + 1] ~= '-' and rev == ARGV[a + 1] then
      local ws = string.sub(member, 1, string.find(member, '/', 1, true) - 1)
      local keys = listKeys(p, ws, ctx, state)
      changed = changed + redis.call('ZADD', keys[1], 'CH', score, member) + redis.call('ZADD', keys[2], 'CH', score, member)
      changed = changed + place(p .. 'o:' .. ws, p .. 'n:' .. ws, member, state .. ':' .. agent)
      if redis.call('ZADD', keys[3], 'CH', score, member) == 1 then
        changed = changed + 1
        for _, s in ipairs(states) do
          if s ~= state then
            local other = listKeys(p, ws, ctx, s)
            redis.call('ZREM', other[3], member)
            redis.call('ZREM', other[4], member)
          end
        end
      end
    end
    if changed > 0 then n = n + 1 end
  end
end
return n
`,
});

type Parts = Pick<RedisParts, 'client' | 'bin' | 'keys' | 'run'>;

/** Where a pass stands: `<state index>:<SSCAN cursor of that state's set>`; '' before the first step and after the last. */
const STEP_CURSOR = /^(\d+):(\d+)$/;

/**
 * One bounded step of a pass over every state set (each task key sits in one): one SSCAN step of one set, its task
 * keys indexed. Start with cursor ''; pass back each cursor returned; '' again when the pass is done.
 */
export async function indexStep(o: Parts, cursor: string): Promise<{ cursor: string; added: number }> {
  const { client, bin, keys: k, run } = o;
  const at = cursor === '' ? ['', '0', '0'] : STEP_CURSOR.exec(cursor);
  const state = at ? TaskState.options[Number(at[1])] : undefined;
  if (!at || state === undefined) throw new Error(`workspace index step: not a cursor of this pass: ${JSON.stringify(cursor)}`);
  const reply = await client.sScan(k.tasksInState(state), at[2]!, { COUNT: CHUNK });
  let added = 0;
  for (let i = 0; i < reply.members.length; i += CHUNK) {
    // a key without '/' is no task key of this code base: nothing to index it under
    const ids = reply.members.slice(i, i + CHUNK).filter((id) => id.includes('/'));
    if (ids.length === 0) continue;
    // record and rev in one MGET: one moment's pair, which the script checks is still current
    const read = await bin.mGet([...ids.map((id) => k.task(id)), ...ids.map((id) => k.taskRev(id))]);
    const args = [k.idPrefix.taskList];
    ids.forEach((id, j) => {
      const bytes = read[j];
      const rev = read[ids.length + j]?.toString() ?? null;
      const task = bytes ? readable(bytes, id) : undefined;
      args.push(...(task ? repairArgs(id, rev, task) : [id, '-', '0', '', '', '']));
    });
    const keys = ids.flatMap((id) => [k.task(id), k.taskRev(id), k.workspaceTasks(id.slice(0, id.indexOf('/')))]);
    added += Number(await run({ script: indexTasks, keys, args }));
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

/** A record that does not decode is still a task key of its workspace, but says nothing of where it is listed. */
function readable(bytes: Buffer, id: string): Task | undefined {
  try {
    return decode({ schema: Task, bytes, record: 'task', id });
  } catch (e) {
    if (e instanceof StoreCorruptError) return undefined;
    throw e;
  }
}

/**
 * Builds the workspace task sets and the listing sets unless the markers say both are built (a store of the build
 * before the listing sets has the first only); returns how many tasks it added entries for.
 */
export async function ensureWorkspaceIndex(o: Parts): Promise<number> {
  // the agent counts' marker too: a store the build before wrote holds listing sets without them
  const built = await o.client.exists([o.keys.workspaceTasksBuilt, o.keys.taskListBuilt, o.keys.taskListAgentsBuilt]);
  if (built === 3) return 0;
  let added = 0;
  let cursor = '';
  do {
    const step = await indexStep(o, cursor);
    added += step.added;
    cursor = step.cursor;
  } while (cursor !== '');
  await o.client.set(o.keys.workspaceTasksBuilt, String(Date.now()));
  await o.client.set(o.keys.taskListBuilt, String(Date.now()));
  await o.client.set(o.keys.taskListAgentsBuilt, String(Date.now()));
  return added;
}
