// lmdb-js decodes a value inside get() and inside a range read's iteration: stored bytes that are not msgpack (a
// damaged file, another program's write) throw msgpackr's own error there ("Data read, but end of buffer not
// reached"), naming no record, and a listing that met one failed whole. Here that becomes the StoreCorruptError every
// other bad value is, naming the record.
import { compareKeys, type Database, type Key, type RangeOptions } from 'lmdb';
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

/** One entry of `rangeDecoded`: reading `value` throws the StoreCorruptError of a value that does not decode. */
export interface DecodedEntry {
  readonly key: Key;
  readonly value: unknown;
}

/**
 * A range read whose values that do not decode fail one at a time, each as a StoreCorruptError naming its record
 * (`idOf` its key), when its `value` is read: a caller that passes over damaged records (`listed`) then goes on with
 * the rest. The range is read as one (fast) until a value fails to decode; from there on key by key (each value its
 * own get), since lmdb-js's range iteration cannot go on past a value it could not decode.
 */
export function* rangeDecoded(o: { db: Database<unknown, Key>; range: RangeOptions; record: RecordKind; idOf: (key: Key) => string }): Generator<DecodedEntry> {
  const { db, range } = o;
  let last: Key | undefined;
  let n = 0;
  const it = db.getRange(range)[Symbol.iterator]();
  try {
    for (;;) {
      const step = it.next();
      if (step.done === true) return;
      last = step.value.key;
      n++;
      yield step.value;
    }
  } catch {
    // only the range read's own throws land here (a throw in the caller's loop ends this generator without one)
  } finally {
    // a throw inside lmdb-js's iteration leaves its cursor and read transaction open (each one a reader slot taken
    // for good, until MDB_READERS_FULL): returning the iterator closes them
    it.return?.();
  }
  const rest: RangeOptions = {
    ...range,
    ...(last !== undefined && { start: last }),
    ...(range.limit !== undefined && { limit: range.limit - n + (last === undefined ? 0 : 1) }),
  };
  for (const key of db.getKeys(rest)) {
    if (last !== undefined && compareKeys(key, last) === 0) continue;
    yield {
      key,
      get value() {
        return getDecoded({ db, key, record: o.record, id: o.idOf(key) });
      },
    };
  }
}
