// The Redis listing index: each task key in four sorted sets (its workspace; + context; + state; + both; names in
// runtime/redis/keys.ts), scored by minus its status time, so a page is one rank range (O(log n + page)) and its
// total a ZCARD or ZCOUNT. The task write script moves its entries, the sweep and repair scripts use LIST_KEYS_LUA.
import { Task, type TaskState } from '../../../protocol/model.js';
import { taskListStateTails, type RedisKeys } from '../../redis/keys.js';
import { matchesListQuery, statusTime } from '../list-page.js';
import type { ListPage, ListPageQuery } from '../types.js';
import { listed } from '../validate.js';
import type { RedisParts } from './client.js';
import { decode } from './values.js';

/** The sorted-set score of a status time: ascending scores are newest first, and equal scores order by member. */
export const listScore = (time: number): string => String(-time || 0);

/** A task's four listing sets, in the order the write script takes them (workspace, context, state, both). */
export const listKeysOf = (k: RedisKeys, t: Pick<Task, 'workspaceId' | 'contextId'>, state: TaskState): string[] => [
  k.taskList({ workspaceId: t.workspaceId }),
  k.taskList({ workspaceId: t.workspaceId, contextId: t.contextId }),
  k.taskList({ workspaceId: t.workspaceId, state }),
  k.taskList({ workspaceId: t.workspaceId, contextId: t.contextId, state }),
];

/**
 * What a write script needs to name the two state-bearing listing sets of a state it leaves: the sets' prefix, what
 * follows the state in each name, and where the state's name starts (1-based) in a state set's name.
 */
export const listTails = (k: RedisKeys, t: Pick<Task, 'workspaceId' | 'contextId'>): string[] => {
  const tails = taskListStateTails(t.workspaceId, t.contextId);
  return [k.idPrefix.taskList, tails.state, tails.both, String(STATE_AT(k))];
};

const STATE_AT = (k: RedisKeys): number => k.tasksInState('working').length - 'working'.length + 1;

/**
 * Lua: `listKeys(prefix, ws, ctx, state)` returns the four set names keys.ts gives (string.len counts bytes, as
 * Buffer.byteLength does), and `unlist(prefix, member, packed)` takes a task key out of the sets its packed record
 * names (only the workspace's when the record is gone or does not unpack: the listing skips what is left).
 */
export const LIST_KEYS_LUA = `
local function listKeys(p, ws, ctx, state)
  local wc = string.len(ws) .. ':' .. ws .. ctx
  return { p .. 'w:' .. ws, p .. 'c:' .. wc, p .. 's:' .. state .. ':' .. ws, p .. 'cs:' .. state .. ':' .. wc }
end
local function unlist(p, member, packed)
  local slash = string.find(member, '/', 1, true)
  if not slash then return end
  local ws = string.sub(member, 1, slash - 1)
  redis.call('ZREM', p .. 'w:' .. ws, member)
  if not packed then return end
  local ok, rec = pcall(cmsgpack.unpack, packed)
  if not ok or type(rec) ~= 'table' or type(rec.contextId) ~= 'string' or type(rec.status) ~= 'table' or type(rec.status.state) ~= 'string' then return end
  local keys = listKeys(p, ws, rec.contextId, rec.status.state)
  for i = 2, 4 do redis.call('ZREM', keys[i], member) end
end
`;

/** One listing page: the total and the rank range in one round trip, then the records in one MGET. */
export async function listPage(o: Pick<RedisParts, 'client' | 'bin' | 'keys' | 'onCorrupt'>, q: ListPageQuery): Promise<ListPage> {
  const { client, bin, keys: k, onCorrupt } = o;
  const set = k.taskList({
    workspaceId: q.workspaceId,
    ...(q.contextId !== undefined && { contextId: q.contextId }),
    ...(q.state !== undefined && { state: q.state }),
  });
  const last = q.offset + q.limit - 1;
  // the time bound is a score bound: the matching tasks are the set's first ZCOUNT ranks, so the page is still a rank
  // range, cut at the bound by its scores
  const [total, ranged] = await Promise.all([
    q.since === undefined ? client.zCard(set) : client.zCount(set, '-inf', listScore(q.since)),
    q.limit > 0 ? client.zRangeWithScores(set, q.offset, last) : Promise.resolve([]),
  ]);
  const bound = q.since === undefined ? undefined : Number(listScore(q.since));
  const members = ranged.filter((m) => bound === undefined || m.score <= bound).map((m) => m.value);
  if (members.length === 0) return { tasks: [], total };
  const values = await bin.mGet(members.map((m) => k.task(m)));
  const tasks: Task[] = [];
  values.forEach((bytes, i) => {
    // a member whose record is gone was swept by an instance of an older version (which leaves its entries)
    if (bytes === null) return;
    const task = listed(onCorrupt, () => decode({ schema: Task, bytes, record: 'task', id: members[i]! }));
    if (task && matchesListQuery(task, q)) tasks.push(task);
  });
  return { tasks, total };
}

/** What the repair step writes of one task: its member, the rev it was read at, its score, context and state. */
export function repairArgs(member: string, rev: string | null, task: Task): string[] {
  return [member, rev ?? '', listScore(statusTime(task)), task.contextId, task.status.state];
}
