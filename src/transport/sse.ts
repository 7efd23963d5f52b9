// The SSE writer: one framing function, backpressure-aware writes with a per-stream byte bound, clean ends.
import type { HttpResponse } from 'uWebSockets.js';
import type { SseEvent, SseSink, StreamReply } from '../gateway/api.js';
import { fallenBehind } from '../protocol/stream-lag.js';
import { statusLine, type ResponseState } from './http-response.js';

/**
 * Frames one event; `id` must not carry CR or LF (it would split the frame). `data` is serialized JSON, one line by
 * construction (JSON.stringify escapes every CR and LF): scanning it again for each subscriber of a fan-out cost more
 * than the rest of the framing.
 */
export function frameEvent(ev: SseEvent): string {
  if (ev.id !== undefined && /[\r\n]/.test(ev.id)) throw new Error('SSE id must not contain CR or LF');
  return `${ev.id !== undefined ? `id: ${ev.id}\n` : ''}data: ${ev.data}\n\n`;
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
const MAX_HELD_CHARS = 64 * 1024;

export function startSse(res: HttpResponse, state: ResponseState, reply: StreamReply, limits: SseLimits): void {
  if (state.aborted) {
    reply.abandon?.();
    return;
  }
  const queue: string[] = [];
  let queuedBytes = 0;
  let waiting = false; // uWS holds unsent bytes: queue ours until onWritable
  let ended = false;

  const writeOne = (s: string) => {
    // false: uWS buffered the chunk and the socket is full; wait for onWritable
    if (!res.write(s)) waiting = true;
  };
  const drain = () => {
    while (queue.length > 0 && !waiting) {
      const s = queue.shift()!;
      queuedBytes -= Buffer.byteLength(s);
      writeOne(s);
    }
  };
  // what this tick wrote while the socket took everything so far: one write at the end of the tick
  let held = '';
  const flushHeld = () => {
    dirty.delete(flushHeld);
    const s = held;
    held = '';
    if (s && !state.aborted && !ended) res.cork(() => writeOne(s));
  };
  const put = (s: string): boolean => {
    if (state.aborted || ended) return false;
    if (!waiting && queue.length === 0) {
      held += s;
      if (held.length >= MAX_HELD_CHARS) flushHeld();
      else scheduleFlush(flushHeld);
      return true;
    }
    queue.push(s);
    queuedBytes += Buffer.byteLength(s);
    // uWS holds the write that filled the socket itself, outside `queuedBytes`: the one event on top of the bound
    return !fallenBehind({ unsent: queuedBytes, bound: limits.maxBufferedBytes });
  };

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
    event: (ev) => put(frameEvent(ev)),
    comment: (text) => void put(`: ${text.replace(/[\r\n]/g, ' ')}\n\n`),
    backlog: () => queuedBytes,
    drained: () => (queue.length === 0 && !waiting ? Promise.resolve() : new Promise<void>((res) => drainWaiters.push(res))),
    end: (last) => {
      if (ended || state.aborted) return;
      ended = true;
      dirty.delete(flushHeld);
      res.cork(() => {
        if (held) res.write(held);
        held = '';
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
    held = '';
    for (const w of drainWaiters.splice(0)) w();
    stop();
  });
}
