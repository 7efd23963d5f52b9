// One live tunnel: its frames after hello, the turns it carries (one stream id each), and its liveness. A relay that
// breaks the protocol is disconnected with a logged reason; its turns in flight fail with `relay_disconnected`.
import type { AgentEvent, AgentRunResult } from '../../protocol/agent-events.js';
import type { Dialect, Message } from '../../protocol/model.js';
import { relayFailure } from '../../protocol/relay-failures.js';
import { type GatewayFrame, MAX_FRAME_BYTES, type RelayFrame, type RunTask, TUNNEL_CLOSE } from '../../protocol/tunnel.js';
import type { TurnSignal } from '../../runtime/agents/turn-signal.js';
import type { Clock, Timers } from '../../runtime/clock.js';
import type { TunnelSocket } from '../api.js';
import { encodeFrame, type RefusedEvent } from './frames.js';

export const PING_EVERY_MS = 15_000;
export const PONG_WITHIN_MS = 45_000;
/** past this many bytes queued for a relay, new turns are refused rather than buffered without limit */
export const MAX_TUNNEL_BACKLOG = 8 * 1024 * 1024;

/** WebSocket close codes the gateway uses (the wire's: protocol/tunnel.ts) */
export const CLOSE = TUNNEL_CLOSE;

/** What a tunnel needs of one turn: one of this instance's tasks, or one another instance forwarded to the holder. */
export interface RelayTurn {
  agent: string;
  timeoutMs: number;
  task: RunTask;
  message: Message;
  /** the caller streams: the relay sends events as they come */
  stream: boolean;
  /** the caller's dialect, for the relay's task log */
  dialect?: Dialect | undefined;
  signal: TurnSignal;
  onEvent: (ev: AgentEvent) => void;
}

interface Pending {
  turn: RelayTurn;
  events: number;
  resolve: (r: AgentRunResult) => void;
  stopTimer: () => void;
  onAbort: () => void;
}

export interface SessionDeps {
  socket: TunnelSocket;
  clock: Clock;
  timers: Timers;
  /** relay identity for logs */
  who: { workspace: string; relay: string };
  log: (msg: string, fields?: Record<string, unknown>) => void;
  /** the agents its hello named: a health report may name only these */
  announced: ReadonlySet<string>;
  /** a health report of the relay's local agents (checked against `announced`) */
  onHealth: (agents: Extract<RelayFrame, { t: 'health' }>['agents']) => void;
  /** the tunnel ended (for whatever reason): the hub marks the relay's agents offline */
  onEnd: (why: string) => void;
}

const fail = (reason: string, message: string): AgentRunResult => ({ ok: false, error: { reason, message } });

export class TunnelSession {
  private readonly pending = new Map<number, Pending>();
  private nextSid = 1;
  private ended = false;
  private lastSeen: number;
  private stopPing: (() => void) | undefined;
  /** when the tunnel opened: of two tunnels of one relay (on two instances), the later one is the relay's */
  readonly since: number;

  constructor(private readonly d: SessionDeps) {
    this.lastSeen = d.clock.now();
    this.since = this.lastSeen;
    this.armPing();
  }

  get live(): boolean {
    return !this.ended;
  }

  send(f: GatewayFrame): boolean {
    return !this.ended && this.d.socket.send(encodeFrame(f));
  }

  /** Any frame or pong shows the relay is there. */
  seen(): void {
    this.lastSeen = this.d.clock.now();
  }

