// The admin server's replies: every one carries the security headers (a strict Content-Security-Policy: our own
// scripts and styles only, no inline script, no framing), JSON is never cached, a body read is bounded.
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

/** The body, up to `limit` bytes (undefined past it). */
export async function readBody(req: IncomingMessage, limit = 4096): Promise<string | undefined> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > limit) return undefined;
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}
