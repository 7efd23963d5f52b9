// Records kept per workspace by name in one LMDB db ([workspace, name] -> record): the part connections and relays share.
import type { Database, Key, RootDatabase } from 'lmdb';
import type { z } from 'zod';
import type { RecordKind } from '../errors.js';
import { checked, listed, type OnCorrupt } from '../validate.js';
import { versionOf, type Versioned } from '../versioned.js';
import { keyFits } from './key-size.js';
import { AFTER_ANY_STRING } from './ranges.js';
import { memoizedReader } from './read-memo.js';

export const idOf = (key: Key): string => (Array.isArray(key) ? key.join('/') : String(key));

export interface NamedRecords<T> {
  /** puts the record unless its key is taken (checked inside the write: two adds at once store one); true when put */
  insert(rec: T & { workspace: string; name: string }): Promise<boolean>;
  get(workspace: string, name: string): Promise<T | undefined>;
  /** the record with the version of its stored bytes */
  getVersioned(workspace: string, name: string): Promise<Versioned<T> | undefined>;
  /** puts the record only while the stored one is at `version` (checked inside the write); true when put */
  putIfVersion(rec: T & { workspace: string; name: string }, version: string): Promise<boolean>;
  /** every record, or one workspace's, ordered by workspace then name (the key order) */
  list(filter?: { workspace?: string }): Promise<T[]>;
  /** removes the record (and the same key in `alsoRemove`) in one write; true when there was one */
  delete(workspace: string, name: string): Promise<boolean>;
}

export function lmdbNamedRecords<T>(o: {
  root: RootDatabase;
  db: Database<unknown, Key>;
  /** drops lmdb-js's reused read snapshot, so a read sees other processes' commits (the CLI edits, the server reads) */
  fresh: () => void;
  schema: z.ZodType<T>;
  record: RecordKind;
  /** where list reports the damaged records it leaves out (none: a damaged record fails the listing) */
  onCorrupt?: OnCorrupt;
  /** dbs keyed the same way whose entry goes with the record's */
  alsoRemove?: ReadonlyArray<Database<unknown, Key>>;
}): NamedRecords<T> {
  const { root, db, fresh } = o;
  const read = (value: unknown, key: Key) => checked({ schema: o.schema, value, record: o.record, id: idOf(key) });
  // read on every outbound call (a connection) or relay turn, and changed by other processes (the CLI): decoded only
  // when the stored bytes changed
  const readOne = memoizedReader({ db, decode: read, record: o.record, idOf });
  const memoKey = (workspace: string, name: string) => `${workspace}\u0000${name}`;
  return {
    insert(rec) {
      return root.transaction(() => {
        const key = [rec.workspace, rec.name];
        if (db.doesExist(key)) return false;
        db.put(key, rec);
        return true;
      });
    },
    putIfVersion(rec, version) {
      return root.transaction(() => {
        const key = [rec.workspace, rec.name];
        const stored = db.getBinary(key);
        if (stored === undefined || versionOf(stored) !== version) return false;
        db.put(key, rec);
        return true;
      });
    },
    async get(workspace, name) {
      fresh();
      return readOne([workspace, name], memoKey(workspace, name));
    },
    async getVersioned(workspace, name) {
      fresh();
      const key = [workspace, name];
      // the bytes and the record from one read snapshot (nothing between them renews it)
      const bytes = db.getBinary(key);
      if (bytes === undefined) return undefined;
      const rec = readOne(key, memoKey(workspace, name));
      return rec === undefined ? undefined : { rec, version: versionOf(bytes) };
    },
    async list(filter) {
      fresh();
      const range = filter?.workspace === undefined ? {} : { start: [filter.workspace], end: [filter.workspace, AFTER_ANY_STRING] };
      // a workspace too long for a key has no records here; the range read would throw LMDB's "Key of size ... too large"
      if (range.end !== undefined && !keyFits(range.end)) return [];
      const out: T[] = [];
      // by key, each read on its own: a value that does not decode fails its own read, not the whole range's
      for (const key of db.getKeys(range)) {
        const [workspace, name] = key as [string, string];
        const rec = listed(o.onCorrupt, () => readOne(key, memoKey(workspace, name)));
        if (rec !== undefined) out.push(rec);
      }
      return out;
    },
    delete(workspace, name) {
      // lmdb-js resolves remove() with true even when nothing was there, so look inside the write
      return root.transaction(() => {
        const key = [workspace, name];
        for (const other of o.alsoRemove ?? []) other.remove(key);
        if (!db.doesExist(key)) return false;
        db.remove(key);
        return true;
      });
    },
  };
}
