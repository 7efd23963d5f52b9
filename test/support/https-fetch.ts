// Test support: a fetch over node:https that trusts a given CA (a gateway serving TLS with a certificate made in the
// test). Node 20's fetch cannot be given a CA without a package of its own; this speaks the same Request/Response
// shapes, its body streamed, so the tests' JSON-RPC and SSE helpers work unchanged over https.
import { request } from 'node:https';
import { Readable } from 'node:stream';

export function fetchWithCa(ca: string): typeof fetch {
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const headers = Object.fromEntries(new Headers(init?.headers).entries());
      const req = request(url, { method: init?.method ?? 'GET', headers, ca, ...(init?.signal && { signal: init.signal }) }, (res) => {
        const out = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(', ') : v);
        const empty = res.statusCode === 204 || res.statusCode === 304 || init?.method === 'HEAD';
        if (empty) res.resume();
        resolve(new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status: res.statusCode ?? 0, headers: out }));
      });
      req.on('error', reject);
      req.end(typeof init?.body === 'string' ? init.body : undefined);
    });
}
