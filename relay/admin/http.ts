// The admin server's replies: every one carries the security headers (a strict Content-Security-Policy: our own
// scripts and styles only, no inline script, no framing), JSON is never cached, a body read is bounded (413 past it).
import type { IncomingMessage, ServerResponse } from 'node:http';

export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function secure(res: ServerResponse) {
  res.setHeader('content-security-policy', CSP);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('cross-origin-opener-policy', 'same-origin');
  res.setHeader('cross-origin-resource-policy', 'same-origin');
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': type, ...headers });
  res.end(body);
}

/** An error as the API tells it: a code and words. */
export const apiError = (res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  sendJson(res, status, { error: { code, message } }, headers);

/** The request carries a body: a Content-Length other than 0, or a Transfer-Encoding (chunked). */
export const hasBody = (req: IncomingMessage): boolean => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) !== 0;

/** How much of an over-size body is read and dropped, so that a client done uploading reads its 413. */
const DISCARD_BYTES = 64 * 1024;

/**
 * The body, up to `limit` bytes; past it `too_large` (a Content-Length over the limit is refused before any byte is
 * read). An over-size body is read and dropped up to DISCARD_BYTES more, then no further: the 413 then closes the
 * connection (`tooLarge`).
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<{ ok: true; body: string } | { ok: false; why: 'too_large' }> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return { ok: false, why: 'too_large' };
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    const done = (r: { ok: true; body: string } | { ok: false; why: 'too_large' }) => {
      req.off('data', onData).off('end', onEnd).off('error', reject);
      resolve(r);
    };
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > limit) chunks.length = 0;
      else chunks.push(c);
      // not read further (a for-await's break would destroy the socket before the 413 is written)
      if (size > limit + DISCARD_BYTES) {
        req.pause();
        done({ ok: false, why: 'too_large' });
      }
    };
    const onEnd = () => done(size > limit ? { ok: false, why: 'too_large' } : { ok: true, body: Buffer.concat(chunks).toString('utf8') });
    req.on('data', onData).once('end', onEnd).once('error', reject);
  });
}

/** The answer to a body over `limit`, naming it; the connection closes (the rest of the body is never read). */
export const tooLarge = (res: ServerResponse, limit: number) =>
  apiError(res, 413, 'body_too_large', `the request body is over ${limit} bytes, the admin server's bound`, { connection: 'close' });
