// Reads a request body with a byte limit enforced as the bytes arrive (and from Content-Length before any arrive), and a
// deadline for the whole body.
import type { HttpResponse } from 'uWebSockets.js';
import type { ResponseState } from './http-response.js';

/**
 * `drained`: the whole over-size body was read (and dropped), so the 413 can go out on a connection the client is
 * reading; otherwise the body was past the discard bound and the connection is closed after the answer.
 */
export type BodyResult = { ok: true; body: Buffer } | { ok: false; why: 'too_large'; drained: boolean } | { ok: false; why: 'timeout' };

/** The runtime's injected timers, by shape (the transport imports nothing of the runtime). */
export interface BodyTimers {
  after(ms: number, fn: () => void): () => void;
}

/**
 * The whole body must arrive within `ms` of the headers. uWS closes a connection idle for about 10 s, but a client
 * that keeps trickling (uWS asks 16 KB/s) could hold a body read, and its buffer, for minutes.
 */
export interface BodyDeadline {
  ms: number;
  timers: BodyTimers;
}

/** How much of an over-size body is read and dropped so that the client, done uploading, reads the 413. */
export const discardBoundOf = (limit: number): number => Math.max(limit * 4, 16 * 1024 * 1024);

/**
 * Call synchronously inside the route handler (uWS delivers data only to handlers attached then).
 * `declaredLength` is the Content-Length header read from `req` before any await.
 */
export function readBody(
  res: HttpResponse,
  o: { limit: number; declaredLength: number | undefined; deadline: BodyDeadline; state: ResponseState },
): Promise<BodyResult> {
  const bound = discardBoundOf(o.limit);
  // a client that announces more than we would ever read gets its answer at once (and the connection closes)
  if (o.declaredLength !== undefined && o.declaredLength > bound) return Promise.resolve({ ok: false, why: 'too_large', drained: false });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    // past the limit the rest is read and dropped: answering (and closing) mid-upload makes most clients fail
    // with a broken pipe before they read the 413
    let discarding = o.declaredLength !== undefined && o.declaredLength > o.limit;
    const cancel = o.deadline.timers.after(o.deadline.ms, () => {
      if (done) return;
      done = true;
      chunks.length = 0;
      resolve({ ok: false, why: 'timeout' });
    });
    // a client gone mid-body: its timer and what it sent go at once, not when the deadline passes
    o.state.onAbort.push(() => {
      done = true;
      chunks.length = 0;
      cancel();
    });
    res.onData((chunk, isLast) => {
      if (done) return;
      size += chunk.byteLength;
      if (size > o.limit) {
        discarding = true;
        chunks.length = 0;
      }
      if (discarding) {
        if (isLast || size > bound) {
          done = true;
          cancel();
          resolve({ ok: false, why: 'too_large', drained: isLast });
        }
        return;
      }
      // uWS reuses the chunk's memory after this callback returns: copy it
      chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) {
        done = true;
        cancel();
        resolve({ ok: true, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
      }
    });
  });
}
