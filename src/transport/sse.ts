// The SSE writer: one framing function, backpressure-aware writes with a per-stream byte bound, clean ends.
import type { HttpResponse } from 'uWebSockets.js';
import type { SharedSseEvent, SseEvent, SseSink, StreamReply } from '../gateway/api.js';
import { fallenBehind } from '../protocol/stream-lag.js';
import { statusLine, type ResponseState } from './http-response.js';

/** The `id:` line (when there is an id) and the start of the `data:` line; `id` must not carry CR or LF (it would split the frame). */
function framePrefix(id: string | undefined): string {
  if (id === undefined) return 'data: ';
  if (id.includes('\n') || id.includes('\r')) throw new Error('SSE id must not contain CR or LF');
  return `id: ${id}\ndata: `;
}

/**
 * Frames one event. `data` is serialized JSON, one line by construction (JSON.stringify escapes every CR and LF):
 * scanning it again for each subscriber of a fan-out cost more than the rest of the framing.
 */
export function frameEvent(ev: SseEvent): string {
  return `${framePrefix(ev.id)}${ev.data}\n\n`;
}

/**
 * A shared event's frame before and after a stream's own part, as bytes, made once for all the streams it goes to: a
 * fan-out then copies bytes per stream instead of building and encoding each stream's text anew (most of its cost).
 */
const sharedFrames = new WeakMap<SharedSseEvent, { head: Buffer; tail: Buffer }>();
function sharedFrame(ev: SharedSseEvent): { head: Buffer; tail: Buffer } {
  let f = sharedFrames.get(ev);
  if (!f) sharedFrames.set(ev, (f = { head: Buffer.from(framePrefix(ev.id) + ev.head), tail: Buffer.from(`${ev.tail}\n\n`) }));
  return f;
}

export interface SseLimits {
  /** bytes a slow reader may leave unsent (ours, past what uWS holds) before its stream is closed */
  maxBufferedBytes: number;
}

/**
 * Streams with output written this tick, flushed together once the tick's I/O is done: the events a task's store
 * commit releases reach each subscriber as one write (one syscall) instead of one each.
 */
const dirty = new Set<() => void>();
let flushScheduled = false;
const flushDirty = () => {
  flushScheduled = false;
  const fns = [...dirty];
  dirty.clear();
  for (const fn of fns) fn();
};
const scheduleFlush = (fn: () => void) => {
  dirty.add(fn);
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushDirty);
  }
};
/** output held for the tick is written at once past this size (a replay must not build one huge write) */
const MAX_HELD_BYTES = 64 * 1024;

export function startSse(res: HttpResponse, state: ResponseState, reply: StreamReply, limits: SseLimits): void {
  if (state.aborted) {
    reply.abandon?.();
    return;
  }
  const queue: Buffer[] = [];
  let queuedBytes = 0;
  let waiting = false; // uWS holds unsent bytes: queue ours until onWritable
  let ended = false;

  const writeOne = (b: Buffer | string) => {
    // false: uWS buffered the chunk and the socket is full; wait for onWritable
    if (!res.write(b)) waiting = true;
  };
  const drain = () => {
    while (queue.length > 0 && !waiting) {
      const b = queue.shift()!;
      queuedBytes -= b.length;
      writeOne(b);
    }
  };
  // what this tick wrote while the socket took everything so far: one write at the end of the tick
  let held: Buffer[] = [];
  let heldBytes = 0;
  /** whether flushHeld waits in `dirty` (a fan-out puts many events per tick: one Set lookup per tick, not per event) */
  let scheduled = false;
  const takeHeld = (): Buffer | undefined => {
    const list = held;
    const n = heldBytes;
    held = [];
    heldBytes = 0;
    return n === 0 ? undefined : list.length === 1 ? list[0]! : Buffer.concat(list, n);
  };
  const flushHeld = () => {
    dirty.delete(flushHeld);
    scheduled = false;
    const b = takeHeld();
    if (b && !state.aborted && !ended) res.cork(() => writeOne(b));
  };
  /** `pieces` go out together, in order, as one event (or comment) */
  const put = (pieces: readonly Buffer[]): boolean => {
    if (state.aborted || ended) return false;
    if (!waiting && queue.length === 0) {
      for (const b of pieces) {
        held.push(b);
        heldBytes += b.length;
      }
      if (heldBytes >= MAX_HELD_BYTES) flushHeld();
      else if (!scheduled) {
        scheduled = true;
        scheduleFlush(flushHeld);
      }
      return true;
    }
    const b = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
    queue.push(b);
    queuedBytes += b.length;
    // uWS holds the write that filled the socket itself, outside `queuedBytes`: the one event on top of the bound
    return !fallenBehind({ unsent: queuedBytes, bound: limits.maxBufferedBytes });
  };
  // a stream's own part of shared events is the same text every time: encoded once
  let ownText: string | undefined;
  let ownBytes = Buffer.alloc(0);

  res.cork(() => {
    res.writeStatus(statusLine(200));
    for (const k in reply.headers) res.writeHeader(k, reply.headers[k]!);
    // an initial comment sends the headers now, so the client sees the stream open at once
    writeOne(': stream open\n\n');
  });
  const drainWaiters: Array<() => void> = [];
  res.onWritable(() => {
    waiting = false;
    res.cork(drain);
    if (queue.length === 0 && !waiting) for (const w of drainWaiters.splice(0)) w();
    return !waiting;
  });

  const sink: SseSink = {
    event: (ev) => put([Buffer.from(frameEvent(ev))]),
    sharedEvent: (ev, own) => {
      if (own !== ownText) {
        ownText = own;
        ownBytes = Buffer.from(own);
      }
      const f = sharedFrame(ev);
      return put([f.head, ownBytes, f.tail]);
    },
    comment: (text) => void put([Buffer.from(`: ${text.replace(/[\r\n]/g, ' ')}\n\n`)]),
    backlog: () => queuedBytes,
    drained: () => (queue.length === 0 && !waiting ? Promise.resolve() : new Promise<void>((res) => drainWaiters.push(res))),
    end: (last) => {
      if (ended || state.aborted) return;
      ended = true;
      dirty.delete(flushHeld);
      res.cork(() => {
        const rest = takeHeld();
        if (rest) res.write(rest);
        // what is queued is at most the bound plus one event: hand it all to uWS, so the client
        // gets every event up to the cut without a gap, then the closing one
        for (const s of queue) res.write(s);
        queue.length = 0;
        queuedBytes = 0;
        if (last) res.write(frameEvent(last));
        res.end();
      });
      state.aborted = true;
    },
  };
  const stop = reply.start(sink);
  state.onAbort.push(() => {
    dirty.delete(flushHeld);
    held = [];
    heldBytes = 0;
    for (const w of drainWaiters.splice(0)) w();
    stop();
  });
}
