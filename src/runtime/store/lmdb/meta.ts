// The LMDB meta area: `meta` (key -> any value), server-wide values such as per-workspace webhook secrets; entries put
// with an expiry also have `meta-expires` (key -> expiresAt) and `meta-expiry` ([expiresAt, key] -> true), the latter
// swept a bounded batch at a time by each expiring put.
import type { Database, Key, RootDatabase } from 'lmdb';
import type { MetaStore } from '../types.js';
import { assertKeysFit } from './key-size.js';
import { getDecoded } from './decoded.js';
import { AFTER_ANY_STRING } from './ranges.js';

export interface LmdbMetaStoreOptions {
  root: RootDatabase;
  /** key -> any value */
  db: Database<unknown, Key>;
  /** key -> its expiresAt (only entries put with an expiry): finds the index entry to drop when the entry is put again */
  expires: Database<unknown, Key>;
  /** [expiresAt, key] -> true */
  expiry: Database<true, Key>;
  /** drops lmdb-js's reused read snapshot, so a read sees other processes' commits */
  fresh: () => void;
}

/** Expired entries removed per expiring put: a put never pays for a long backlog, and the puts recur (beats). */
const SWEEP_BATCH = 20;

export function lmdbMetaStore(o: LmdbMetaStoreOptions): MetaStore {
  const { root, db: meta, expires, expiry, fresh } = o;
  return {
    async get(key) {
      fresh();
      return getDecoded({ db: meta, key, record: 'meta', id: key });
    },
    async put(key, value, exp) {
      // before the first change: a key refused midway would leave the entry without its index entry
      assertKeysFit({ record: 'meta', keys: exp ? [key, [exp.expiresAt, key]] : [key] });
      await root.transaction(() => {
        if (exp) {
          // every index entry at or before `now`: [now, <any string>] is below [now, AFTER_ANY_STRING]
          for (const k of expiry.getKeys({ end: [exp.now, AFTER_ANY_STRING], limit: SWEEP_BATCH })) {
            expiry.remove(k);
            const gone = Array.isArray(k) ? k[1] : undefined;
            if (typeof gone !== 'string') continue;
            meta.remove(gone);
            expires.remove(gone);
          }
        }
        const prevAt = expires.get(key);
        if (typeof prevAt === 'number' && prevAt !== exp?.expiresAt) expiry.remove([prevAt, key]);
        meta.put(key, value);
        if (exp) {
          expires.put(key, exp.expiresAt);
          expiry.put([exp.expiresAt, key], true);
        } else if (prevAt !== undefined) expires.remove(key);
      });
    },
  };
}
