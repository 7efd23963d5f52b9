// The relay tunnel's WebSocket route (GET /api/relay): the upgrade is decided by the gateway from the Authorization
// header before anything is upgraded; then frames go in and out as bytes. The gateway owns everything past that.
import type { TemplatedApp, WebSocket } from 'uWebSockets.js';
import type { TunnelApi, TunnelSession } from '../gateway/api.js';
import { MAX_FRAME_BYTES, TUNNEL_PATH } from '../protocol/tunnel.js';
import { addressOf, forwardedForOf, type Proxies } from './peer.js';

interface Data {
  session: TunnelSession;
}

const STATUS_TEXT = { 401: '401 Unauthorized', 403: '403 Forbidden', 429: '429 Too Many Requests', 503: '503 Service Unavailable' } as const;
const ERROR_CODE = { 401: 'unauthorized', 403: 'forbidden', 429: 'rate_limited', 503: 'store_unavailable' } as const;

export function serveTunnel(
  app: TemplatedApp,
  o: { tunnel: TunnelApi; log?: (msg: string, fields?: Record<string, unknown>) => void; proxies?: Proxies },
): void {
  app.ws<Data>(TUNNEL_PATH, {
    compression: 0,
    // a little past the bound, so the gateway sees a frame just over it and says why it refuses it; uWS cuts off
    // anything larger on its own
    maxPayloadLength: MAX_FRAME_BYTES + 64 * 1024,
    // liveness is the gateway's (ping every 15 s, 45 s without an answer ends it); this is only a backstop
    idleTimeout: 120,
    sendPingsAutomatically: false,
    maxBackpressure: 16 * 1024 * 1024,
    upgrade: (res, req, context) => {
      // everything from req is copied now: req is gone after the first await
      const authorization = req.getHeader('authorization') || undefined;
      const wsKey = req.getHeader('sec-websocket-key');
      const wsProtocol = req.getHeader('sec-websocket-protocol');
      const wsExtensions = req.getHeader('sec-websocket-extensions');
      const address = addressOf(res, forwardedForOf(req, o.proxies), o.proxies);
      let aborted = false;
      res.onAborted(() => {
        aborted = true;
      });
      void o.tunnel
        .open({ authorization, address })
        .then((r) => {
          if (aborted) {
            if (r.ok) r.session.closed(1006);
            return;
          }
          res.cork(() => {
            if (!r.ok) {
              res.writeStatus(STATUS_TEXT[r.status]).writeHeader('Content-Type', 'application/json');
              // a 429 says nothing of the key it refused, a 503 judged no key: no challenge, only when to come back
              if (r.status === 429 || r.status === 503) for (const [name, value] of Object.entries(r.headers)) res.writeHeader(name, value);
              else res.writeHeader('WWW-Authenticate', 'Bearer');
              res.end(JSON.stringify({ error: ERROR_CODE[r.status], message: r.message }), true);
              return;
            }
            res.upgrade<Data>({ session: r.session }, wsKey, wsProtocol, wsExtensions, context);
          });
        })
        .catch((e: unknown) => {
          o.log?.('relay tunnel upgrade failed', { error: e instanceof Error ? e.message : String(e) });
          if (!aborted) res.cork(() => res.writeStatus('500 Internal Server Error').end('', true));
        });
    },
    open: (ws: WebSocket<Data>) => {
      let open = true;
      ws.getUserData().session.attach({
        send: (bytes) => open && ws.send(bytes, true) !== 2,
        ping: () => {
          if (open) ws.ping();
        },
        buffered: () => (open ? ws.getBufferedAmount() : 0),
        close: (code, reason) => {
          if (!open) return;
          open = false;
          ws.end(code, reason);
        },
      });
      // the session's socket must go dead the moment uWS closes it: keep that on the user data
      (ws.getUserData() as Data & { gone?: () => void }).gone = () => {
        open = false;
      };
    },
    // the ArrayBuffer is neutered when this returns: the session gets a copy
    message: (ws, message, isBinary) => ws.getUserData().session.message(new Uint8Array(message.slice(0)), isBinary),
    pong: (ws) => ws.getUserData().session.pong(),
    close: (ws, code) => {
      const d = ws.getUserData() as Data & { gone?: () => void };
      d.gone?.();
      d.session.closed(code);
    },
  });
}
