// The Redis listing index: each task key in three sorted sets (its workspace; + context; + state; names in
// runtime/redis/keys.ts), scored by minus its status time, so a page is one score range from a keyset cursor
// (O(log n + page)) and its total a ZCARD or ZCOUNT; a context and a state together read the context's set and keep
// the members the state's set holds (a context holds few tasks). The task write script moves its entries, the sweep
// and repair scripts use LIST_KEYS_LUA.
import { Task, type TaskState } from '../../../protocol/model.js';
import { taskListStateTails, type RedisKeys } from '../../redis/keys.js';
import { agentListed, LIST_WALK, matchesListQuery, statusTime } from '../list-page.js';
import type { ListAgents, ListCursor, ListPage, ListPageQuery } from '../types.js';
import { taskKey } from '../types.js';
import { listed } from '../validate.js';
import type { RedisParts } from './client.js';
import { decode } from './values.js';

/** The sorted-set score of a status time: ascending scores are newest first, and equal scores order by member. */
export const listScore = (time: number): string => String(-time || 0);

/** A task's three listing sets, in the order the write script takes them (workspace, context, state). */
export const listKeysOf = (k: RedisKeys, t: Pick<Task, 'workspaceId' | 'contextId'>, state: TaskState): string[] => [
  k.taskList({ workspaceId: t.workspaceId }),
  k.taskList({ workspaceId: t.workspaceId, contextId: t.contextId }),
  k.taskList({ workspaceId: t.workspaceId, state }),
];

/**
 * What a write script needs to name the state listing set of a state it leaves: the sets' prefix, what follows the
 * state in its name, and where the state's name starts (1-based) in a state set's name.
 */
export const listTails = (k: RedisKeys, t: Pick<Task, 'workspaceId' | 'contextId'>): string[] => {
  const tails = taskListStateTails(t.workspaceId, t.contextId);
  return [k.idPrefix.taskList, tails.state, String(STATE_AT(k))];
};

const STATE_AT = (k: RedisKeys): number => k.tasksInState('working').length - 'working'.length + 1;

/**
 * Lua: `listKeys(prefix, ws, ctx, state)` returns the three set names keys.ts gives (string.len counts bytes, as
 * Buffer.byteLength does), and `unlist(prefix, member, packed)` takes a task key out of the sets its packed record
 * names (only the workspace's when the record is gone or does not unpack: the listing skips what is left). It also
 * takes it out of the context-and-state set the four-set layout kept, so a store written by that build loses them too.
 * `place(placed, counts, member, now)` records what a task is counted under (`<state>:<agent>`, false: nothing) in
 * its workspace's placement hash and moves its counts in the agent counts hash (keys.ts) when that changes: a write
 * that keeps state and agent reads one field and writes nothing (returns 1 when it moved anything).
 */
export const LIST_KEYS_LUA = `
local function listKeys(p, ws, ctx, state)
  local wc = string.len(ws) .. ':' .. ws .. ctx
  return { p .. 'w:' .. ws, p .. 'c:' .. wc, p .. 's:' .. state .. ':' .. ws, p .. 'cs:' .. state .. ':' .. wc }
end
local function count(counts, field, by)
  if redis.call('HINCRBY', counts, field, by) <= 0 then redis.call('HDEL', counts, field) end
end
local function place(placed, counts, member, now)
  local was = redis.call('HGET', placed, member)
  if was == now then return 0 end
  if was then
    local colon = string.find(was, ':', 1, true)
    if colon then
      count(counts, 'a:' .. was, -1)
      count(counts, 'a::' .. string.sub(was, colon + 1), -1)
    end
  end
  if now then
    local colon = string.find(now, ':', 1, true)
    count(counts, 'a:' .. now, 1)
    count(counts, 'a::' .. string.sub(now, colon + 1), 1)
    redis.call('HSET', placed, member, now)
  else
    redis.call('HDEL', placed, member)
  end
  return 1
end
local function unlist(p, member, packed)
  local slash = string.find(member, '/', 1, true)
  if not slash then return end
  local ws = string.sub(member, 1, slash - 1)
  redis.call('ZREM', p .. 'w:' .. ws, member)
  place(p .. 'o:' .. ws, p .. 'n:' .. ws, member, false)
  if not packed then return end
  local ok, rec = pcall(cmsgpack.unpack, packed)
  if not ok or type(rec) ~= 'table' or type(rec.contextId) ~= 'string' or type(rec.status) ~= 'table' or type(rec.status.state) ~= 'string' then return end
  local keys = listKeys(p, ws, rec.contextId, rec.status.state)
  for i = 2, 4 do redis.call('ZREM', keys[i], member) end
end
`;

/** Members ordered as Redis orders equal scores: by their bytes. */
const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

type Scored = { value: string; score: number };

