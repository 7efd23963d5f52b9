// The Redis tasks: each write is one Lua script (rev check, record, workspace, state and listing indexes, ended index,
// events, push jobs); one sweep script. A workspace's listing reads its own set, never the other workspaces' tasks.
import { TaskState, Task, TERMINAL_STATES } from '../../../protocol/model.js';
import type { TaskPutOptions, TaskStore } from '../types.js';
import { taskKey } from '../types.js';
import type { RedisParts } from './client.js';
import { ENQUEUE_JOB_LUA, pushJobArgs } from './push-job-scripts.js';
import { script } from './scripts.js';
import { claimIndexRepair, indexStep } from './workspace-index.js';
import { decode, packr } from './values.js';
import { listed } from '../validate.js';
import { TaskHasPushConfigsError } from '../errors.js';
import { statusTime } from '../list-page.js';
import { LIST_KEYS_LUA, listKeysOf, listPage, listScore, listTails } from './task-list.js';

/** The states a task write leaves: one state set each, and two listing sets when the task was in it. */
const OTHERS = TaskState.options.length - 1;
/** Where a write's events start in its ARGV (after the fixed ones). */
const EVENTS_AT = 17;
/**
 * KEYS: task, taskRev, events, tasksEnded, the workspace's task set, the new state's set, pushDue, the task's push
 * configs, the other states' sets (OTHERS), then the task's three listing sets for its new state (task-list.ts), its
 * workspace's placement and agent counts hashes.
 * ARGV: mode (create|put), expected seq ('' for none), packed task, new rev, ended-at score ('' unless terminal),
 * task id, events trim cut ('' for none), push queue prefix, push job prefix, event count, '1' when the writer read
 * no push configs ('' otherwise), listing score, the listing sets' prefix, what follows a state in the task's state
 * listing set, the length of the state sets' prefix (a state set's name ends in its
 * state), what the task is counted under (`<state>:<agent>`), then per event: seq, packed event, then per push job:
 * queue, id, seq, due, packed job.
 * The one task write: check, then the push jobs the change causes, record, workspace, state and listing index, ended
 * index and events in one atomic step (a crash of the gateway keeps all or none; the jobs go first because Redis keeps
 * what a script wrote before an error). 1 written, 0 refused, 2 refused because the task holds push configs the writer
 * did not read. Every write (a put may be the first write of a task) adds to the workspace's set: SADD of a member it
 * holds is a no-op, and keeps the index whole without a read. The state set the task leaves names the listing set it
 * leaves (built here from the state's name: only a state change needs it, so no write sends it); ZADD of a member
 * moves it to its new status time (of one it holds at that score, changes nothing).
 * A task stored before revs existed has none: it is admitted as if open (create still sees the record).
 */
const writeTask = script({
  numberOfKeys: 13 + OTHERS,
  lua: `${ENQUEUE_JOB_LUA}
${LIST_KEYS_LUA}
if ARGV[1] == 'create' then
  if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
else
  local rev = redis.call('GET', KEYS[2])
  if rev then
    local seq, kind = string.match(rev, '^(%d+):(%a+)$')
    if kind == 'end' then return 0 end
    if ARGV[2] ~= '' and seq ~= ARGV[2] then return 0 end
  elseif ARGV[2] ~= '' and redis.call('EXISTS', KEYS[1]) == 0 then
    return 0
  end
end
if ARGV[11] == '1' and redis.call('EXISTS', KEYS[8]) == 1 then return 2 end
local jobsFrom = ${EVENTS_AT} + 2 * tonumber(ARGV[10])
for i = jobsFrom, #ARGV, 5 do
  enqueueJob(KEYS[7], ARGV[8], ARGV[9], ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4])
end
redis.call('SET', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], ARGV[4])
redis.call('SADD', KEYS[5], ARGV[6])
for i = 9, ${8 + OTHERS} do
  if redis.call('SREM', KEYS[i], ARGV[6]) == 1 then
    redis.call('ZREM', ARGV[13] .. 's:' .. string.sub(KEYS[i], tonumber(ARGV[15])) .. ARGV[14], ARGV[6])
  end
end
local entered = redis.call('SADD', KEYS[6], ARGV[6])
for i = ${9 + OTHERS}, ${11 + OTHERS} do redis.call('ZADD', KEYS[i], ARGV[12], ARGV[6]) end
-- counted anew only when the task enters its state (created, or moved); one that kept it (and its agent) is counted
-- already, or, written by an older build, is counted by the repair pass
if entered == 1 then place(KEYS[${12 + OTHERS}], KEYS[${13 + OTHERS}], ARGV[6], ARGV[16]) end
if ARGV[5] ~= '' then redis.call('ZADD', KEYS[4], ARGV[5], ARGV[6]) end
for i = ${EVENTS_AT}, jobsFrom - 1, 2 do redis.call('ZADD', KEYS[3], ARGV[i], ARGV[i + 1]) end
if ARGV[7] ~= '' then redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[7]) end
return 1
`,
});

