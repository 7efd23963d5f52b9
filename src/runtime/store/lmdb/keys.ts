// The LMDB API key records: `keys` (id -> KeyRecord) and its `key-hash` index, read fresh on every request.
import type { Database, Key, RootDatabase } from 'lmdb';
import { KeyRecord } from '../../../protocol/records.js';
import type { KeyStore } from '../types.js';
import { checked, listed, replacing, type OnCorrupt } from '../validate.js';
import { getDecoded } from './decoded.js';
import { memoizedReader } from './read-memo.js';
import { versionOf } from '../versioned.js';

export interface LmdbKeyStoreOptions {
  root: RootDatabase;
  /** key id -> KeyRecord */
  keys: Database<unknown, Key>;
  /** key hash -> key id */
  keyHash: Database<string, string>;
  /** drops lmdb-js's reused read snapshot, so a read sees other processes' commits */
  fresh: () => void;
  /** where list reports the damaged records it leaves out (none: a damaged record fails the listing) */
  onCorrupt?: OnCorrupt;
}

export function lmdbKeyStore(o: LmdbKeyStoreOptions): KeyStore {
  const { root, keys, keyHash, fresh, onCorrupt } = o;
  // Key records are read on every request and may be changed by another process (a CLI revoke), so they are
  // never cached as objects: the stored bytes are read every time, and decoded only when they changed.
  const readRecord = memoizedReader({
    db: keys,
    decode: (value, id) => checked({ schema: KeyRecord, value, record: 'key', id: String(id) }),
    record: 'key',
    idOf: String,
  });
  const readKey = (id: string): KeyRecord | undefined => readRecord(id, id);

  // inside a write transaction: the record and its hash index
  const putOne = (rec: KeyRecord) => {
    // A changed hash must stop resolving to this key, or a replaced secret would still authenticate.
    // a damaged record holds no hash to find: it is replaced all the same (its old hash, if indexed, resolves to
    // this id, whose record then has another hash, which getByHash refuses)
    const prev = hashOf(replacing(onCorrupt, () => getDecoded({ db: keys, key: rec.id, record: 'key', id: rec.id })));
    if (prev !== undefined && prev !== rec.hash && keyHash.get(prev) === rec.id) keyHash.remove(prev);
    keys.put(rec.id, rec);
    keyHash.put(rec.hash, rec.id);
  };

  return {
    async put(rec) {
      await root.transaction(() => putOne(rec));
    },
    putIfVersion({ rec, version, successor }) {
      return root.transaction(() => {
        const stored = keys.getBinary(rec.id);
        if (stored === undefined || versionOf(stored) !== version) return false;
        putOne(rec);
        if (successor !== undefined) putOne(successor);
        return true;
      });
    },
    async getVersioned(id) {
      fresh();
      // the bytes and the record from one read snapshot (nothing between them renews it)
      const bytes = keys.getBinary(id);
      if (bytes === undefined) return undefined;
      const rec = readKey(id);
      return rec === undefined ? undefined : { rec, version: versionOf(bytes) };
    },
    async get(id) {
      fresh();
      return readKey(id);
    },
    async getByHash(hash) {
      fresh();
      const id = keyHash.get(hash);
      if (id === undefined) return undefined;
      const rec = readKey(id);
      return rec?.hash === hash ? rec : undefined;
    },
    async list(filter) {
      fresh();
      const out: KeyRecord[] = [];
      // by key, each read on its own: a value that does not decode fails its own read, not the whole range's
      for (const key of keys.getKeys()) {
        const rec = listed(onCorrupt, () => readKey(String(key)));
        if (rec && (filter?.workspaceId === undefined || rec.workspaceId === filter.workspaceId)) out.push(rec);
      }
      return out;
    },
  };
}

function hashOf(v: unknown): string | undefined {
  return typeof v === 'object' && v !== null && 'hash' in v && typeof v.hash === 'string' ? v.hash : undefined;
}
