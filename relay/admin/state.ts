// The admin UI's memory: the tunnel's state in plain words, each local agent's health and counts, and the task log (a
// ring of the last turns, each with its sanitized, capped request and answer). Fed as a RelayObserver; tells its
// listeners (the SSE streams) what changed.
import type { AgentEvent } from '../../src/protocol/agent-events.js';
import type { Message } from '../../src/protocol/model.js';
import type { Clock } from '../../src/runtime/clock.js';
import type { RelayAgentCard } from '../../src/protocol/tunnel.js';
import type { RelayObserver, TunnelView, TurnStart } from '../observer.js';
import type { TurnResult } from '../turn.js';
import { type AgentSummary, type AgentView, summaryOf } from './agent-summary.js';
import { plainWords } from './plain-words.js';
import { maskedText } from '../mask.js';
import { DETAIL_CAP, showable } from './sanitize.js';

export type Connection = 'starting' | 'connecting' | 'connected' | 'backing off' | 'given up' | 'stopped';
export type { AgentView } from './agent-summary.js';
export type TurnState = 'running' | 'completed' | 'input-required' | 'failed' | 'canceled';

export interface StatusView {
  connection: Connection;
  since: number;
  now: number;
  gatewayUrl: string;
  workspace: string;
  /** consecutive failed connection attempts */
  attempts: number;
  /** reconnects since the relay started */
  reconnects: number;
  lastError: string | undefined;
  /** the last error in a few plain words */
  lastErrorWords: string | undefined;
  nextAttemptAt: number | undefined;
  /** while backing off after a refusal with Retry-After: the wait the gateway asked for (why the next attempt is when it is) */
  retryAfterMs: number | undefined;
}

export interface TurnSummary {
  id: string;
  at: number;
  agent: string;
  taskId: string;
  dialect: 'A' | 'B' | 'V1' | undefined;
  stream: boolean;
  state: TurnState;
  durationMs: number | undefined;
  error: string | undefined;
  replayOf: string | undefined;
}

export interface TurnDetail extends TurnSummary {
  request: string;
  answer: string;
}

/**
 * One agent's summary fields that changed, by name (a field that became undefined is null: JSON has no undefined). An
 * agent seen for the first time comes whole. Never its card (agent-summary.ts): a page reads that when shown it.
 */
export type AgentPatch = { name: string } & { [K in Exclude<keyof AgentSummary, 'name'>]?: AgentSummary[K] | null };

export type Change =
  | { type: 'status'; data: StatusView }
  /** every agent's summary, descriptions left out (each stream is sent them one agent per event, as it reads) */
  | { type: 'agents'; data: AgentSummary[] }
  | { type: 'agent'; data: AgentPatch }
  | { type: 'task'; data: TurnSummary };

interface TurnEntry extends TurnSummary {
  requestText: string;
  /** the caller's message as it came, for a replay (shown only through requestText); not kept past REPLAY_CAP */
  message: Message | undefined;
  events: AgentEvent[];
  eventBytes: number;
  droppedEvents: number;
}

export interface AdminStateOptions {
  clock: Clock;
  gatewayUrl: string;
  workspace: string;
  /** strings never shown (the relay's key) */
  secrets: string[];
  /** turns kept (oldest dropped first) */
  capacity?: number;
}

/** The largest message kept for a replay (characters of JSON): 1,000 turns of it stay within a few hundred MB at worst. */
const REPLAY_CAP = 256 * 1024;

const connectionOf = (v: TunnelView): Connection => {
  if (v.state === 'session') return v.upSince !== undefined ? 'connected' : 'connecting';
  if (v.state === 'waiting' || v.state === 'ended') return 'backing off';
  if (v.state === 'spent') return 'given up';
  return 'stopped';
};

const stateOf = (r: TurnResult, events: AgentEvent[]): TurnState => {
  if (!r.ok) return r.reason === 'canceled' ? 'canceled' : 'failed';
  const last = events.filter((e) => e.type === 'status').pop();
  return last?.type === 'status' && last.state === 'input-required' ? 'input-required' : 'completed';
};

