// lmdb-js decodes a value inside get(): stored bytes that are not msgpack (a damaged file, another program's write)
// throw msgpackr's own error there ("Data read, but end of buffer not reached"), naming no record, and a listing that
// met one failed whole. Here that becomes the StoreCorruptError every other bad value is, naming the record.
import type { Database, Key } from 'lmdb';
import { StoreCorruptError, type RecordKind } from '../errors.js';

export function getDecoded(o: { db: Database<unknown, Key>; key: Key; record: RecordKind; id: string }): unknown {
  try {
    return o.db.get(o.key);
  } catch (cause) {
    // the bytes read back: it is their decoding that failed (else the store itself failed, which is not the record's fault)
    if (o.db.getBinary(o.key) === undefined) throw cause;
    throw new StoreCorruptError({ record: o.record, id: o.id, cause });
  }
}
