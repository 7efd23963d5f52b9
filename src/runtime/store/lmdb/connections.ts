// The LMDB outbound connections: `connections` ([workspace, name] -> ConnectionRecord) and `connection-status` (same key -> ConnectionStatus).
import type { Database, Key, RootDatabase } from 'lmdb';
import { ConnectionRecord, ConnectionStatus } from '../../../protocol/connections.js';
import type { ConnectionStore } from '../types.js';
import { checked, type OnCorrupt } from '../validate.js';
import { getDecoded } from './decoded.js';
import { idOf, lmdbNamedRecords } from './named-records.js';

export interface LmdbConnectionStoreOptions {
  root: RootDatabase;
  /** [workspace, name] -> ConnectionRecord */
  db: Database<unknown, Key>;
  /** [workspace, name] -> ConnectionStatus */
  status: Database<unknown, Key>;
  /** drops lmdb-js's reused read snapshot, so a read sees other processes' commits (the CLI edits, the server reads) */
  fresh: () => void;
  onCorrupt?: OnCorrupt;
}

export function lmdbConnectionStore(o: LmdbConnectionStoreOptions): ConnectionStore {
  const { root, db, status, fresh, onCorrupt } = o;
  return {
    ...lmdbNamedRecords({ root, db, fresh, onCorrupt, schema: ConnectionRecord, record: 'connection', alsoRemove: [status] }),
    async putStatus(workspace, name, s) {
      await root.transaction(() => {
        const key = [workspace, name];
        if (db.doesExist(key)) status.put(key, s);
      });
    },
    async getStatus(workspace, name) {
      fresh();
      const key = [workspace, name];
      // bytes that do not decode fail as the damaged record they are, named, not as lmdb-js's bare decoder error
      const v = getDecoded({ db: status, key, record: 'connection-status', id: idOf(key) });
      return v === undefined ? undefined : checked({ schema: ConnectionStatus, value: v, record: 'connection-status', id: idOf(key) });
    },
  };
}
