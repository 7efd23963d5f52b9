// One tunnel connection, from the upgrade to its close: hello with the agents' cards, then run/cancel frames served
// against the local agents; our own pings keep it honest (no pong in time ends it). Resolves how it ended, never rejects.
import type { Duplex } from 'node:stream';
import { Packr } from 'msgpackr';
import WebSocket from 'ws';
import type { AgentEvent } from '../src/protocol/agent-events.js';
import { relayFailure } from '../src/protocol/relay-failures.js';
import { retryAfterMs } from '../src/protocol/retry-after.js';
import { GatewayFrame, MAX_FRAME_BYTES, type RelayAgentCard, type RelayFrame, TUNNEL_CLOSE, TUNNEL_PATH, TUNNEL_VERSION } from '../src/protocol/tunnel.js';
import type { Clock, Timers } from '../src/runtime/clock.js';
import type { A2AClient, RemoteEndpoint } from '../src/runtime/a2a-client/types.js';
import { errorText, type Log } from '../src/runtime/log.js';
import { maskedText } from './mask.js';
import type { RelayObserver } from './observer.js';
import { runObservedTurn } from './observed-turn.js';
import { tunnelReasons } from './reasons.js';

export type HealthEntry = Extract<RelayFrame, { t: 'health' }>['agents'][number];

/**
 * Past this many bytes queued on the tunnel (a gateway or an uplink slower than the local agents), a turn that has
 * more to send is stopped: its local call is aborted and it fails `tunnel_backlog`, rather than the relay holding
 * whatever its local agent writes in memory. Four frames of the largest size.
 */
export const MAX_RELAY_BACKLOG = 4 * MAX_FRAME_BYTES;

/**
 * How long the relay waits for the welcome after its hello. The gateway answers once the hello is stored (a store
 * write, bounded by its store's command timeout), so a gateway that is slower than this is as good as gone.
 */
export const WELCOME_TIMEOUT_MS = 30_000;

/** The close code the gateway ends a tunnel with when the relay's key is revoked or expires. */
export const KEY_LAPSED = TUNNEL_CLOSE.keyLapsed;

/**
 * How a connection ended. `held`: it was welcomed and stayed up long enough to reset the backoff. `retryAfterMs`: the
 * wait the gateway asked for with Retry-After when it refused the upgrade (429 over its failed-authentication budget,
 * 503 when it cannot serve), as asked: the tunnel machine bounds it.
 */
export type SessionEnd =
  | { kind: 'closed'; welcomed: boolean; held: boolean; reason: string; retryAfterMs?: number }
  | {
      kind: 'refused';
      /** the HTTP status of a refused upgrade, or KEY_LAPSED when the gateway closed a live tunnel over the key */
      status: number;
      reason: string;
    };

export interface SessionOptions {
  gatewayUrl: string;
  apiKey: string;
  /** PEM text of a private CA for the gateway's certificate */
  ca?: string;
  workspace: string;
  cards: RelayAgentCard[];
  endpoints: ReadonlyMap<string, RemoteEndpoint>;
  client: A2AClient;
  clock: Clock;
  timers: Timers;
  log: Log;
  debug: boolean;
  localTimeoutMs: number;
  /** how long a welcomed connection must last to count as one that held */
  heldMs: number;
  pingMs: number;
  pongTimeoutMs: number;
  /**
   * how long after its hello the relay waits for the welcome: a peer that took the upgrade and says nothing (it still
   * answers pings: both the gateway's WebSocket server and any proxy's do) is left, and the relay reconnects
   */
  welcomeTimeoutMs: number;
  /** the health to announce after each welcome */
  health: () => HealthEntry[];
  onWelcome?: (w: Extract<GatewayFrame, { t: 'welcome' }>) => void;
  /** sees each turn (the admin UI's task log) */
  observer?: RelayObserver;
}

export interface Session {
  readonly done: Promise<SessionEnd>;
  /** sends a frame when the tunnel is up (false when it is not) */
  send(f: RelayFrame): boolean;
  close(): void;
}

const packr = new Packr({ useRecords: false });

/** The size of the hello announcing `cards`, as sent: it goes in one frame, so it must be within MAX_FRAME_BYTES. */
export const helloBytes = (o: { workspace: string; cards: RelayAgentCard[] }): number =>
  packr.pack({ t: 'hello', v: TUNNEL_VERSION, workspace: o.workspace, agents: o.cards } satisfies RelayFrame).length;

export function tunnelUrl(gatewayUrl: string): string {
  return `${gatewayUrl.replace(/\/+$/, '')}${TUNNEL_PATH}`;
}

