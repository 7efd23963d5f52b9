// The LMDB meta area: `meta` (key -> any value), server-wide values such as per-workspace webhook secrets.
import type { Database, Key } from 'lmdb';
import type { MetaStore } from '../types.js';

export interface LmdbMetaStoreOptions {
  /** key -> any value */
  db: Database<unknown, Key>;
  /** drops lmdb-js's reused read snapshot, so a read sees other processes' commits */
  fresh: () => void;
}

export function lmdbMetaStore(o: LmdbMetaStoreOptions): MetaStore {
  const { db: meta, fresh } = o;
  return {
    async get(key) {
      fresh();
      return meta.get(key);
    },
    async put(key, value) {
      await meta.put(key, value);
    },
  };
}
