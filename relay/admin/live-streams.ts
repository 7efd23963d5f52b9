// The admin UI's live streams (/api/events): which are open and whose, bounded in number (per holder, and in all) and
// in what each may leave unread. A holder is a sign-in session, or a client address where there is none (HTTP Basic,
// no password). The gateway's SSE writer (src/transport/sse.ts) is uWS and out of the relay's reach (relay/ never
// imports src/transport); this writer on node:http cuts a reader by the same rule (src/protocol/stream-lag.ts).
import type { ServerResponse } from 'node:http';
import { fallenBehind, MAX_UNREAD_BYTES } from '../../src/protocol/stream-lag.js';

export interface LiveStreamLimits {
  /** streams open at once, all holders together */
  maxStreams: number;
  /** streams one holder (session, or client address) may hold open at once */
  maxStreamsPerHolder: number;
  /** bytes a stream may leave unsent (past what the kernel took, and past its largest single write) before it is cut off */
  maxBufferedBytes: number;
}

/**
 * A browser opens at most 6 connections to one host (HTTP/1.1), so 16 per holder never stops a real operator's tabs;
 * 64 in all is many operators. 1 MiB unread is the gateway's own SSE bound (`streaming.maxBufferedBytes`).
 */
export const LIVE_STREAM_DEFAULTS: LiveStreamLimits = { maxStreams: 64, maxStreamsPerHolder: 16, maxBufferedBytes: MAX_UNREAD_BYTES };

/** Why a stream was not opened: the HTTP status, a code and words for the API's error shape. */
export type Refusal = { status: 429 | 503; code: string; message: string };

interface Stream {
  holder: string;
  /** the session it was opened under (sign-out ends it), if any */
  session: string | undefined;
}

interface OpenStream extends Stream {
  /** its largest single write: the bound is on top of it (the reader's socket holds one such write unsent) */
  largest: number;
  /** what it is being sent piece by piece as it reads (`trickle`): the next piece, undefined when done */
  next: (() => string | undefined) | undefined;
}

/** Pieces of a trickle are written while less than this waits unsent: a reader gets them as fast as it reads. */
const TRICKLE_LOW_WATER = 64 * 1024;

export class LiveStreams {
  private readonly open = new Map<ServerResponse, OpenStream>();
  private readonly perHolder = new Map<string, number>();
  readonly limits: LiveStreamLimits;

  private readonly onCut: (() => void) | undefined;

  constructor(limits: Partial<LiveStreamLimits> = {}, o: { onCut?: () => void } = {}) {
    this.limits = { ...LIVE_STREAM_DEFAULTS, ...limits };
    this.onCut = o.onCut;
  }

  /** Whether one more stream may open for `holder`; a refusal says which bound it met. */
  refusal(holder: string): Refusal | undefined {
    const l = this.limits;
    if ((this.perHolder.get(holder) ?? 0) >= l.maxStreamsPerHolder)
      return {
        status: 429,
        code: 'too_many_streams',
        message: `this session (or client) already holds ${l.maxStreamsPerHolder} live streams, the limit: close a page of the admin UI first`,
      };
    if (this.open.size >= l.maxStreams)
      return { status: 503, code: 'streams_full', message: `the admin UI already serves ${l.maxStreams} live streams, its limit: retry once one closes` };
    return undefined;
  }

  /** Counts `res` as open until it closes (the client went away, or it was ended or cut off here). */
  add(res: ServerResponse, s: Stream) {
    this.open.set(res, { ...s, largest: 0, next: undefined });
    res.on('drain', () => this.pump(res));
    this.perHolder.set(s.holder, (this.perHolder.get(s.holder) ?? 0) + 1);
    res.once('close', () => {
      if (!this.open.delete(res)) return;
      const n = (this.perHolder.get(s.holder) ?? 1) - 1;
      if (n > 0) this.perHolder.set(s.holder, n);
      else this.perHolder.delete(s.holder);
    });
  }

  /**
   * Writes `text` to one open stream. A reader that stopped reading leaves it queued in this process: past the bound
   * (plus the stream's largest single write, as the gateway's bound is "plus one event") the stream is destroyed, not
   * ended (an end would wait for the queue to drain, holding it). A page's EventSource then reconnects and starts
   * again from a fresh snapshot.
   */
  write(res: ServerResponse, text: string) {
    const s = this.open.get(res);
    if (!s || res.destroyed || res.writableEnded) return;
    s.largest = Math.max(s.largest, Buffer.byteLength(text));
    res.write(text);
    // node counts the write its socket holds in writableLength: the largest one is the event on top of the bound
    if (fallenBehind({ unsent: res.writableLength, bound: this.limits.maxBufferedBytes, inFlight: s.largest })) {
      res.destroy();
      this.onCut?.();
    }
  }

  /**
   * Sends one stream `next()`'s pieces as it reads them (a few at a time while little waits unsent, the rest as its
   * socket drains), until `next` answers undefined: a bulk of many small events never waits in memory for a reader,
   * and never counts against the bound. A later trickle on the same stream replaces this one.
   */
  trickle(res: ServerResponse, next: () => string | undefined) {
    const s = this.open.get(res);
    if (!s) return;
    s.next = next;
    this.pump(res);
  }

  private pump(res: ServerResponse) {
    const s = this.open.get(res);
    while (s?.next && !res.destroyed && !res.writableEnded && res.writableLength < TRICKLE_LOW_WATER) {
      const piece = s.next();
      if (piece === undefined) s.next = undefined;
      else this.write(res, piece);
    }
  }

  /** Writes `text` to every open stream. */
  broadcast(text: string) {
    for (const res of this.open.keys()) this.write(res, text);
  }

  /** The open streams. */
  all(): ServerResponse[] {
    return [...this.open.keys()];
  }

  /** Ends the streams opened under `session` (its sign-out). */
  endSession(session: string) {
    for (const [res, s] of this.open) if (s.session === session) res.end();
  }

  /** Ends every stream (shutdown). */
  endAll() {
    for (const res of this.open.keys()) res.end();
  }

  get size(): number {
    return this.open.size;
  }
}
