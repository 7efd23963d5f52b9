// Checked reads of records that other processes may change (keys, connections, relays): the stored bytes are read
// on every call, and a record is decoded and validated again only when its bytes differ from the ones last seen.
import type { Database, Key } from 'lmdb';
import type { RecordKind } from '../errors.js';
import { getDecoded } from './decoded.js';

/**
 * Reads `db[key]` and returns the record `decode` made of it. When the stored bytes equal the bytes decoded last
 * time for that key, the record decoded then is still exactly what is stored, so it is returned as is (the caller
 * must not change it). Bounded: past `max` keys the oldest is dropped.
 */
export function memoizedReader<T>(o: {
  db: Database<unknown, Key>;
  decode: (value: unknown, key: Key) => T;
  /** names a record whose bytes do not decode */
  record: RecordKind;
  idOf: (key: Key) => string;
  max?: number;
}) {
  const memo = new Map<string, { bytes: Buffer; rec: T }>();
  const max = o.max ?? 10_000;
  return (key: Key, memoKey: string): T | undefined => {
    // compared in lmdb-js's reused read buffer (no copy per read), copied only when the record is decoded anew. That
    // buffer's `length` is set to the value's size over a larger allocation, so only length-bounded calls see the value.
    const seen = o.db.getBinaryFast(key);
    if (seen === undefined) {
      memo.delete(memoKey);
      return undefined;
    }
    const size = seen.length;
    const hit = memo.get(memoKey);
    if (hit !== undefined && hit.bytes.length === size && hit.bytes.compare(seen, 0, size) === 0) return hit.rec;
    const raw = Buffer.from(Uint8Array.prototype.slice.call(seen, 0, size));
    const v = getDecoded({ db: o.db, key, record: o.record, id: o.idOf(key) });
    if (v === undefined) return undefined;
    const rec = o.decode(v, key);
    if (memo.size >= max) memo.delete(memo.keys().next().value as string);
    memo.set(memoKey, { bytes: raw, rec });
    return rec;
  };
}
