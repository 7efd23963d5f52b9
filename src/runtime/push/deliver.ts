// One webhook attempt: a POST through the SSRF-guarded lookup, no redirects followed, bounded by a timeout; the answer
// is the status line (no response body is read).
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Timers } from '../clock.js';
import { checkUrlStatic, guardedLookup, type Allowlist, type Resolve } from '../net/guard.js';

/** What the SSRF guard calls a webhook URL in its refusals: "push URL refused: ...". */
export const PUSH_URL = 'push URL';

export type DeliveryOutcome =
  /** 2xx */
  | { kind: 'delivered'; status: number }
  /** 410 Gone: the receiver wants no more; the config is disabled */
  | { kind: 'gone'; status: 410 }
  /** anything else (3xx included: redirects are not followed), a refused address, a network error, a timeout */
  | { kind: 'failed'; status?: number; reason: string };

export interface DeliveryRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowlist: Allowlist;
  resolve: Resolve;
  /** the timeout runs on these (injected, so tests move time by hand) */
  timers: Timers;
  /** aborts the attempt (the worker stopping) */
  signal?: AbortSignal;
}

export function deliverOnce(r: DeliveryRequest): Promise<DeliveryOutcome> {
  // an IP literal is never looked up, so the guarded lookup would not see it: check it here
  const pre = checkUrlStatic(r.url, { allowlist: r.allowlist, what: PUSH_URL });
  if (!pre.ok) return Promise.resolve({ kind: 'failed', reason: pre.refusal.message });
  const url = pre.url;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const body = Buffer.from(r.body, 'utf8');

  return new Promise<DeliveryOutcome>((resolve) => {
    let settled = false;
    let req: ClientRequest | undefined;
    const cancelTimer = r.timers.after(r.timeoutMs, () => finish({ kind: 'failed', reason: `no answer within ${r.timeoutMs} ms` }));
    const onAbort = () => finish({ kind: 'failed', reason: 'aborted: the worker is stopping' });
    function finish(o: DeliveryOutcome): void {
      if (settled) return;
      settled = true;
      cancelTimer();
      r.signal?.removeEventListener('abort', onAbort);
      req?.destroy();
      resolve(o);
    }
    if (r.signal?.aborted) return finish({ kind: 'failed', reason: 'aborted: the worker is stopping' });
    r.signal?.addEventListener('abort', onAbort, { once: true });

    req = send(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(body.length), 'user-agent': 'a2a-gateway-webhooks/1', ...r.headers },
      lookup: guardedLookup({ allowlist: r.allowlist, resolve: r.resolve, what: PUSH_URL }),
      // a fresh connection per attempt: each one goes through the guarded lookup
      agent: false,
    });
    req.on('error', (err: NodeJS.ErrnoException) => finish({ kind: 'failed', reason: err.code ? `${err.code}: ${err.message}` : err.message }));
    // the status line is the receiver's answer: a body it is slow to send (or never ends) neither turns a 2xx into a
    // timeout, which would deliver the same update again on every retry, nor holds the connection; finish drops it
    req.on('response', (res: IncomingMessage) => finish(outcomeOf(res.statusCode ?? 0)));
    req.end(body);
  });
}

function outcomeOf(status: number): DeliveryOutcome {
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  if (status === 410) return { kind: 'gone', status: 410 };
  if (status >= 300 && status < 400) return { kind: 'failed', status, reason: `HTTP ${status} (redirects are not followed)` };
  return { kind: 'failed', status, reason: `HTTP ${status}` };
}
