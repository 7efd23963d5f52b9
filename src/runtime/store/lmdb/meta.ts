// The LMDB meta area: `meta` (key -> any value), server-wide values such as per-workspace webhook secrets; entries put
// with an expiry also have `meta-expires` (key -> expiresAt) and `meta-expiry` ([expiresAt, key] -> true), the latter
// swept a bounded batch at a time by each expiring put.
import type { Database, Key, RootDatabase } from 'lmdb';
import { StoreCorruptError } from '../errors.js';
import type { MetaExpiry, MetaStore } from '../types.js';
import { versionOf } from '../versioned.js';
import { assertKeysFit } from './key-size.js';
import { getDecoded } from './decoded.js';
import { AFTER_ANY_STRING } from './ranges.js';
import { replacing, type OnCorrupt } from '../validate.js';

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
  /** told of a damaged expiry a put replaces */
  onCorrupt?: OnCorrupt;
}

/** Expired entries removed per expiring put: a put never pays for a long backlog, and the puts recur (beats). */
const SWEEP_BATCH = 20;

export function lmdbMetaStore(o: LmdbMetaStoreOptions): MetaStore {
  const { root, db: meta, expires, expiry, fresh, onCorrupt } = o;
  /** Inside a write transaction: the entry's stored expiry; 'damaged' when there is one that is not a time. */
  const storedAt = (key: string): number | 'damaged' | undefined => {
    if (expires.getBinary(key) === undefined) return undefined;
    const at = replacing(onCorrupt, () => {
      const v = getDecoded({ db: expires, key, record: 'meta', id: key });
      if (typeof v !== 'number') throw new StoreCorruptError({ record: 'meta', id: key });
      return v;
    });
    return at ?? 'damaged';
  };
  /** Inside a write transaction: drops the entry's index entries (a damaged expiry does not say which: all of them). */
  const dropIndex = (key: string, at: number | 'damaged'): void => {
    if (typeof at === 'number') {
      expiry.remove([at, key]);
      return;
    }
    // rare (a damaged file), and the index holds one entry per expiring key: one pass over it
    for (const k of expiry.getKeys()) if (Array.isArray(k) && k[1] === key) expiry.remove(k);
  };
  /** Inside a write transaction: a put (sweeping a few expired entries first when it expires itself). */
  const write = (key: string, value: unknown, exp: MetaExpiry | undefined): void => {
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
    // a damaged expiry is replaced, not kept: failing here failed every later put of the key (each instance beat)
    const prevAt = storedAt(key);
    if (prevAt !== undefined && prevAt !== exp?.expiresAt) dropIndex(key, prevAt);
    meta.put(key, value);
    if (exp) {
      expires.put(key, exp.expiresAt);
      expiry.put([exp.expiresAt, key], true);
    } else if (prevAt !== undefined) expires.remove(key);
  };
  return {
    async get(key) {
      fresh();
      return getDecoded({ db: meta, key, record: 'meta', id: key });
    },
    async put(key, value, exp) {
      // before the first change: a key refused midway would leave the entry without its index entry
      assertKeysFit({ record: 'meta', keys: exp ? [key, [exp.expiresAt, key]] : [key] });
      await root.transaction(() => write(key, value, exp));
    },
    async getVersioned(key) {
      fresh();
      // the bytes and the value from one read snapshot (nothing between them renews it)
      const bytes = meta.getBinary(key);
      if (bytes === undefined) return undefined;
      return { rec: getDecoded({ db: meta, key, record: 'meta', id: key }), version: versionOf(bytes) };
    },
    putIfVersion(key, value, version) {
      assertKeysFit({ record: 'meta', keys: [key] });
      return root.transaction(() => {
        const bytes = meta.getBinary(key);
        if (version === null ? bytes !== undefined : bytes === undefined || versionOf(bytes) !== version) return false;
        write(key, value, undefined);
        return true;
      });
    },
  };
}
