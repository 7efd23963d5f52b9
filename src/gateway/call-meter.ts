// Per-call bookkeeping around the pipeline: the request id a call is known by, its outcome's name, and SSE streams counted
// while they are open.
import { randomBytes } from 'node:crypto';
import type { RpcResponse } from '../protocol/envelope.js';
import type { GatewayMetrics } from '../runtime/metrics/metrics.js';
import type { SseSink, StreamReply } from './api.js';

/** A caller's own id is kept when it is a plain token (it ends up in logs and a header); anything else is replaced. */
const SANE_ID = /^[A-Za-z0-9._:-]{1,64}$/;

// ids are this process's prefix and a counter: unique per process, no random draw per call on the hot path
const prefix = randomBytes(4).toString('hex');
let counter = 0;

export function requestIdOf(given: string | undefined): string {
  if (given !== undefined && SANE_ID.test(given)) return given;
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${prefix}-${counter.toString(36)}`;
}

/** `ok`, or the error's reason from the catalogue (a bounded set: it labels a metric). */
export function outcomeOf(response: RpcResponse): string {
  if (!('error' in response)) return 'ok';
  // the revisions carry the reason in `data.reason`; 1.0 in the ErrorInfo that leads its `data` array (without this a
  // 1.0 caller's errors were labelled by their number, e.g. `-32009`, apart from the same errors of the revisions)
  const data: unknown = response.error.data;
  const holder = Array.isArray(data) ? data[0] : data;
  const reason = (holder as { reason?: unknown } | undefined)?.reason;
  return typeof reason === 'string' ? reason : String(response.error.code);
}

/** Calls `ended` once when the stream ends, by itself or because the client went away. */
export function onStreamEnd(start: StreamReply['start'], ended: () => void): StreamReply['start'] {
  return (sink: SseSink) => {
    let open = true;
    const close = () => {
      if (!open) return;
      open = false;
      ended();
    };
    const stop = start({
      event: (ev) => sink.event(ev),
      sharedEvent: (ev, own) => sink.sharedEvent(ev, own),
      comment: (text) => sink.comment(text),
      backlog: () => sink.backlog(),
      drained: () => sink.drained(),
      end: (last) => {
        close();
        sink.end(last);
      },
    });
    return () => {
      close();
      stop();
    };
  };
}

/** Counts the stream open from its start until it ends (once either way). */
export function meteredStream(metrics: GatewayMetrics, start: StreamReply['start']): StreamReply['start'] {
  const counted = onStreamEnd(start, () => metrics.streams(-1));
  return (sink: SseSink) => {
    metrics.streams(1);
    return counted(sink);
  };
}
