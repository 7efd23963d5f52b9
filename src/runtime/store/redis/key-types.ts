// The Redis store's fixed keys and the type each holds, checked once on open: a key of another type (another program
// on the same prefix, a hand edit) stops the open naming the key and the fix, where it would otherwise fail a later
// command with Redis's bare WRONGTYPE, which names no key (serve stopped with just that).
import { TaskState } from '../../../protocol/model.js';
import { StoreKeyTypeError } from '../errors.js';
import type { RedisParts } from './client.js';

type RedisType = 'hash' | 'zset' | 'set' | 'string';

export async function checkKeyTypes(parts: Pick<RedisParts, 'client' | 'keys'>): Promise<void> {
  const k = parts.keys;
  const fixed: Array<[key: string, type: RedisType, holds: string]> = [
    [k.keyRecords, 'hash', 'API keys'],
    [k.keyIdByHash, 'hash', 'the API key index'],
    [k.keyHashById, 'hash', 'the API key index'],
    [k.tasksEnded, 'zset', 'the ended-task index'],
    ...TaskState.options.map((s): [string, RedisType, string] => [k.tasksInState(s), 'set', 'a task state index']),
    [k.workspaceTasksBuilt, 'string', 'a marker'],
    [k.taskListBuilt, 'string', 'a marker'],
    [k.taskListAgentsBuilt, 'string', 'a marker'],
    [k.workspaceTasksRepair, 'string', 'a marker'],
    [k.meta, 'hash', 'settings such as webhook secrets'],
    [k.metaExpiry, 'zset', 'the settings expiry index'],
    [k.pushDue, 'zset', 'the webhook delivery queue'],
    [k.pushLeases, 'hash', 'the webhook delivery leases'],
    [k.connections, 'hash', 'outbound connections'],
    [k.connectionStatus, 'hash', 'outbound connection statuses'],
    [k.relays, 'hash', 'relay connections'],
    [k.relayKeys, 'hash', "the relay connections' key index"],
    [k.resultExpiry, 'zset', 'the outbound result expiry index'],
    [k.keyLastUsed, 'hash', "API keys' last use"],
  ];
  // one round trip: the client pipelines commands sent in the same turn
  const types = await Promise.all(fixed.map(([key]) => parts.client.type(key)));
  fixed.forEach(([key, want, holds], i) => {
    const found = String(types[i]);
    if (found !== 'none' && found !== want) throw new StoreKeyTypeError({ key, found, want, holds });
  });
}
