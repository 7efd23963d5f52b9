// When a live stream's reader has fallen too far behind and its stream is cut: one rule for the gateway's SSE streams
// (src/transport/sse.ts, on uWS) and the relay admin UI's (relay/admin/live-streams.ts, on node:http). Each writer
// measures what it holds unsent in its own terms; this says when that is too much. Pure, so both may import it
// (relay/ never imports src/transport).

/** Bytes a reader may leave unsent by default: the gateway's `streaming.maxBufferedBytes`, the relay admin UI's bound. */
export const MAX_UNREAD_BYTES = 1024 * 1024;

export interface Unread {
  /** bytes written for the reader and not yet taken by its socket, as the writer counts them */
  unsent: number;
  /** the bound (`MAX_UNREAD_BYTES` unless configured) */
  bound: number;
  /**
   * bytes of one write the writer counts in `unsent` but a socket holds anyway, not counted against the bound: the
   * bound is "plus one event", so one event larger than it does not cut a reader that reads. uWS holds that write
   * itself, outside the gateway's count (0 there); node:http counts it, so the relay passes its largest single write.
   */
  inFlight?: number;
}

/** Whether the reader has fallen too far behind: what waits unsent for it is past the bound plus one event. */
export const fallenBehind = (u: Unread): boolean => u.unsent - (u.inFlight ?? 0) > u.bound;
