// The Redis meta area: one hash (meta key -> packed value) for server-wide values such as per-workspace webhook secrets.
import { StoreCorruptError } from '../errors.js';
import type { MetaStore } from '../types.js';
import type { RedisParts } from './client.js';
import { packr } from './values.js';

export function redisMetaStore(o: Pick<RedisParts, 'client' | 'bin' | 'keys'>): MetaStore {
  const { client, bin, keys: k } = o;
  return {
    async get(key) {
      const bytes = await bin.hGet(k.meta, key);
      if (bytes === null) return undefined;
      try {
        return packr.unpack(bytes);
      } catch (cause) {
        throw new StoreCorruptError({ record: 'meta', id: key, cause });
      }
    },
    async put(key, value) {
      await client.hSet(k.meta, key, packr.pack(value));
    },
  };
}