export class AdminState implements RelayObserver {
  private connection: Connection = 'starting';
  private since: number;
  private view: TunnelView | undefined;
  private reconnects = 0;
  private readonly agentsByName = new Map<string, AgentView>();
  /** agent name -> how many times its card changed (AgentSummary.cardRev) */
  private readonly cardRevs = new Map<string, number>();
  private readonly turns = new Map<string, TurnEntry>();
  private seq = 0;
  private readonly listeners = new Set<(c: Change) => void>();
  readonly capacity: number;

  constructor(private readonly o: AdminStateOptions) {
    this.since = o.clock.now();
    this.capacity = o.capacity ?? 1000;
  }

  listen(f: (c: Change) => void): () => void {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }

  private tell(c: Change) {
    for (const f of this.listeners) f(c);
  }

  /** the agents served, once the relay knows them (LOCAL_AGENT_URL's card is read at start-up) */
  setAgents(list: Array<{ card: RelayAgentCard; url: string }>) {
    for (const { card, url } of list) {
      const a = this.agent(card.name);
      if (a.card !== card) this.cardRevs.set(card.name, (this.cardRevs.get(card.name) ?? 0) + 1);
      Object.assign(a, { card, url });
    }
    this.tell({ type: 'agents', data: this.summaries() });
  }

  /** an agent's entry, made on first sight (a health round can come before the relay hands over its cards) */
  private agent(name: string): AgentView {
    let a = this.agentsByName.get(name);
    if (!a) {
      a = {
        name,
        url: '',
        card: undefined,
        health: 'unknown',
        lastCheck: undefined,
        latencyMs: undefined,
        error: undefined,
        errorWords: undefined,
        served: 0,
        failed: 0,
      };
      this.agentsByName.set(name, a);
    }
    return a;
  }

  status(): StatusView {
    const v = this.view;
    return {
      connection: this.connection,
      since: this.since,
      now: this.o.clock.now(),
      gatewayUrl: this.o.gatewayUrl,
      workspace: this.o.workspace,
      attempts: v?.failures ?? 0,
      reconnects: this.reconnects,
      lastError: maskedText(v?.lastError, this.o.secrets),
      lastErrorWords: plainWords(maskedText(v?.lastError, this.o.secrets)),
      nextAttemptAt: this.connection === 'backing off' ? v?.nextRetryAt : undefined,
      retryAfterMs: this.connection === 'backing off' ? v?.retryAfterMs : undefined,
    };
  }

  /** one agent whole, its card included (undefined: not known) */
  agentView(name: string): AgentView | undefined {
    const a = this.agentsByName.get(name);
    return a && { ...a };
  }

  /** every agent's summary for an opening snapshot: no description (it follows, one agent per event) */
  summaries(): AgentSummary[] {
    return [...this.agentsByName.values()].map((a) => summaryOf(a, this.cardRevs.get(a.name) ?? 0, { withDescription: false }));
  }

  /** every agent's summary with its description, never its card (GET /api/agents: bounded whatever the cards) */
  listed(): AgentSummary[] {
    return [...this.agentsByName.values()].map((a) => summaryOf(a, this.cardRevs.get(a.name) ?? 0, { withDescription: true }));
  }

  /** one agent's summary with its description (undefined: not known) */
  summary(name: string): AgentSummary | undefined {
    const a = this.agentsByName.get(name);
    return a && summaryOf(a, this.cardRevs.get(name) ?? 0, { withDescription: true });
  }

  /** newest first, filtered by agent and state */
  tasks(f: { agent?: string; state?: string; limit?: number } = {}): TurnSummary[] {
    const out: TurnSummary[] = [];
    const all = [...this.turns.values()];
    for (let i = all.length - 1; i >= 0 && out.length < (f.limit ?? this.capacity); i--) {
      const t = all[i]!;
      if ((f.agent === undefined || t.agent === f.agent) && (f.state === undefined || t.state === f.state)) out.push(summary(t));
    }
    return out;
  }

  task(id: string): TurnDetail | undefined {
    const t = this.turns.get(id);
    if (!t) return undefined;
    const answer = t.droppedEvents > 0 ? { events: t.events, dropped: `${t.droppedEvents} later events not kept` } : { events: t.events };
    return { ...summary(t), request: t.requestText, answer: showable(answer, { secrets: this.o.secrets }) };
  }

