// The task listing's page token: an opaque keyset cursor, the status time and id of the last task of the page given
// out, so the next page starts just after it in the listing order whatever was written in between (an offset counted
// again from the top repeated the tasks pushed down by new writes). Read back with zod: a token this gateway did not
// give out is the caller's error naming `pageToken`, never a listing from somewhere else.
import { z } from 'zod';
import { CallerId } from './model.js';

/** A place in the listing order (newest status first, ties by id). */
export interface ListCursor {
  time: number;
  id: string;
}

/** Marks the token's layout, so a later one can be told apart (and an offset token of the builds before is refused). */
const PREFIX = 'k1.';

const CursorJson = z.tuple([z.number().int().min(-8.64e15).max(8.64e15), CallerId]);

export const listToken = (c: ListCursor): string => PREFIX + Buffer.from(JSON.stringify([c.time, c.id])).toString('base64url');

const NOT_OURS = 'not a page token this gateway gave out';

/** `pageToken` as a cursor; '' (or absent) is the first page. */
export const ListPageToken = z.string({ error: `${NOT_OURS} (a string)` }).transform((s, ctx): ListCursor | undefined => {
  if (s === '') return undefined;
  let raw: unknown;
  try {
    if (!s.startsWith(PREFIX) || s.length > 2_000 || !/^[A-Za-z0-9_-]*$/.test(s.slice(PREFIX.length))) throw new Error(NOT_OURS);
    raw = JSON.parse(Buffer.from(s.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    ctx.addIssue({ code: 'custom', message: NOT_OURS });
    return z.NEVER;
  }
  const c = CursorJson.safeParse(raw);
  if (!c.success) {
    ctx.addIssue({ code: 'custom', message: NOT_OURS });
    return z.NEVER;
  }
  return { time: c.data[0], id: c.data[1] };
});
