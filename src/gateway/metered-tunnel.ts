// The relay tunnel endpoint with a count of open tunnels: +1 when the transport attaches a socket, -1 when it closes.
import type { GatewayMetrics } from '../runtime/metrics/metrics.js';
import type { TunnelApi } from './api.js';

export function meteredTunnel(tunnel: TunnelApi, metrics: GatewayMetrics): TunnelApi {
  return {
    async open(req) {
      const r = await tunnel.open(req);
      if (!r.ok) return r;
      const s = r.session;
      let open = false;
      return {
        ok: true,
        session: {
          attach(socket) {
            if (!open) metrics.tunnels(1);
            open = true;
            s.attach(socket);
          },
          message: (bytes, binary) => s.message(bytes, binary),
          pong: () => s.pong(),
          closed(code) {
            if (open) metrics.tunnels(-1);
            open = false;
            s.closed(code);
          },
        },
      };
    },
  };
}
