// Relay turns between gateway instances on one Redis: the instance that runs a task forwards its relay agent's turn to
// the instance holding the relay's tunnel, and hears the turn's events and end back; holders tell every instance which
// tunnels they hold. One instance (the embedded store) has nobody to tell: then this carries nothing.
import { Packr, Unpackr } from 'msgpackr';
import type { AgentEvent, AgentRunResult } from '../../protocol/agent-events.js';
import { type ForwardedTurn, MeshMessage } from '../../protocol/relay-mesh.js';
import type { TurnSignal } from '../../runtime/agents/turn-signal.js';
import { TurnCancel } from '../../runtime/agents/turn-signal.js';
import type { Timers } from '../../runtime/clock.js';
import type { EventBus } from '../../runtime/events/bus.js';
import type { RelayTurn } from './tunnel-session.js';

/**
 * A forwarded turn ends at the latest this long after the agent's own deadline: the holder fails it at that deadline
 * and says so, but a message on the bus may be lost (a subscriber reconnecting), and a holder that stays renewing its
 * lease would otherwise leave the task working for ever.
 */
export const FORWARD_GRACE_MS = 30_000;

export type Held = Extract<MeshMessage, { t: 'held' }>;
export type Released = Extract<MeshMessage, { t: 'released' }>;

export interface RelayMeshDeps {
  bus: Pick<EventBus, 'origin' | 'tell' | 'onTold'>;
  timers: Timers;
  log: (msg: string, fields?: Record<string, unknown>) => void;
  /** runs a forwarded turn on this instance's live tunnel of that relay (a failure when it holds none) */
  runHere(turn: RelayTurn & { workspace: string; relay: string }): Promise<AgentRunResult>;
  onHeld(m: Held): void;
  onReleased(m: Released): void;
  /** another instance started and asks what this one holds */
  onWho(): void;
  /** another instance revoked key `keyId` */
  onLapsed(keyId: string): void;
  /** another instance changed relay records */
  onRelays(): void;
}

interface Forwarded {
  holder: string;
  relay: string;
  events: number;
  onEvent: (ev: AgentEvent) => void;
  resolve: (r: AgentRunResult) => void;
  signal: TurnSignal;
  onAbort: () => void;
  stopTimer: () => void;
}

const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });
const fail = (reason: string, message: string): AgentRunResult => ({ ok: false, error: { reason, message } });
const relayKey = (workspace: string, relay: string) => `${workspace}/${relay}`;

export class RelayMesh {
  private nextRid = 1;
  /** turns this instance forwarded, by rid */
  private readonly forwarded = new Map<number, Forwarded>();
  /** turns this instance runs for others, by `${from} ${rid}` */
  private readonly serving = new Map<string, TurnCancel>();

  constructor(private readonly d: RelayMeshDeps) {
    d.bus.onTold((bytes) => this.hear(bytes));
  }

  get origin(): string {
    return this.d.bus.origin;
  }

  tellAll(m: Held | Released | Extract<MeshMessage, { t: 'who' | 'lapsed' | 'relays' }>): void {
    this.d.bus.tell('all', packr.pack(m));
  }

  /** Runs a turn on the instance `holder`; never rejects. */
  forward(holder: string, turn: ForwardedTurn, o: { signal: TurnSignal; onEvent: (ev: AgentEvent) => void }): Promise<AgentRunResult> {
    if (o.signal.aborted) return Promise.resolve(fail('canceled', 'Canceled before it started'));
    const rid = this.nextRid++;
    return new Promise<AgentRunResult>((resolve) => {
      const f: Forwarded = {
        holder,
        relay: relayKey(turn.workspace, turn.relay),
        events: 0,
        onEvent: o.onEvent,
        resolve,
        signal: o.signal,
        onAbort: () => {
          this.d.bus.tell(holder, packr.pack({ t: 'cancel', from: this.origin, rid }));
          this.settle(rid, fail('canceled', 'Canceled'));
        },
        stopTimer: this.d.timers.after(turn.timeoutMs + FORWARD_GRACE_MS, () => {
          this.d.log('relay turn forwarded: no end from the holder in time', { workspace: turn.workspace, relay: turn.relay, holder, agent: turn.agent });
          this.d.bus.tell(holder, packr.pack({ t: 'cancel', from: this.origin, rid }));
          this.settle(
            rid,
            fail('timeout', `Agent ${turn.agent} did not finish within ${turn.timeoutMs} ms: the instance holding its relay's tunnel sent no end`),
          );
        }),
      };
      this.forwarded.set(rid, f);
      o.signal.addEventListener('abort', f.onAbort, { once: true });
      this.d.bus.tell(holder, packr.pack({ t: 'run', from: this.origin, rid, turn }));
    });
  }

  /** The holder of a relay is gone (its tunnel ended, or it stopped renewing): its turns of that relay fail now. */
  holderGone(holder: string, workspace: string, relay: string, why: string): void {
    const k = relayKey(workspace, relay);
    for (const [rid, f] of [...this.forwarded]) {
      if (f.holder === holder && f.relay === k) this.settle(rid, fail('relay_disconnected', `The relay's tunnel closed during the turn (${why})`));
    }
  }

  private settle(rid: number, r: AgentRunResult): void {
    const f = this.forwarded.get(rid);
    if (!f) return;
    this.forwarded.delete(rid);
    f.stopTimer();
    f.signal.removeEventListener('abort', f.onAbort);
    f.resolve(r);
  }

  private hear(bytes: Uint8Array): void {
    let m: MeshMessage;
    try {
      const r = MeshMessage.safeParse(unpackr.unpack(bytes));
      if (!r.success) {
        const issue = r.error.issues[0]!;
        this.d.log('relay mesh message dropped: invalid', { field: issue.path.map(String).join('.') || 'message', why: issue.message });
        return;
      }
      m = r.data;
    } catch {
      this.d.log('relay mesh message dropped: undecodable');
      return;
    }
    switch (m.t) {
      case 'held':
        this.d.onHeld(m);
        return;
      case 'released':
        this.d.onReleased(m);
        return;
      case 'who':
        this.d.onWho();
        return;
      case 'lapsed':
        this.d.onLapsed(m.keyId);
        return;
      case 'relays':
        this.d.onRelays();
        return;
      case 'run':
        this.serve(m);
        return;
      case 'cancel':
        this.serving.get(`${m.from} ${m.rid}`)?.abort();
        return;
      case 'event': {
        const f = this.forwarded.get(m.rid);
        if (!f) return;
        f.events++;
        f.onEvent(m.event);
        return;
      }
      case 'end': {
        const f = this.forwarded.get(m.rid);
        if (!f) return;
        this.settle(m.rid, m.result.ok ? { ok: true, events: f.events } : fail(m.result.reason, m.result.message));
        return;
      }
    }
  }

  private serve(m: Extract<MeshMessage, { t: 'run' }>): void {
    const k = `${m.from} ${m.rid}`;
    const cancel = new TurnCancel();
    this.serving.set(k, cancel);
    const reply = (msg: MeshMessage) => this.d.bus.tell(m.from, packr.pack(msg));
    void this.d.runHere({ ...m.turn, signal: cancel, onEvent: (event) => reply({ t: 'event', rid: m.rid, event }) }).then((r) => {
      this.serving.delete(k);
      reply({ t: 'end', rid: m.rid, result: r.ok ? { ok: true } : { ok: false, reason: r.error.reason, message: r.error.message } });
    });
  }
}