/**
 * Up to `count` members of `set` in listing order after `after`, down to the score `bound`: the cursor's own
 * millisecond (its ties, past its member) and then the scores below it, in one round trip.
 */
async function rangeAfter(
  client: RedisParts['client'],
  o: { set: string; after?: string | undefined; score?: string | undefined; bound: string; count: number },
) {
  if (o.after === undefined || o.score === undefined) {
    return client.zRangeWithScores(o.set, '-inf', o.bound, { BY: 'SCORE', LIMIT: { offset: 0, count: o.count } });
  }
  const after = o.after;
  const [ties, rest] = await Promise.all([
    client.zRangeWithScores(o.set, o.score, o.score, { BY: 'SCORE' }),
    client.zRangeWithScores(o.set, `(${o.score}`, o.bound, { BY: 'SCORE', LIMIT: { offset: 0, count: o.count } }),
  ]);
  const bound = o.bound === '+inf' ? Number.POSITIVE_INFINITY : Number(o.bound);
  return [...ties.filter((m) => m.score <= bound && byteOrder(m.value, after) > 0), ...rest].slice(0, o.count);
}

/** A context and a state: the context's set within the bound, kept where the state's set holds the member. */
async function contextInState(client: RedisParts['client'], o: { context: string; state: string; bound: string }): Promise<Scored[]> {
  const inContext = await client.zRangeWithScores(o.context, '-inf', o.bound, { BY: 'SCORE' });
  if (inContext.length === 0) return [];
  const inState = await client.zmScore(
    o.state,
    inContext.map((m) => m.value),
  );
  return inContext.filter((_, i) => inState[i] !== null && inState[i] !== undefined);
}

/** Whether a placement (`<state>:<agent>`, null: none) is one the listing keeps: its agent's, and its state when asked. */
function placedKeeps(placed: string | null | undefined, agents: ListAgents, state: string | undefined): boolean {
  if (typeof placed !== 'string') return false;
  const colon = placed.indexOf(':');
  if (colon < 0 || (state !== undefined && placed.slice(0, colon) !== state)) return false;
  return agentListed(agents, placed.slice(colon + 1));
}

type Parts = Pick<RedisParts, 'client' | 'bin' | 'keys' | 'onCorrupt'>;

/** A listing's total from the agent counts hash: a state's or all, of the agents listed or of all but those. */
async function agentTotal(o: Parts, q: ListPageQuery & { agents: ListAgents }, set: string): Promise<number> {
  const s = q.state ?? '';
  const named = [...new Set('only' in q.agents ? q.agents.only : q.agents.except)];
  const [all, counts] = await Promise.all([
    'only' in q.agents ? Promise.resolve(0) : o.client.zCard(set),
    named.length === 0
      ? Promise.resolve([])
      : o.client.hmGet(
          o.keys.taskListAgentCounts(q.workspaceId),
          named.map((a) => `a:${s}:${a}`),
        ),
  ]);
  const sum = counts.reduce((n: number, v) => n + (v === null || v === undefined ? 0 : Number(v) || 0), 0);
  return 'only' in q.agents ? sum : Math.max(0, all - sum);
}

/**
 * A page limited to agents, outside a context: the set walked from the cursor in slices, each slice's placements read
 * in one HMGET (no task record read for an entry left out), until the page and one more are found or LIST_WALK
 * entries were stepped over (a short page, its token after the last entry stepped over).
 */
async function agentsWalk(o: Parts, q: ListPageQuery & { agents: ListAgents }, set: string, bound: string): Promise<{ kept: Scored[]; next?: Scored }> {
  const ws = q.workspaceId;
  const placed = o.keys.taskListPlaced(ws);
  const kept: Scored[] = [];
  let from: Scored | undefined = q.after && { value: taskKey(ws, q.after.id), score: -q.after.time || 0 };
  let last = from;
  let walked = 0;
  const slice = Math.min(LIST_WALK, Math.max(q.limit + 1, 100));
  for (;;) {
    const ranged = await rangeAfter(o.client, {
      set,
      after: from?.value,
      score: from && String(from.score),
      bound,
      count: Math.min(slice, LIST_WALK - walked + 1),
    });
    if (ranged.length === 0) return { kept };
    const states = await o.client.hmGet(
      placed,
      ranged.map((m) => m.value),
    );
    for (let i = 0; i < ranged.length; i++) {
      const m = ranged[i]!;
      if (walked === LIST_WALK) return { kept, ...(last && { next: last }) };
      walked++;
      if (!placedKeeps(states[i], q.agents, undefined)) {
        if (kept.length < q.limit) last = m;
        continue;
      }
      if (kept.length === q.limit) return { kept, ...(last && { next: last }) };
      kept.push(m);
      last = m;
    }
    from = ranged[ranged.length - 1];
  }
}

