// The read-side trust boundary shared by both engines: a decoded value becomes a typed record here or not at all.
import type { z } from 'zod';
import { StoreCorruptError, type RecordKind } from './errors.js';

/**
 * Writes are not validated: callers hand us values the type system already vouches for, and
 * tasks.put is on the request path. Reads are, because the bytes may come from another
 * process, another version of this code, or a damaged file.
 */
export function checked<T>(opts: { schema: z.ZodType<T>; value: unknown; record: RecordKind; id: string }): T {
  const r = opts.schema.safeParse(opts.value);
  if (!r.success) throw new StoreCorruptError({ record: opts.record, id: opts.id, cause: r.error });
  return r.data;
}

/** Told of each damaged record a listing left out; a store opened without one fails the listing instead. */
export type OnCorrupt = (e: StoreCorruptError) => void;

/**
 * One record of a listing. Without `onCorrupt` a damaged record fails the listing; with it, the record is reported
 * and left out, so that one record an older or newer version wrote (or a damaged file) does not hide all the others:
 * the gateway still starts and serves them, the CLI still lists them.
 */
export function listed<T>(onCorrupt: OnCorrupt | undefined, read: () => T): T | undefined {
  if (onCorrupt === undefined) return read();
  try {
    return read();
  } catch (e) {
    if (!(e instanceof StoreCorruptError)) throw e;
    onCorrupt(e);
    return undefined;
  }
}

/**
 * The read a write makes of the value it is about to replace: a damaged one is reported (when someone listens) and
 * read as absent, since the write replaces it all the same; failing the write instead would keep the damage for good.
 */
export function replacing<T>(onCorrupt: OnCorrupt | undefined, read: () => T): T | undefined {
  try {
    return read();
  } catch (e) {
    if (!(e instanceof StoreCorruptError)) throw e;
    onCorrupt?.(e);
    return undefined;
  }
}
