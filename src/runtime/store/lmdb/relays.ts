// The LMDB relay connections: `relays` ([workspace, name] -> RelayRecord).
import type { Database, Key, RootDatabase } from 'lmdb';
import { RelayRecord } from '../../../protocol/relays.js';
import type { RelayStore } from '../types.js';
import { lmdbNamedRecords } from './named-records.js';

export function lmdbRelayStore(o: { root: RootDatabase; db: Database<unknown, Key>; fresh: () => void }): RelayStore {
  return lmdbNamedRecords({ ...o, schema: RelayRecord, record: 'relay' });
}