/**
 * KEYS: tasksEnded, then every state's set. ARGV: ended-by score, limit, then the key prefixes of task, taskRev,
 * events, push configs, workspace task sets and listing sets. Deletes the terminal tasks that ended by then, with
 * everything kept under their id, their workspace set's entry and their listing entries (the sets their record
 * names, read before it goes); returns their ids. A task key is `<workspace>/<id>` and a workspace
 * id has no '/', but an id may: the entry is removed from the set of each prefix ending before a '/' (SREM of a
 * member a set lacks does nothing), so no slash anywhere can leave it behind.
 */
const sweepTasks7 = script({
  numberOfKeys: 7,
  lua: `${LIST_KEYS_LUA}
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(gone) do
  unlist(ARGV[8], id, redis.call('GET', ARGV[3] .. id))
  redis.call('DEL', ARGV[3] .. id, ARGV[4] .. id, ARGV[5] .. id, ARGV[6] .. id)
  local from = 1
  while true do
    local slash = string.find(id, '/', from, true)
    if not slash then break end
    redis.call('SREM', ARGV[7] .. string.sub(id, 1, slash - 1), id)
    from = slash + 1
  end
  for i = 2, #KEYS do redis.call('SREM', KEYS[i], id) end
  redis.call('ZREM', KEYS[1], id)
end
return gone
`,
});

/** Per state, the others, in TaskState order: the state sets a write leaves, and the names its script builds listing sets from. */
const OTHER_STATES = Object.fromEntries(TaskState.options.map((s) => [s, TaskState.options.filter((o) => o !== s)])) as Record<TaskState, TaskState[]>;

export function redisTaskStore(o: RedisParts): TaskStore {
  const { client, bin, keys: k, run, onCorrupt } = o;
  const decodeTask = (bytes: Buffer, id: string) => decode({ schema: Task, bytes, record: 'task', id });

  /** The one task write path: check and write in one script (see writeTask). */
  async function write(task: Task, w: TaskPutOptions & { create: boolean }): Promise<boolean> {
    const state = task.status.state;
    const key = taskKey(task.workspaceId, task.id);
    const terminal = TERMINAL_STATES.has(state);
    const others = OTHER_STATES[state];
    const list = w.events ?? [];
    const last = list.length > 0 ? list[list.length - 1]!.seq : 0;
    const cut = w.retainEvents !== undefined && last - w.retainEvents > 0 ? String(last - w.retainEvents) : '';
    const args: Array<string | Buffer> = [
      w.create ? 'create' : 'put',
      w.expectSeq === undefined ? '' : String(w.expectSeq),
      packr.pack(task),
      `${task.seq ?? 0}:${terminal ? 'end' : 'open'}`,
      terminal ? String(task.updatedAt) : '',
      key,
      cut,
      k.idPrefix.pushQueue,
      k.idPrefix.pushJob,
      String(list.length),
      w.withoutPushConfigs ? '1' : '',
      listScore(statusTime(task)),
      ...listTails(k, task),
      `${state}:${task.agentId}`,
    ];
    for (const ev of list) args.push(String(ev.seq), packr.pack(ev));
    if (w.pushJobs) args.push(...pushJobArgs(w.pushJobs));
    const reply = await run({
      script: writeTask,
      keys: [
        k.task(key),
        k.taskRev(key),
        k.events(key),
        k.tasksEnded,
        k.workspaceTasks(task.workspaceId),
        k.tasksInState(state),
        k.pushDue,
        k.pushConfigs(key),
        ...others.map((s) => k.tasksInState(s)),
        ...listKeysOf(k, task, state),
        k.taskListPlaced(task.workspaceId),
        k.taskListAgentCounts(task.workspaceId),
      ],
      args,
    });
    if (reply === 2) throw new TaskHasPushConfigsError(key);
    return reply === 1;
  }

  return {
    create(task, w) {
      return write(task, { ...w, create: true });
    },
    put(task, w) {
      return write(task, { ...w, create: false });
    },
    async get(workspaceId, id) {
      const key = taskKey(workspaceId, id);
      const bytes = await bin.get(k.task(key));
      return bytes === null ? undefined : decodeTask(bytes, key);
    },
    async listByState(states) {
      if (states.length === 0) return [];
      const ids = await client.sUnion(states.map((s) => k.tasksInState(s)));
      if (ids.length === 0) return [];
      const values = await bin.mGet(ids.map((id) => k.task(id)));
      const out: Task[] = [];
      values.forEach((bytes, i) => {
        const task = bytes === null ? undefined : listed(onCorrupt, () => decodeTask(bytes, ids[i]!));
        if (task) out.push(task);
      });
      return out;
    },
    listPage: (q) => listPage(o, q),
    async sweep({ endedBy, limit }) {
      if (limit <= 0) return [];
      const reply = await run({
        script: sweepTasks7,
        keys: [k.tasksEnded, ...TaskState.options.map((s) => k.tasksInState(s))],
        args: [
          String(endedBy),
          String(limit),
          k.idPrefix.task,
          k.idPrefix.taskRev,
          k.idPrefix.events,
          k.idPrefix.pushConfigs,
          k.idPrefix.workspaceTasks,
          k.idPrefix.taskList,
        ],
      });
      return (Array.isArray(reply) ? reply : []).map((id) => String(id));
    },
    claimIndexRepair: (everyMs) => claimIndexRepair(o, everyMs),
    repairIndexStep: (cursor) => indexStep(o, cursor),
  };
}
