// The Redis relay connections: one hash of RelayRecords keyed by connectionField(workspace, name).
import { RelayRecord } from '../../../protocol/relays.js';
import { connectionField } from '../../redis/keys.js';
import type { RelayStore } from '../types.js';
import { entries, type RedisParts } from './client.js';
import { putIfVersion1, script } from './scripts.js';
import { decode, packr } from './values.js';
import { versionOf } from '../versioned.js';
import { listed } from '../validate.js';

/**
 * KEYS: relays. ARGV: field, key id, packed record. Stores the relay unless its field is taken (0) or another relay is
 * opened by its key (-1), in one step: of two adds at once one stores. Relays are few (an operator registers each),
 * so the key is looked for in them all rather than in an index to keep; a value that does not unpack holds no key.
 */
const insertRelay1 = script({
  numberOfKeys: 1,
  lua: `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
local all = redis.call('HVALS', KEYS[1])
for i = 1, #all do
  local ok, rec = pcall(cmsgpack.unpack, all[i])
  if ok and type(rec) == 'table' and rec.keyId == ARGV[2] then return -1 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
`,
});

export function redisRelayStore(o: Pick<RedisParts, 'client' | 'bin' | 'keys' | 'run' | 'onCorrupt'>): RelayStore {
  const { client, bin, onCorrupt, keys: k, run } = o;
  const read = (bytes: Buffer, id: string) => decode({ schema: RelayRecord, bytes, record: 'relay', id });
  return {
    async put(rec) {
      await client.hSet(k.relays, connectionField(rec.workspace, rec.name), packr.pack(rec));
    },
    async insert(rec) {
      const field = connectionField(rec.workspace, rec.name);
      const r = await run({ script: insertRelay1, keys: [k.relays], args: [field, rec.keyId, packr.pack(rec)] });
      return r === 1 ? 'stored' : r === 0 ? 'name-taken' : 'key-taken';
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
    async list(filter) {
      const out: RelayRecord[] = [];
      for (const [field, bytes] of await entries(bin, k.relays)) {
        const rec = listed(onCorrupt, () => read(bytes, field));
        if (rec && (filter?.workspace === undefined || rec.workspace === filter.workspace)) out.push(rec);
      }
      return out.sort((a, b) => compare(a.workspace, b.workspace) || compare(a.name, b.name));
    },
    async delete(workspace, name) {
      return (await client.hDel(k.relays, connectionField(workspace, name))) > 0;
    },
  };
}

/** Byte order of UTF-8, as LMDB's keys sort, so both engines list in one order. */
const compare = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));
