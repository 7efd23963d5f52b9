// Errors raised by the store engines, each with a stable `code` callers can branch on.

/** The kinds of record a store holds; named in errors so an operator knows what to repair. */
export type RecordKind = 'key' | 'task' | 'push-config' | 'meta' | 'event' | 'push-job';

/**
 * A stored value failed to decode or to match its schema. Raised rather than answered as
 * "not found": a damaged record must be noticed, not silently treated as absent.
 */
export class StoreCorruptError extends Error {
  readonly code = 'ERR_STORE_CORRUPT';
  readonly record: RecordKind;
  readonly id: string;

  constructor(opts: { record: RecordKind; id: string; cause?: unknown }) {
    super(`stored ${opts.record} record ${JSON.stringify(opts.id)} is corrupt`, { cause: opts.cause });
    this.name = 'StoreCorruptError';
    this.record = opts.record;
    this.id = opts.id;
  }
}

