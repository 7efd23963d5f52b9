// The Redis relay connections: one hash of RelayRecords keyed by connectionField(workspace, name), and its key index
// (key id -> field of the relay the key opens), kept with the records by the same scripts.
import { RelayRecord } from '../../../protocol/relays.js';
import { connectionField } from '../../redis/keys.js';
import type { RelayStore } from '../types.js';
import { RELAY_KEY_INDEX_BUILT } from '../relay-key-index.js';
import { entries, type RedisParts } from './client.js';
import { putIfVersion1, script } from './scripts.js';
import { decode, packr } from './values.js';
import { versionOf } from '../versioned.js';
import { listed } from '../validate.js';

/**
 * Lua: the field of the relay `keyId` opens, by the index, or false. An entry left behind (its relay removed by an
 * earlier version, which knew no index) points at a record that is gone or names another key: it is no entry. A value
 * that does not unpack holds no key.
 */
const HOLDER = `
local function holder(keyId)
  local at = redis.call('HGET', KEYS[2], keyId)
  if not at then return false end
  local bytes = redis.call('HGET', KEYS[1], at)
  if not bytes then return false end
  local ok, rec = pcall(cmsgpack.unpack, bytes)
  if ok and type(rec) == 'table' and rec.keyId == keyId then return at end
  return false
end
`;

/**
 * KEYS: relays, relayKeys. ARGV: field, key id, packed record, the index's built field. Stores the relay unless its
 * field is taken (0) or another relay is opened by its key (-1), and its key's index entry, in one step: of two adds at
 * once one stores. A store an earlier version wrote has relays and no index: the first insert builds it (once).
 */
const insertRelay2 = script({
  numberOfKeys: 2,
  lua: `${HOLDER}
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
if redis.call('HEXISTS', KEYS[2], ARGV[4]) == 0 then
  local all = redis.call('HGETALL', KEYS[1])
  for i = 1, #all, 2 do
    local ok, rec = pcall(cmsgpack.unpack, all[i + 1])
    if ok and type(rec) == 'table' and type(rec.keyId) == 'string' then redis.call('HSETNX', KEYS[2], rec.keyId, all[i]) end
  end
  redis.call('HSET', KEYS[2], ARGV[4], '1')
end
if holder(ARGV[2]) then return -1 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
return 1
`,
});

/** KEYS: relays, relayKeys. ARGV: key id, the index's built field. The relay's packed record, false, or -1 (no index). */
const relayByKey2 = script({
  numberOfKeys: 2,
  lua: `${HOLDER}
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 0 then return -1 end
local at = holder(ARGV[1])
if not at then return false end
return {at, redis.call('HGET', KEYS[1], at)}
`,
});

/** KEYS: relays, relayKeys. ARGV: field. Removes the relay (1, else 0) and its key's index entry when it points at it. */
const deleteRelay2 = script({
  numberOfKeys: 2,
  lua: `
local bytes = redis.call('HGET', KEYS[1], ARGV[1])
if not bytes then return 0 end
local ok, rec = pcall(cmsgpack.unpack, bytes)
if ok and type(rec) == 'table' and type(rec.keyId) == 'string' and redis.call('HGET', KEYS[2], rec.keyId) == ARGV[1] then
  redis.call('HDEL', KEYS[2], rec.keyId)
end
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
`,
});

export function redisRelayStore(o: Pick<RedisParts, 'bin' | 'keys' | 'run' | 'onCorrupt'>): RelayStore {
  const { bin, onCorrupt, keys: k, run } = o;
  const read = (bytes: Buffer, id: string) => decode({ schema: RelayRecord, bytes, record: 'relay', id });
  const list: RelayStore['list'] = async (filter) => {
    const out: RelayRecord[] = [];
    for (const [field, bytes] of await entries(bin, k.relays)) {
      const rec = listed(onCorrupt, () => read(bytes, field));
      if (rec && (filter?.workspace === undefined || rec.workspace === filter.workspace)) out.push(rec);
    }
    return out.sort((a, b) => compare(a.workspace, b.workspace) || compare(a.name, b.name));
  };
  return {
    async insert(rec) {
      const field = connectionField(rec.workspace, rec.name);
      const r = await run({ script: insertRelay2, keys: [k.relays, k.relayKeys], args: [field, rec.keyId, packr.pack(rec), RELAY_KEY_INDEX_BUILT] });
      return r === 1 ? 'stored' : r === 0 ? 'name-taken' : 'key-taken';
    },
    async byKey(keyId) {
      const r = await run({ script: relayByKey2, keys: [k.relays, k.relayKeys], args: [keyId, RELAY_KEY_INDEX_BUILT] });
      // not built yet (no insert since an earlier version wrote the relays): the records themselves are read
      if (r === -1) return (await list()).find((rec) => rec.keyId === keyId);
      if (!Array.isArray(r)) return undefined;
      const [field, bytes] = r as [Buffer, Buffer];
      return read(bytes, field.toString());
    },
    async putIfVersion(rec, version) {
      const field = connectionField(rec.workspace, rec.name);
      return (await run({ script: putIfVersion1, keys: [k.relays], args: [field, version, packr.pack(rec)] })) === 1;
    },
    async get(workspace, name) {
      const field = connectionField(workspace, name);
      const bytes = await bin.hGet(k.relays, field);
      return bytes === null ? undefined : read(bytes, field);
    },
    async getVersioned(workspace, name) {
      const field = connectionField(workspace, name);
      const bytes = await bin.hGet(k.relays, field);
      return bytes === null ? undefined : { rec: read(bytes, field), version: versionOf(bytes) };
    },
    list,
    async delete(workspace, name) {
      return (await run({ script: deleteRelay2, keys: [k.relays, k.relayKeys], args: [connectionField(workspace, name)] })) === 1;
    },
  };
}

/** Byte order of UTF-8, as LMDB's keys sort, so both engines list in one order. */
const compare = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));
