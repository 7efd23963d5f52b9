// The LMDB relay connections: `relays` ([workspace, name] -> RelayRecord) and its key index `relay-keys` (key id ->
// [workspace, name] of the relay the key opens), kept in the same write transactions as the records.
import type { Database, Key, RootDatabase } from 'lmdb';
import { RelayRecord } from '../../../protocol/relays.js';
import type { RelayInsert, RelayStore } from '../types.js';
import { RELAY_KEY_INDEX_BUILT as BUILT } from '../relay-key-index.js';
import { replacing, type OnCorrupt } from '../validate.js';
import { getDecoded } from './decoded.js';
import { idOf, lmdbNamedRecords } from './named-records.js';

export function lmdbRelayStore(o: {
  root: RootDatabase;
  db: Database<unknown, Key>;
  /** key id -> [workspace, name] */
  index: Database<unknown, Key>;
  fresh: () => void;
  onCorrupt?: OnCorrupt;
}): RelayStore {
  const { root, db, index, fresh, onCorrupt } = o;
  const named = lmdbNamedRecords({ root, db, fresh, onCorrupt, schema: RelayRecord, record: 'relay' });
  /** the key id a stored value names, if it names one (a damaged record names no key it could hold) */
  const keyIdAt = (key: Key): string | undefined => {
    const v = replacing(onCorrupt, () => getDecoded({ db, key, record: 'relay', id: idOf(key) }));
    return typeof v === 'object' && v !== null && 'keyId' in v && typeof v.keyId === 'string' ? v.keyId : undefined;
  };
  /**
   * Where the index says `keyId` opens a relay still opened by it. An entry left behind (its relay removed by an
   * earlier version, which knew no index) points at a record that is gone or names another key: it is no entry.
   */
  const holder = (keyId: string): Key | undefined => {
    const at = index.get(keyId) as Key | undefined;
    return at !== undefined && keyIdAt(at) === keyId ? at : undefined;
  };
  /** inside a write transaction: the index from the records, when no write of this version made it yet */
  const ensureIndex = () => {
    if (index.doesExist(BUILT)) return;
    for (const key of db.getKeys()) {
      const keyId = keyIdAt(key);
      if (keyId !== undefined && !index.doesExist(keyId)) index.put(keyId, key);
    }
    index.put(BUILT, true);
  };
  return {
    ...named,
    insert(rec) {
      // both checks inside the write transaction: of two adds at once (of one name, or of one key) one stores
      return root.transaction((): RelayInsert => {
        const key = [rec.workspace, rec.name];
        if (db.doesExist(key)) return 'name-taken';
        ensureIndex();
        if (holder(rec.keyId) !== undefined) return 'key-taken';
        db.put(key, rec);
        index.put(rec.keyId, key);
        return 'stored';
      });
    },
    async byKey(keyId) {
      fresh();
      // not built yet (no insert since an earlier version wrote the relays): the records themselves are read
      if (!index.doesExist(BUILT)) return (await named.list()).find((r) => r.keyId === keyId);
      const at = holder(keyId);
      if (at === undefined) return undefined;
      const [workspace, name] = at as [string, string];
      const rec = await named.get(workspace, name);
      return rec?.keyId === keyId ? rec : undefined;
    },
    delete(workspace, name) {
      // lmdb-js resolves remove() with true even when nothing was there, so look inside the write
      return root.transaction(() => {
        const key = [workspace, name];
        if (!db.doesExist(key)) return false;
        // its key is free again: the entry goes with the record (only when it points at this one)
        const keyId = keyIdAt(key);
        const at = keyId === undefined ? undefined : (index.get(keyId) as Key | undefined);
        if (keyId !== undefined && Array.isArray(at) && at[0] === workspace && at[1] === name) index.remove(keyId);
        db.remove(key);
        return true;
      });
    },
  };
}
