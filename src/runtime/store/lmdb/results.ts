// The LMDB outbound results: `results` ([workspace, id] -> StoredResult) and `results-expiry` ([expiresAt, workspace, id] -> true), swept in order.
import type { Database, Key, RootDatabase } from 'lmdb';
import { StoredResult } from '../../../protocol/connections.js';
import { oldestFirst } from '../order.js';
import type { ResultStore } from '../types.js';
import { checked } from '../validate.js';
import { getDecoded, rangeDecoded } from './decoded.js';
import { assertKeysFit } from './key-size.js';
import { AFTER_ANY_STRING } from './ranges.js';

export interface LmdbResultStoreOptions {
  root: RootDatabase;
  /** [workspace, id] -> StoredResult */
  db: Database<unknown, Key>;
  /** [expiresAt, workspace, id] -> true */
  expiry: Database<true, Key>;
  /** drops lmdb-js's reused read snapshot, so a read sees other processes' commits */
  fresh: () => void;
}

export function lmdbResultStore(o: LmdbResultStoreOptions): ResultStore {
  const { root, db, expiry, fresh } = o;
  const idOf = (key: Key) => (Array.isArray(key) ? key.join('/') : String(key));
  const read = (value: unknown, key: Key) => checked({ schema: StoredResult, value, record: 'result', id: idOf(key) });
  return {
    async put(r) {
      const key = [r.workspace, r.id];
      // the longer of its two keys, checked before the first change (lmdb-js commits what was put before a throw)
      assertKeysFit({ record: 'result', keys: [[r.expiresAt, r.workspace, r.id]] });
      await root.transaction(() => {
        // a replaced result may expire at another time: its old index entry must not outlive it
        const prev = getDecoded({ db, key, record: 'result', id: idOf(key) });
        const prevAt = typeof prev === 'object' && prev !== null && 'expiresAt' in prev ? prev.expiresAt : undefined;
        if (typeof prevAt === 'number' && prevAt !== r.expiresAt) expiry.remove([prevAt, r.workspace, r.id]);
        db.put(key, r);
        expiry.put([r.expiresAt, r.workspace, r.id], true);
      });
    },
    async get(workspace, id) {
      fresh();
      const key = [workspace, id];
      const v = getDecoded({ db, key, record: 'result', id: idOf(key) });
      return v === undefined ? undefined : read(v, key);
    },
    async list({ workspace, connection }) {
      fresh();
      const out: StoredResult[] = [];
      for (const { key, value } of rangeDecoded({ db, range: { start: [workspace], end: [workspace, AFTER_ANY_STRING] }, record: 'result', idOf })) {
        const r = read(value, key);
        if (connection === undefined || r.connection === connection) out.push(r);
      }
      return out.sort(oldestFirst);
    },
    sweep({ now, limit }) {
      if (limit <= 0) return Promise.resolve(0);
      return root.transaction(() => {
        let n = 0;
        // every entry whose expiresAt is <= now: [now, <any string>] is below [now, AFTER_ANY_STRING]
        for (const k of expiry.getKeys({ end: [now, AFTER_ANY_STRING], limit })) {
          expiry.remove(k);
          const [, workspace, id] = Array.isArray(k) ? k : [];
          if (typeof workspace !== 'string' || typeof id !== 'string') continue;
          if (db.doesExist([workspace, id])) {
            db.remove([workspace, id]);
            n++;
          }
        }
        return n;
      });
    },
  };
}
