// The LMDB relay connections: `relays` ([workspace, name] -> RelayRecord).
import type { Database, Key, RootDatabase } from 'lmdb';
import { RelayRecord } from '../../../protocol/relays.js';
import type { RelayInsert, RelayStore } from '../types.js';
import { replacing, type OnCorrupt } from '../validate.js';
import { getDecoded } from './decoded.js';
import { idOf, lmdbNamedRecords } from './named-records.js';

export function lmdbRelayStore(o: { root: RootDatabase; db: Database<unknown, Key>; fresh: () => void; onCorrupt?: OnCorrupt }): RelayStore {
  const { root, db, onCorrupt } = o;
  return {
    ...lmdbNamedRecords({ ...o, schema: RelayRecord, record: 'relay' }),
    insert(rec) {
      // both checks inside the write transaction: of two adds at once (of one name, or of one key) one stores. Relays
      // are few (an operator registers each), so the key is found by reading them all rather than by an index to keep.
      return root.transaction((): RelayInsert => {
        const key = [rec.workspace, rec.name];
        if (db.doesExist(key)) return 'name-taken';
        for (const other of db.getKeys()) {
          // a damaged record names no key it could hold: it takes none
          const stored = replacing(onCorrupt, () => getDecoded({ db, key: other, record: 'relay', id: idOf(other) }));
          if (typeof stored === 'object' && stored !== null && 'keyId' in stored && stored.keyId === rec.keyId) return 'key-taken';
        }
        db.put(key, rec);
        return 'stored';
      });
    },
  };
}
