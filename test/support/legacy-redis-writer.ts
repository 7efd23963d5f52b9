// Test support: a task write as the gateway did it before the per-workspace task sets existed (an older instance
// still running in a rolling upgrade): its script, copied as it was (42544c9^), writes the record, rev, state sets,
// ended index and events, and no workspace set entry.
import type { Task } from '../../src/protocol/model.js';
import { TaskState, TERMINAL_STATES } from '../../src/protocol/model.js';
import { redisKeys } from '../../src/runtime/redis/keys.js';
import { packr } from '../../src/runtime/store/redis/values.js';

const WRITE_TASK_10 = `
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
redis.call('SET', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], ARGV[4])
for i = 6, #KEYS do redis.call('SREM', KEYS[i], ARGV[6]) end
redis.call('SADD', KEYS[5], ARGV[6])
if ARGV[5] ~= '' then redis.call('ZADD', KEYS[4], ARGV[5], ARGV[6]) end
for i = 8, #ARGV, 2 do redis.call('ZADD', KEYS[3], ARGV[i], ARGV[i + 1]) end
if ARGV[7] ~= '' then redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[7]) end
return 1
`;

/** What of a node-redis client the write needs. */
interface EvalClient {
  eval(script: string, o: { keys: string[]; arguments: Array<string | Buffer> }): Promise<unknown>;
}

/** Creates `task` under `prefix` as the older code did; true when written (no task of its key was stored). */
export async function createTaskAsOldInstance(o: { client: EvalClient; prefix: string; task: Task }): Promise<boolean> {
  const k = redisKeys(o.prefix);
  const { task } = o;
  const state = task.status.state;
  const key = `${task.workspaceId}/${task.id}`;
  const terminal = TERMINAL_STATES.has(state);
  const reply = await o.client.eval(WRITE_TASK_10, {
    keys: [
      k.task(key),
      k.taskRev(key),
      k.events(key),
      k.tasksEnded,
      k.tasksInState(state),
      ...TaskState.options.filter((s) => s !== state).map((s) => k.tasksInState(s)),
    ],
    arguments: ['create', '', packr.pack(task), `${task.seq ?? 0}:${terminal ? 'end' : 'open'}`, terminal ? String(task.updatedAt) : '', key, ''],
  });
  return reply === 1;
}