  /** the logged turn's message and agent, for a replay */
  replayable(id: string): { agent: string; message: Message } | 'too_large' | undefined {
    const t = this.turns.get(id);
    if (!t) return undefined;
    return t.message ? { agent: t.agent, message: t.message } : 'too_large';
  }

  tunnel(v: TunnelView) {
    const was = this.connection;
    const next = connectionOf(v);
    if (was === 'backing off' && next === 'connecting') this.reconnects++;
    if (next !== was) this.since = this.o.clock.now();
    this.connection = next;
    this.view = v;
    this.tell({ type: 'status', data: this.status() });
  }

  health(round: Array<{ name: string; up: boolean; latencyMs?: number; error?: string }>, at: number) {
    for (const r of round) {
      const before = this.known(r.name);
      Object.assign(this.agent(r.name), {
        health: r.up ? 'up' : 'down',
        lastCheck: at,
        latencyMs: r.latencyMs,
        error: maskedText(r.error, this.o.secrets),
        errorWords: plainWords(maskedText(r.error, this.o.secrets)),
      });
      this.tellPatch(r.name, before);
    }
  }

  /** an agent's summary as it stands (undefined: not seen yet), to tell later what a change moved */
  private known(name: string): AgentSummary | undefined {
    return this.summary(name);
  }

  /** tells the summary fields of agent `name` that differ from `before` (all of them for a new agent), if any */
  private tellPatch(name: string, before: AgentSummary | undefined) {
    const now = this.summary(name);
    if (!now) return;
    const data: Record<string, unknown> = { name };
    for (const k of Object.keys(now) as Array<keyof AgentSummary>) if (before === undefined || before[k] !== now[k]) data[k] = now[k] ?? null;
    if (Object.keys(data).length > 1) this.tell({ type: 'agent', data: data as AgentPatch });
  }

  turn(start: TurnStart) {
    const id = `t${++this.seq}`;
    const f = start.frame;
    const entry: TurnEntry = {
      id,
      at: start.at,
      agent: f.agent,
      taskId: f.task.id,
      dialect: f.dialect,
      stream: f.stream,
      state: 'running',
      durationMs: undefined,
      error: undefined,
      replayOf: start.replayOf,
      requestText: showable(
        { message: f.message, task: { id: f.task.id, contextId: f.task.contextId, historyLength: f.task.history.length } },
        { secrets: this.o.secrets },
      ),
      message: JSON.stringify(f.message).length <= REPLAY_CAP ? f.message : undefined,
      events: [],
      eventBytes: 0,
      droppedEvents: 0,
    };
    this.turns.set(id, entry);
    // the ring: a Map keeps insertion order, so the first key is the oldest turn
    while (this.turns.size > this.capacity) this.turns.delete(this.turns.keys().next().value as string);
    this.tell({ type: 'task', data: summary(entry) });
    return {
      event: (ev: AgentEvent) => {
        const bytes = JSON.stringify(ev).length;
        if (entry.eventBytes + bytes > DETAIL_CAP * 4) {
          entry.droppedEvents++;
          return;
        }
        entry.eventBytes += bytes;
        entry.events.push(ev);
      },
      end: (r: TurnResult, at: number) => {
        entry.state = stateOf(r, entry.events);
        entry.durationMs = Math.max(0, at - entry.at);
        if (!r.ok) entry.error = maskedText(`${r.reason}: ${r.message}`, this.o.secrets).slice(0, 500);
        const before = this.known(f.agent);
        const a = this.agent(f.agent);
        if (r.ok) a.served++;
        else a.failed++;
        this.tellPatch(f.agent, before);
        this.tell({ type: 'task', data: summary(entry) });
      },
    };
  }
}

function summary(t: TurnEntry): TurnSummary {
  return {
    id: t.id,
    at: t.at,
    agent: t.agent,
    taskId: t.taskId,
    dialect: t.dialect,
    stream: t.stream,
    state: t.state,
    durationMs: t.durationMs,
    error: t.error,
    replayOf: t.replayOf,
  };
}
