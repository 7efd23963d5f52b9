// Wrappers that count what passes through a part without the part knowing: outbound calls by outcome.
import type { ConnectionCalls } from '../agents/outbound-calls.js';
import type { GatewayMetrics } from './metrics.js';

/** An error's stable code (OutboundError and friends), else `error`: a bounded label. */
const codeOf = (e: unknown): string => {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[a-z_]{1,40}$/.test(code) ? code : 'error';
};

export function meteredCalls(calls: ConnectionCalls, metrics: GatewayMetrics): ConnectionCalls {
  return {
    call: async (c) => {
      try {
        const r = await calls.call(c);
        metrics.outboundCall('ok');
        return r;
      } catch (e) {
        metrics.outboundCall(codeOf(e));
        throw e;
      }
    },
  };
}