  /** Runs one turn over the tunnel; never rejects. */
  run(turn: RelayTurn): Promise<AgentRunResult> {
    if (this.ended) return Promise.resolve(fail('relay_disconnected', `Relay ${this.d.who.relay} is not connected`));
    if (this.d.socket.buffered() > MAX_TUNNEL_BACKLOG)
      return Promise.resolve(fail('relay_busy', `Relay ${this.d.who.relay} is behind on its tunnel; retry shortly`));
    if (turn.signal.aborted) return Promise.resolve(fail('canceled', 'Canceled before it started'));
    const sid = this.nextSid++;
    const frame = encodeFrame({
      t: 'run',
      sid,
      agent: turn.agent,
      task: turn.task,
      message: turn.message,
      stream: turn.stream,
      ...(turn.dialect !== undefined && { dialect: turn.dialect }),
    });
    // a task may hold more than a frame may carry (tasks.maxTaskBytes is above the bound): a relay closes its tunnel
    // on a frame past the bound, failing every turn on it, so this one turn fails here instead
    if (frame.byteLength > MAX_FRAME_BYTES) {
      this.d.log('relay turn refused: its run frame is past the bound', { ...this.d.who, agent: turn.agent, bytes: frame.byteLength });
      return Promise.resolve(
        fail(
          'relay_turn_too_large',
          `The task is too large for the relay's tunnel: its turn would be a frame of ${frame.byteLength} bytes, past the bound of ${MAX_FRAME_BYTES}; start a new task (it may share the contextId)`,
        ),
      );
    }
    return new Promise<AgentRunResult>((resolve) => {
      const p: Pending = {
        turn,
        events: 0,
        resolve,
        stopTimer: this.d.timers.after(turn.timeoutMs, () => {
          this.send({ t: 'cancel', sid });
          this.settle(sid, fail('timeout', `Agent ${turn.agent} did not finish within ${turn.timeoutMs} ms`));
        }),
        onAbort: () => {
          // the local call is aborted on the relay; the turn ends now (late frames of this sid are dropped)
          this.send({ t: 'cancel', sid });
          this.settle(sid, fail('canceled', 'Canceled'));
        },
      };
      this.pending.set(sid, p);
      turn.signal.addEventListener('abort', p.onAbort, { once: true });
      const sent = !this.ended && this.d.socket.send(frame);
      if (!sent) this.settle(sid, fail('relay_disconnected', `Relay ${this.d.who.relay} went away before the turn started`));
    });
  }

  /** A frame after hello. Returns why the relay broke the protocol, if it did. */
  handle(f: RelayFrame | RefusedEvent): string | undefined {
    switch (f.t) {
      case 'hello':
        return 'a second hello';
      case 'health': {
        // a relay checks the agents it announced, nothing else: a report past them is a relay making names up (each
        // would otherwise cost a log line and, with several instances, a broadcast)
        if (f.agents.length > this.d.announced.size)
          return `a health frame of ${f.agents.length} agents, more than the ${this.d.announced.size} its hello announced`;
        const unknown = f.agents.find((a) => !this.d.announced.has(a.name));
        if (unknown) return `a health report of agent ${unknown.name}, which its hello did not announce`;
        this.d.onHealth(f.agents);
        return undefined;
      }
      default: {
        const p = this.pending.get(f.sid);
        if (!p) {
          // a sid handed out before and ended (canceled, timed out) may still see late frames: dropped; one never
          // handed out is a relay making up streams
          if (f.sid > 0 && f.sid < this.nextSid) return undefined;
          return `a frame for stream ${f.sid}, which it was never given`;
        }
        if (f.t === 'event') {
          p.events++;
          p.turn.onEvent(f.event);
        } else if (f.t === 'refused-event') {
          // the local call is stopped on the relay, as after a timeout; its later frames of this sid are dropped
          this.d.log('relay turn failed: its agent sent an event the gateway refuses', { ...this.d.who, agent: p.turn.agent, why: f.why });
          this.send({ t: 'cancel', sid: f.sid });
          this.settle(f.sid, fail('agent_protocol', `Agent ${p.turn.agent} sent an invalid event: ${f.why}`));
        } else if (f.t === 'done') this.settle(f.sid, { ok: true, events: p.events });
        else {
          // the relay's words are not passed on (an older or misbehaving relay may send its local agent's error
          // text, stack traces, local URLs): callers get the fixed reason and text (relay-failures.ts)
          const told = relayFailure(f.reason);
          this.settle(f.sid, fail(told.reason, told.message));
        }
        return undefined;
      }
    }
  }

  /** Ends the session: every turn in flight fails with `relay_disconnected`; the socket is closed when still open. */
  end(why: string, close?: { code: number; reason: string }): void {
    if (this.ended) return;
    this.ended = true;
    this.stopPing?.();
    for (const sid of [...this.pending.keys()]) this.settle(sid, fail('relay_disconnected', `The relay's tunnel closed during the turn (${why})`));
    if (close) this.d.socket.close(close.code, close.reason.slice(0, 120));
    this.d.onEnd(why);
  }

  private settle(sid: number, r: AgentRunResult): void {
    const p = this.pending.get(sid);
    if (!p) return;
    this.pending.delete(sid);
    p.stopTimer();
    p.turn.signal.removeEventListener('abort', p.onAbort);
    p.resolve(r);
  }

  private armPing(): void {
    this.stopPing = this.d.timers.after(PING_EVERY_MS, () => {
      if (this.ended) return;
      if (this.d.clock.now() - this.lastSeen >= PONG_WITHIN_MS) {
        this.d.log('relay tunnel silent: disconnected', { ...this.d.who, silentMs: this.d.clock.now() - this.lastSeen });
        this.end('no pong within 45 s', { code: CLOSE.silent, reason: 'no pong' });
        return;
      }
      this.d.socket.ping();
      this.armPing();
    });
  }
}
