// LMDB's key size limit, checked before a write's first change: lmdb-js commits whatever an async transaction put
// before its callback threw, so a key refused midway would leave a half-written record behind.
import * as lmdb from 'lmdb';
import type { Key } from 'lmdb';
import { StoreKeyTooLongError, type RecordKind } from '../errors.js';

/** lmdb-js's own key encoder (ordered-binary, every sub-database's key encoding); exported, though not in its typings. */
const encodeKey = (lmdb as unknown as { keyValueToBuffer: (key: Key) => Uint8Array }).keyValueToBuffer;

/** lmdb-js's limit for a key (and for a dupSort value, which LMDB stores as a key) with the default page size. */
export const MAX_KEY_BYTES = 1978;

/**
 * Bytes a key of strings and numbers takes at most in ordered-binary: a UTF-16 code unit is at most 3 UTF-8 bytes, a
 * string element gets a prefix and a separator byte, a number is 9 bytes and a separator. undefined: another kind of key.
 */
function upperBound(key: Key): number | undefined {
  if (typeof key === 'string') return key.length * 3 + 2;
  if (!Array.isArray(key)) return undefined;
  let n = 0;
  for (const part of key) {
    if (typeof part === 'string') n += part.length * 3 + 2;
    else if (typeof part === 'number') n += 10;
    else return undefined;
  }
  return n;
}

/** Whether `key` fits LMDB's bound (lmdb-js throws on a range bound that does not: one no stored key can be within). */
export function keyFits(key: Key): boolean {
  const bound = upperBound(key);
  return (bound !== undefined && bound <= MAX_KEY_BYTES) || encodeKey(key).length <= MAX_KEY_BYTES;
}

/**
 * Throws StoreKeyTooLongError unless every key fits. Called on every task write: a key whose bound already fits (all
 * of them, in practice) is not encoded; any other is encoded as the sub-databases encode keys (ordered-binary).
 */
export function assertKeysFit(o: { record: RecordKind; keys: Iterable<Key> }): void {
  for (const key of o.keys) {
    const bound = upperBound(key);
    if (bound !== undefined && bound <= MAX_KEY_BYTES) continue;
    const bytes = encodeKey(key).length;
    if (bytes > MAX_KEY_BYTES) throw new StoreKeyTooLongError({ record: o.record, bytes, limit: MAX_KEY_BYTES });
  }
}
