// The Redis API key records: the `keys` hash and its two hash indexes, each write and the by-hash lookup one Lua script.
import { KeyRecord } from '../../../protocol/records.js';
import { StoreCorruptError } from '../errors.js';
import type { KeyStore } from '../types.js';
import { entries, type RedisParts } from './client.js';
import { script } from './scripts.js';
import { decode, packr } from './values.js';
import { versionOf } from '../versioned.js';
import { listed } from '../validate.js';

/**
 * Lua: stores one key (id, hash, packed record) under KEYS keyRecords, keyIdByHash, keyHashById. A key whose hash
 * changed must stop resolving by its old hash; the guard on the old entry keeps us from deleting a hash that now
 * belongs to a different key.
 */
const PUT_KEY_LUA = `
local function putKey(id, hash, packed)
  local old = redis.call('HGET', KEYS[3], id)
  if old and old ~= hash and redis.call('HGET', KEYS[2], old) == id then
    redis.call('HDEL', KEYS[2], old)
  end
  redis.call('HSET', KEYS[1], id, packed)
  redis.call('HSET', KEYS[2], hash, id)
  redis.call('HSET', KEYS[3], id, hash)
end
`;

/** KEYS: keyRecords, keyIdByHash, keyHashById. ARGV: id, hash, packed record. */
const putKey3 = script({
  numberOfKeys: 3,
  lua: `${PUT_KEY_LUA}
putKey(ARGV[1], ARGV[2], ARGV[3])
return 1
`,
});

/**
 * KEYS: as putKey3. ARGV: version, id, hash, packed record, then optionally a second key's id, hash, packed record.
 * Stores both only while the first key's stored bytes are at `version` (store/versioned.ts); 0, nothing written, if not.
 */
const putKeysIfVersion3 = script({
  numberOfKeys: 3,
  lua: `${PUT_KEY_LUA}
local v = redis.call('HGET', KEYS[1], ARGV[2])
if not v or redis.sha1hex(v) ~= ARGV[1] then return 0 end
putKey(ARGV[2], ARGV[3], ARGV[4])
if ARGV[5] then putKey(ARGV[5], ARGV[6], ARGV[7]) end
return 1
`,
});

/** KEYS: keyIdByHash, keyRecords. ARGV: hash. Returns the packed record or nil: authentication in one round trip. */
const keyByHash2 = script({
  numberOfKeys: 2,
  lua: `
local id = redis.call('HGET', KEYS[1], ARGV[1])
if not id then return false end
return redis.call('HGET', KEYS[2], id)
`,
});

export function redisKeyStore(o: Pick<RedisParts, 'bin' | 'keys' | 'run' | 'onCorrupt'>): KeyStore {
  const { bin, keys: k, run, onCorrupt } = o;
  const decodeKey = (bytes: Buffer, id: string) => decode({ schema: KeyRecord, bytes, record: 'key', id });
  return {
    async put(rec) {
      await run({
        script: putKey3,
        keys: [k.keyRecords, k.keyIdByHash, k.keyHashById],
        args: [rec.id, rec.hash, packr.pack(rec)],
      });
    },
    async putIfVersion({ rec, version, successor }) {
      const args = [version, rec.id, rec.hash, packr.pack(rec), ...(successor ? [successor.id, successor.hash, packr.pack(successor)] : [])];
      return (await run({ script: putKeysIfVersion3, keys: [k.keyRecords, k.keyIdByHash, k.keyHashById], args })) === 1;
    },
    async get(id) {
      const bytes = await bin.hGet(k.keyRecords, id);
      return bytes === null ? undefined : decodeKey(bytes, id);
    },
    async getVersioned(id) {
      const bytes = await bin.hGet(k.keyRecords, id);
      return bytes === null ? undefined : { rec: decodeKey(bytes, id), version: versionOf(bytes) };
    },
    async getByHash(hash) {
      const reply = await run({ script: keyByHash2, keys: [k.keyIdByHash, k.keyRecords], args: [hash] });
      if (reply === null) return undefined;
      try {
        if (!Buffer.isBuffer(reply)) throw new StoreCorruptError({ record: 'key', id: '' });
        const rec = decodeKey(reply, '');
        return rec.hash === hash ? rec : undefined;
      } catch (e) {
        if (!(e instanceof StoreCorruptError)) throw e;
        // named by its key id, as LMDB names it, never by the hash: the error reaches the log, and a hash is shown nowhere
        const id = await bin.hGet(k.keyIdByHash, hash);
        throw new StoreCorruptError({ record: 'key', id: id === null ? '(id unknown)' : id.toString(), cause: e.cause });
      }
    },
    async list(filter) {
      const out: KeyRecord[] = [];
      for (const [id, bytes] of await entries(bin, k.keyRecords)) {
        const rec = listed(onCorrupt, () => decodeKey(bytes, id));
        if (rec && (filter?.workspaceId === undefined || rec.workspaceId === filter.workspaceId)) out.push(rec);
      }
      return out;
    },
  };
}
