// Version-checked writes (compare-and-set), the same rule on both engines: a record is read with its version, and
// written back only while the stored one is still at that version, checked inside the write (LMDB: its transaction;
// Redis: one script). Admin records that several writers change (relays, connections, keys) are updated this way so
// that no writer's change is lost to another's read-modify-write landing at the same moment (docs/decisions.md).
import { createHash } from 'node:crypto';
import { StoreConflictError, type RecordKind } from './errors.js';

/**
 * A stored record's version: the SHA-1 (hex) of its stored bytes. Any write of the record, by any process or an older
 * version of this code that knows nothing of versions, changes it; no counter has to be kept in the record. A record
 * written back byte for byte as it was (A, B, then A again) reads as unchanged, which is harmless: it is what was read.
 */
export const versionOf = (bytes: Uint8Array): string => createHash('sha1').update(bytes).digest('hex');

/** A record as read, with the version a version-checked write of it must name. */
export interface Versioned<T> {
  rec: T;
  version: string;
}

/** How often an update reads again after a conflict before it gives up (each retry follows another writer's success). */
export const UPDATE_ATTEMPTS = 16;

/**
 * Reads the record, lets `change` make the next one from it, and writes that only while the record is still the one
 * read; on a conflict reads again and applies `change` to the fresh record, so both writers' changes are kept. `change`
 * may be called several times and must derive its result from the record given (it may throw to refuse; returning
 * undefined writes nothing). Returns undefined when no record is stored, else the record as it now stands and whether
 * this call wrote it. Fails with StoreConflictError after UPDATE_ATTEMPTS conflicts, nothing written.
 */
export async function updateVersioned<T>(o: {
  read: () => Promise<Versioned<T> | undefined>;
  write: (rec: T, version: string) => Promise<boolean>;
  change: (current: T) => T | undefined | Promise<T | undefined>;
  /**
   * the identity of a record (its id): one read after a conflict with another identity than the first read's is
   * another record (removed and added again meanwhile), and is not changed: the update ends as if none were stored
   */
  identity?: (rec: T) => string;
  /** names the record in a StoreConflictError */
  record: RecordKind;
  id: string;
}): Promise<{ rec: T; written: boolean } | undefined> {
  let first: string | undefined;
  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
    const current = await o.read();
    if (current === undefined) return undefined;
    if (o.identity !== undefined) {
      const identity = o.identity(current.rec);
      first ??= identity;
      if (identity !== first) return undefined;
    }
    const next = await o.change(current.rec);
    if (next === undefined) return { rec: current.rec, written: false };
    if (await o.write(next, current.version)) return { rec: next, written: true };
  }
  throw new StoreConflictError({ record: o.record, id: o.id, attempts: UPDATE_ATTEMPTS });
}
