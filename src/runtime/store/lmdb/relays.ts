// The LMDB relay connections: `relays` ([workspace, name] -> RelayRecord).
import type { Database, Key, RootDatabase } from 'lmdb';
import { RelayRecord } from '../../../protocol/relays.js';
import type { RelayStore } from '../types.js';
import type { OnCorrupt } from '../validate.js';
import { lmdbNamedRecords } from './named-records.js';

export function lmdbRelayStore(o: { root: RootDatabase; db: Database<unknown, Key>; fresh: () => void; onCorrupt?: OnCorrupt }): RelayStore {
  return lmdbNamedRecords({ ...o, schema: RelayRecord, record: 'relay' });
}
