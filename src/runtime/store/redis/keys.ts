// The Redis API key records: the `keys` hash and its two hash indexes, each write and the by-hash lookup one Lua script.
import { KeyRecord } from '../../../protocol/records.js';
import { StoreCorruptError } from '../errors.js';
import type { KeyStore } from '../types.js';
import { entries, type RedisParts } from './client.js';
import { script } from './scripts.js';
import { decode, packr } from './values.js';
import { listed } from '../validate.js';

/**
 * KEYS: keyRecords, keyIdByHash, keyHashById. ARGV: id, hash, packed record.
 * A key whose hash changed must stop resolving by its old hash; the guard on the old entry
 * keeps us from deleting a hash that now belongs to a different key.
 */
const putKey3 = script({
  numberOfKeys: 3,
  lua: `
local old = redis.call('HGET', KEYS[3], ARGV[1])
if old and old ~= ARGV[2] and redis.call('HGET', KEYS[2], old) == ARGV[1] then
  redis.call('HDEL', KEYS[2], old)
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
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
    async get(id) {
      const bytes = await bin.hGet(k.keyRecords, id);
      return bytes === null ? undefined : decodeKey(bytes, id);
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
