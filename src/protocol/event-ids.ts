// The SSE event ids of a task's stream, written and read back (Last-Event-ID) in one place.
//
// A live or replayed event's id is its per-task seq: resuming from it replays the stored events after it. A stream's
// opening (the task as it stands at seq S) is one event in rev B and 1.0 (the Task) but several in rev A (each
// artifact, then the status), and the store holds no event that any of those but the last stands for: they cannot
// all be S (resuming from the first would skip the rest) nor borrow seqs of stored events (a replay after one gives
// chunks and statuses that repeat or miss what the opening already said). So the opening's last event is S, as
// before, and each one before it is `S:k`, "k events of the opening at S sent", which a resume continues exactly.

/** Where a client stands in a task's stream: after the event with seq `seq`, or `opening` events into the opening at `seq`. */
export interface StreamPosition {
  seq: number;
  /** 1 .. (the opening's length - 1): the opening at `seq` was sent up to its `opening`-th event */
  opening?: number;
}

/** The id of the `k`-th (1-based) of an opening's `count` events, at the task's seq: the last one is the seq itself. */
export const openingEventId = (o: { seq: number; k: number; count: number }): string => (o.k === o.count ? String(o.seq) : `${o.seq}:${o.k}`);

// plain decimals (the ids this gateway writes: `0x1`, `1e3`, `1.0` or `-0` name none of them), and `seq:k` with k >= 1
const EVENT_ID = /^(\d{1,15})(?::([1-9]\d{0,5}))?$/;

/** The position an event id names, or undefined when it is no id this gateway writes. */
export function parseEventId(text: string): StreamPosition | undefined {
  const m = EVENT_ID.exec(text.trim());
  if (!m) return undefined;
  return { seq: Number(m[1]), ...(m[2] !== undefined && { opening: Number(m[2]) }) };
}

/** An id as an error's `data.lastEventId` carries it: a number for a seq (as always), the text for an opening's `S:k`. */
export const lastEventIdData = (id: string): number | string => (/^\d+$/.test(id) ? Number(id) : id);
