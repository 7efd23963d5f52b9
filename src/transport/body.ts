// Reads a request body with a byte limit enforced as the bytes arrive (and from Content-Length before any arrive).
import type { HttpResponse } from 'uWebSockets.js';

export type BodyResult = { ok: true; body: Buffer } | { ok: false; why: 'too_large' };

/**
 * Call synchronously inside the route handler (uWS delivers data only to handlers attached then).
 * `declaredLength` is the Content-Length header read from `req` before any await.
 */
export function readBody(res: HttpResponse, o: { limit: number; declaredLength: number | undefined }): Promise<BodyResult> {
  if (o.declaredLength !== undefined && o.declaredLength > o.limit) return Promise.resolve({ ok: false, why: 'too_large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    res.onData((chunk, isLast) => {
      if (done) return;
      size += chunk.byteLength;
      if (size > o.limit) {
        done = true;
        resolve({ ok: false, why: 'too_large' });
        return;
      }
      // uWS reuses the chunk's memory after this callback returns: copy it
      chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) {
        done = true;
        resolve({ ok: true, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
      }
    });
  });
}
