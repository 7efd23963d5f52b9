// The SSE writer: one framing function, backpressure-aware writes, pings and clean ends on a uWS response.
import type { HttpResponse } from 'uWebSockets.js';
import type { SseEvent, SseSink, StreamReply } from '../gateway/api.js';
import { statusLine, type ResponseState } from './http-response.js';

/** Frames one event; `id` must not carry CR or LF (it would split the frame). */
export function frameEvent(ev: SseEvent): string {
  if (ev.id !== undefined && /[\r\n]/.test(ev.id)) throw new Error('SSE id must not contain CR or LF');
  const data = ev.data.replace(/\r\n|\r|\n/g, '\ndata: ');
  return `${ev.id !== undefined ? `id: ${ev.id}\n` : ''}data: ${data}\n\n`;
}

export interface SseLimits {
  /** bytes a slow reader may leave unsent before its stream is closed */
  maxBufferedBytes: number;
}

export function startSse(res: HttpResponse, state: ResponseState, reply: StreamReply, limits: SseLimits = { maxBufferedBytes: 1 << 20 }): void {
  if (state.aborted) return;
  let pending: string[] = [];
  let pendingBytes = 0;
  let ended = false;

  const flush = (): boolean => {
    while (pending.length > 0) {
      const chunk = pending[0]!;
      if (!res.write(chunk)) {
        // uWS took it into its own buffer; wait for onWritable before writing more
        pending.shift();
        pendingBytes -= Buffer.byteLength(chunk);
        return false;
      }
      pending.shift();
      pendingBytes -= Buffer.byteLength(chunk);
    }
    return true;
  };

  const write = (s: string): boolean => {
    if (state.aborted || ended) return false;
    if (pending.length > 0 || res.getWriteOffset() - res.getWriteOffset() > 0) {
      pending.push(s);
      pendingBytes += Buffer.byteLength(s);
      return pendingBytes <= limits.maxBufferedBytes;
    }
    let ok = true;
    res.cork(() => {
      ok = res.write(s);
    });
    return ok || pendingBytes <= limits.maxBufferedBytes;
  };

  res.cork(() => {
    res.writeStatus(statusLine(200));
    for (const k in reply.headers) res.writeHeader(k, reply.headers[k]!);
  });
  res.onWritable(() => {
    let ok = true;
    res.cork(() => {
      ok = flush();
    });
    return ok;
  });

  const sink: SseSink = {
    event: (ev) => write(frameEvent(ev)),
    comment: (text) => void write(`: ${text.replace(/[\r\n]/g, ' ')}\n\n`),
    end: () => {
      if (ended || state.aborted) return;
      ended = true;
      res.cork(() => res.end());
      state.aborted = true;
    },
  };
  const stop = reply.start(sink);
  res.onAborted(() => stop());
  pending = [];
}