export function openSession(o: SessionOptions): Session {
  let resolveDone!: (e: SessionEnd) => void;
  const done = new Promise<SessionEnd>((r) => {
    resolveDone = r;
  });
  let ended = false;
  let welcomedAt: number | undefined;
  let lastReason = tunnelReasons.closed();
  let lastSeen = o.clock.now();
  let cancelPing = () => {};
  let cancelWelcomeWait = () => {};
  const turns = new Map<number, AbortController>();

  const ws = new WebSocket(tunnelUrl(o.gatewayUrl), {
    headers: { authorization: `Bearer ${o.apiKey}` },
    maxPayload: MAX_FRAME_BYTES,
    ...(o.ca !== undefined && { ca: o.ca }),
  });

  // what the far end says (a status message, a close reason, an error frame) is its own text: an endpoint that is not
  // our gateway (a proxy, a wrong gateway_url) may echo the Authorization it was sent, and these reasons are logged,
  // shown in the admin UI and printed at exit
  const masked = (text: string) => maskedText(text, [o.apiKey]);
  const finish = (e: SessionEnd) => {
    if (ended) return;
    ended = true;
    cancelPing();
    cancelWelcomeWait();
    for (const c of turns.values()) c.abort();
    turns.clear();
    resolveDone({ ...e, reason: masked(e.reason) });
  };

  const frameLog = (dir: 'in' | 'out', f: { t: string; sid?: number }, bytes: number) => {
    if (o.debug) o.log('relay frame', { dir, kind: f.t, ...(f.sid !== undefined && { sid: f.sid }), bytes });
  };

  // Frames sent in one turn of the event loop leave in one write: the socket is corked at the first and uncorked once
  // that turn's I/O callbacks ran. A turn's events and its done frame (and, under load, many turns' frames) then cost
  // one syscall rather than one each; the wait is no timer, only the rest of the current loop turn. `ws` keeps its
  // socket as `_socket` (it corks it itself around each frame; corks nest).
  let corked = false;
  const cork = () => {
    if (corked) return;
    const sock = (ws as unknown as { _socket?: Duplex | null })._socket;
    if (!sock) return;
    corked = true;
    sock.cork();
    setImmediate(() => {
      corked = false;
      sock.uncork();
    });
  };

  /**
   * false when the tunnel is not up; 'too_large' when the frame is over the bound, 'backlog' when an event would queue
   * past MAX_RELAY_BACKLOG (neither sent)
   */
  const sendFrame = (f: RelayFrame): boolean | 'too_large' | 'backlog' => {
    if (ended || ws.readyState !== WebSocket.OPEN) return false;
    const buf = packr.pack(f);
    if (buf.length > MAX_FRAME_BYTES) {
      o.log('relay frame too large, not sent', { kind: f.t, bytes: buf.length });
      return 'too_large';
    }
    // only events are held back: a turn's end and the rest are small and must reach the gateway
    if (f.t === 'event' && ws.bufferedAmount + buf.length > MAX_RELAY_BACKLOG) return 'backlog';
    frameLog('out', f as { t: string; sid?: number }, buf.length);
    cork();
    ws.send(buf);
    return true;
  };
  const send = (f: RelayFrame): boolean => sendFrame(f) === true;

  const ping = () => {
    cancelPing = o.timers.after(o.pingMs, () => {
      if (o.clock.now() - lastSeen > o.pongTimeoutMs) {
        lastReason = tunnelReasons.noPong(o.pongTimeoutMs / 1000);
        ws.terminate();
        return;
      }
      ws.ping();
      ping();
    });
  };

  // the gateway (and so the caller) is told a fixed reason and text; the detail (the local agent's own error, stack
  // traces, local URLs) is for this relay's operator only
  const failTurn = (f: { sid: number; agent: string }, reason: string, detail: string) => {
    const told = relayFailure(reason);
    send({ t: 'fail', sid: f.sid, ...told });
    o.log('relay turn failed', { sid: f.sid, agent: f.agent, reason: told.reason, error: maskedText(detail, [o.apiKey]) });
  };

  const run = async (f: Extract<GatewayFrame, { t: 'run' }>) => {
    const endpoint = o.endpoints.get(f.agent);
    if (!endpoint) {
      failTurn(f, 'unknown_agent', `this relay serves no agent ${f.agent}`);
      return;
    }
    if (turns.has(f.sid)) {
      o.log('relay run for a stream already running, ignored', { sid: f.sid });
      return;
    }
    const ctl = new AbortController();
    turns.set(f.sid, ctl);
    // an event over the frame bound, or one the tunnel cannot take now, cannot go up: the turn is stopped rather than
    // told with a gap
    let stopped: 'too_large' | 'backlog' | undefined;
    try {
      const r = await runObservedTurn({
        observer: o.observer,
        client: o.client,
        clock: o.clock,
        timers: o.timers,
        workspace: o.workspace,
        endpoint,
        frame: f,
        timeoutMs: o.localTimeoutMs,
        signal: ctl.signal,
        onEvent: (event: AgentEvent) => {
          if (stopped) return;
          const sent = sendFrame({ t: 'event', sid: f.sid, event });
          if (sent !== 'too_large' && sent !== 'backlog') return;
          stopped = sent;
          ctl.abort();
        },
      });
      if (!turns.has(f.sid)) return; // the tunnel ended: the gateway fails the turn itself
      if (stopped === 'too_large') {
        failTurn(f, 'event_too_large', `an event of the local agent is over ${MAX_FRAME_BYTES} bytes`);
        return;
      }
      if (stopped === 'backlog') {
        failTurn(
          f,
          'tunnel_backlog',
          `over ${MAX_RELAY_BACKLOG} bytes were waiting to go up the tunnel (the gateway or the link to it is slower than the local agent)`,
        );
        return;
      }
      if (r.ok) send({ t: 'done', sid: f.sid });
      else failTurn(f, r.reason, r.message);
    } catch (e) {
      failTurn(f, 'local_agent_error', errorText(e));
    } finally {
      turns.delete(f.sid);
    }
  };

  const onFrame = (data: Buffer) => {
    let decoded: unknown;
    try {
      decoded = packr.unpack(data);
    } catch (e) {
      o.log('relay frame does not decode, ignored', { bytes: data.length, error: errorText(e) });
      return;
    }
    const p = GatewayFrame.safeParse(decoded);
    if (!p.success) {
      const issue = p.error.issues[0];
      o.log('relay frame is not valid, ignored', { bytes: data.length, field: issue?.path.join('.'), error: issue?.message });
      return;
    }
    const f = p.data;
    frameLog('in', f as { t: string; sid?: number }, data.length);
    switch (f.t) {
      case 'welcome':
        cancelWelcomeWait();
        welcomedAt = o.clock.now();
        o.log('relay tunnel up', { relay: f.relay, agents: f.agents.map((a) => a.name) });
        o.onWelcome?.(f);
        {
          const h = o.health();
          if (h.length > 0) send({ t: 'health', agents: h });
        }
        return;
      case 'run':
        void run(f);
        return;
      case 'cancel':
        turns.get(f.sid)?.abort();
        return;
      case 'error':
        lastReason = tunnelReasons.gatewaySaid(f.message);
        o.log('relay refused by the gateway', { message: masked(f.message) });
        return;
    }
  };

  ws.on('unexpected-response', (req, res) => {
    const status = res.statusCode ?? 0;
    req.destroy();
    res.resume();
    if (status === 401 || status === 403) {
      return finish({ kind: 'refused', status, reason: tunnelReasons.keyRefused(status) });
    }
    const reason = tunnelReasons.upgradeAnswered(status, res.statusMessage);
    const header = res.headers['retry-after'];
    const asked = retryAfterMs(header, { now: o.clock.now(), date: res.headers.date });
    const shown = header?.trim().slice(0, 100);
    if (asked === undefined) {
      // plain backoff then; the operator is told, since a gateway (or a proxy before it) sending this is worth a look
      if (header !== undefined) o.log('relay ignored a malformed Retry-After', { status, retry_after: masked(shown ?? '') });
      return finish({ kind: 'closed', welcomed: false, held: false, reason });
    }
    finish({ kind: 'closed', welcomed: false, held: false, reason: `${reason}, Retry-After ${shown}`, retryAfterMs: asked });
  });
  ws.on('open', () => {
    lastSeen = o.clock.now();
    send({ t: 'hello', v: TUNNEL_VERSION, workspace: o.workspace, agents: o.cards });
    ping();
    cancelWelcomeWait = o.timers.after(o.welcomeTimeoutMs, () => {
      if (welcomedAt !== undefined || ended) return;
      lastReason = tunnelReasons.noWelcome(o.welcomeTimeoutMs / 1000);
      ws.terminate();
    });
  });
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    lastSeen = o.clock.now();
    if (!isBinary) {
      o.log('relay text frame ignored (frames are binary)', { bytes: data.length });
      return;
    }
    onFrame(data);
  });
  ws.on('pong', () => {
    lastSeen = o.clock.now();
  });
  ws.on('ping', () => {
    lastSeen = o.clock.now();
  });
  ws.on('error', (e) => {
    lastReason = tunnelReasons.socketError(errorText(e));
  });
  ws.on('close', (code, why) => {
    const reason = tunnelReasons.closedWith(lastReason, code, why.toString('utf8'));
    // the gateway closed the tunnel because the relay's key lapsed (revoked, expired): a retry would be refused too
    if (code === KEY_LAPSED) {
      o.log('relay key refused by the gateway: the tunnel closed', { reason: masked(reason) });
      return finish({ kind: 'refused', status: code, reason: tunnelReasons.keyLapsed(reason) });
    }
    const welcomed = welcomedAt !== undefined;
    finish({ kind: 'closed', welcomed, held: welcomed && o.clock.now() - welcomedAt! >= o.heldMs, reason });
  });

  return {
    done,
    send,
    close() {
      lastReason = tunnelReasons.stopping();
      if (ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.OPEN) ws.close(1001, 'relay stopping');
      // a close that never completes (a dead peer) must not hold the relay
      const stop = o.timers.after(5_000, () => ws.terminate());
      void done.then(stop);
    },
  };
}
