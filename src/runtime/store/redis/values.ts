// How the Redis store keeps values: msgpack (plain maps, so any msgpack reader can inspect them), checked when read back.
import { Packr } from 'msgpackr';
import type { z } from 'zod';
import { StoreCorruptError, type RecordKind } from '../errors.js';
import { checked } from '../validate.js';

export const packr = new Packr({ useRecords: false });

/** Unpacks and checks one stored value; a value that does not unpack or does not fit is a StoreCorruptError naming it. */
export function decode<T>(opts: { schema: z.ZodType<T>; bytes: Buffer; record: RecordKind; id: string }): T {
  let value: unknown;
  try {
    value = packr.unpack(opts.bytes);
  } catch (cause) {
    throw new StoreCorruptError({ record: opts.record, id: opts.id, cause });
  }
  return checked({ schema: opts.schema, value, record: opts.record, id: opts.id });
}