/** One listing page: the total and the range after the cursor in one round trip, then the records in one MGET. */
export async function listPage(o: Parts, q: ListPageQuery): Promise<ListPage> {
  const { client, keys: k } = o;
  const ws = q.workspaceId;
  const bound = q.since === undefined ? '+inf' : listScore(q.since);
  const afterMember = q.after && taskKey(ws, q.after.id);
  const afterScore = q.after && listScore(q.after.time);
  let total: number;
  let ranged: Scored[];
  if (q.agents !== undefined && (q.contextId !== undefined || q.since !== undefined)) {
    // a context holds few tasks; a time bound with agents is a walk of the range's placements (no task read)
    const set = k.taskList({ workspaceId: ws, ...(q.contextId !== undefined ? { contextId: q.contextId } : q.state !== undefined && { state: q.state }) });
    const inRange = await client.zRangeWithScores(set, '-inf', bound, { BY: 'SCORE' });
    const placed: Array<string | null> = [];
    for (let i = 0; i < inRange.length; i += 1_000) {
      placed.push(
        ...(await client.hmGet(
          k.taskListPlaced(ws),
          inRange.slice(i, i + 1_000).map((m) => m.value),
        )),
      );
    }
    const agents = q.agents;
    const all = inRange.filter((_, i) => placedKeeps(placed[i], agents, q.contextId !== undefined ? q.state : undefined));
    total = all.length;
    const s = afterScore === undefined ? undefined : Number(afterScore);
    const from = afterMember === undefined ? 0 : all.findIndex((m) => m.score > s! || (m.score === s && byteOrder(m.value, afterMember) > 0));
    ranged = from < 0 ? [] : all.slice(from, from + q.limit + 1);
  } else if (q.agents !== undefined) {
    const set = k.taskList({ workspaceId: ws, ...(q.state !== undefined && { state: q.state }) });
    const agents = q.agents;
    const [t, walk] = await Promise.all([
      agentTotal(o, { ...q, agents }, set),
      q.limit > 0 ? agentsWalk(o, { ...q, agents }, set, bound) : { kept: [], next: undefined },
    ]);
    total = t;
    return finish(o, q, { total, onPage: walk.kept, next: walk.next });
  } else if (q.contextId !== undefined && q.state !== undefined) {
    const all = await contextInState(client, {
      context: k.taskList({ workspaceId: ws, contextId: q.contextId }),
      state: k.taskList({ workspaceId: ws, state: q.state }),
      bound,
    });
    total = all.length;
    const s = afterScore === undefined ? undefined : Number(afterScore);
    const from = afterMember === undefined ? 0 : all.findIndex((m) => m.score > s! || (m.score === s && byteOrder(m.value, afterMember) > 0));
    ranged = from < 0 ? [] : all.slice(from, from + q.limit + 1);
  } else {
    const set = k.taskList({ workspaceId: ws, ...(q.contextId !== undefined && { contextId: q.contextId }), ...(q.state !== undefined && { state: q.state }) });
    // the time bound is a score bound: the matching tasks are the set's scores up to it
    [total, ranged] = await Promise.all([
      q.since === undefined ? client.zCard(set) : client.zCount(set, '-inf', bound),
      q.limit > 0 ? rangeAfter(client, { set, after: afterMember, score: afterScore, bound, count: q.limit + 1 }) : Promise.resolve([]),
    ]);
  }
  const onPage = ranged.slice(0, q.limit);
  const lastOnPage = onPage[onPage.length - 1];
  return finish(o, q, { total, onPage, next: ranged.length > q.limit ? lastOnPage : undefined });
}

/** The page's records in one MGET, each checked against the query; the cursor of the place the next page starts after. */
async function finish(o: Parts, q: ListPageQuery, p: { total: number; onPage: Scored[]; next: Scored | undefined }): Promise<ListPage> {
  const { bin, keys: k, onCorrupt } = o;
  const { total, onPage } = p;
  const ws = q.workspaceId;
  const next: ListCursor | undefined = p.next && { time: -Number(p.next.score) || 0, id: p.next.value.slice(ws.length + 1) };
  const members = onPage.map((m) => m.value);
  if (members.length === 0) return { tasks: [], total, ...(next && { next }) };
  const values = await bin.mGet(members.map((m) => k.task(m)));
  const tasks: Task[] = [];
  values.forEach((bytes, i) => {
    // a member whose record is gone was swept by an instance of an older version (which leaves its entries)
    if (bytes === null) return;
    const task = listed(onCorrupt, () => decode({ schema: Task, bytes, record: 'task', id: members[i]! }));
    if (task && matchesListQuery(task, q)) tasks.push(task);
  });
  return { tasks, total, ...(next && { next }) };
}

/** What the repair step writes of one task: its member, the rev it was read at, its score, context, state and agent. */
export function repairArgs(member: string, rev: string | null, task: Task): string[] {
  return [member, rev ?? '', listScore(statusTime(task)), task.contextId, task.status.state, task.agentId];
}
