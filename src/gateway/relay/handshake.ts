// A tunnel from its upgrade to its hello: every frame is binary, within the size bound and decodable; the first one is
// a hello, within HELLO_WITHIN_MS; health frames that arrive while the hello is being registered wait for the live
// session (a bounded few), and from then on every frame goes to it. Registering the hello is the hub's (`greet`); breaking the rules here is a
// logged refusal that closes the socket.
import { MAX_FRAME_BYTES, type RelayFrame } from '../../protocol/tunnel.js';
import type { Timers } from '../../runtime/clock.js';
import { errorText } from '../../runtime/log.js';
import type { TunnelSession as TransportSession, TunnelSocket } from '../api.js';
import { encodeFrame, decodeFrame } from './frames.js';
import { CLOSE, MAX_TUNNEL_BACKLOG, type TunnelSession } from './tunnel-session.js';

/** A relay that has not said hello within this long after the upgrade is disconnected. */
export const HELLO_WITHIN_MS = 10_000;
/**
 * The most frames (and bytes, MAX_TUNNEL_BACKLOG) a relay may send between its hello and the welcome: they are held
 * until the hello is stored, and a relay has nothing to say then but its agents' health (no turn was given yet).
 */
export const MAX_EARLY_FRAMES = 100;

export type Hello = Extract<RelayFrame, { t: 'hello' }>;

export interface HandshakeDeps {
  who: { workspace: string; relay: string };
  timers: Timers;
  log: (msg: string, fields?: Record<string, unknown>) => void;
  /**
   * Registers the hello and starts the live session (the welcome sent); resolves with it, or with undefined when the
   * hello was refused (greet closed the socket) or the socket went meanwhile (`gone()`).
   */
  greet: (o: { hello: Hello; socket: TunnelSocket; gone: () => boolean }) => Promise<TunnelSession | undefined>;
}

export function handshakeSession(d: HandshakeDeps): TransportSession {
  let socket: TunnelSocket | undefined;
  let live: TunnelSession | undefined;
  let state: 'waiting' | 'greeting' | 'live' | 'gone' = 'waiting';
  const early: RelayFrame[] = [];
  let earlyBytes = 0;
  let stopHelloTimer: (() => void) | undefined;

  const refuse = (why: string, code: number = CLOSE.protocol) => {
    d.log('relay disconnected: protocol broken', { ...d.who, why });
    socket?.send(encodeFrame({ t: 'error', message: why.slice(0, 500) }));
    if (live) return live.end(why, { code, reason: why });
    state = 'gone';
    stopHelloTimer?.();
    socket?.close(code, why.slice(0, 120));
  };

  const greet = async (hello: Hello, sock: TunnelSocket) => {
    state = 'greeting';
    stopHelloTimer?.();
    const s = await d.greet({ hello, socket: sock, gone: () => state === 'gone' });
    if (!s) {
      state = 'gone';
      return;
    }
    live = s;
    state = 'live';
    for (const f of early.splice(0)) {
      const broke = s.handle(f);
      if (broke) return refuse(broke);
    }
  };

  return {
    attach: (sock) => {
      socket = sock;
      stopHelloTimer = d.timers.after(HELLO_WITHIN_MS, () => {
        if (state === 'waiting') refuse(`no hello within ${HELLO_WITHIN_MS} ms`);
      });
    },
    message: (bytes, binary) => {
      if (state === 'gone') return;
      live?.seen();
      if (!binary) return refuse('a text frame (frames are binary msgpack)');
      if (bytes.byteLength > MAX_FRAME_BYTES) return refuse(`a frame of ${bytes.byteLength} bytes (the bound is ${MAX_FRAME_BYTES})`, CLOSE.tooBig);
      const r = decodeFrame(bytes);
      if (!r.ok) return refuse(r.why);
      const f = r.frame;
      if (state === 'waiting') {
        if (f.t !== 'hello') return refuse(`a ${f.t} frame before hello`);
        if (!socket) return refuse('a frame before the socket was attached');
        void greet(f, socket).catch((e: unknown) => refuse(`hello failed: ${errorText(e)}`));
        return;
      }
      if (state === 'greeting') {
        if (f.t === 'hello') return refuse('a second hello');
        // no stream is given before the welcome: a frame of one is made up (as the live session would find it)
        if (f.t !== 'health') return refuse(`a frame for stream ${f.sid} before its welcome, which it was never given`);
        earlyBytes += bytes.byteLength;
        if (early.length >= MAX_EARLY_FRAMES || earlyBytes > MAX_TUNNEL_BACKLOG)
          return refuse(
            `over ${MAX_EARLY_FRAMES} frames or ${MAX_TUNNEL_BACKLOG} bytes sent before its welcome (${early.length + 1} frames, ${earlyBytes} bytes)`,
            CLOSE.policy,
          );
        early.push(f);
        return;
      }
      const broke = live!.handle(f);
      if (broke) refuse(broke);
    },
    pong: () => live?.seen(),
    closed: (code) => {
      stopHelloTimer?.();
      const why = `closed (code ${code})`;
      state = 'gone';
      live?.end(why);
    },
  };
}
