// The tunnel endpoint behind the transport: who may open a tunnel (the key its relay record names), what a hello
// registers (agents of kind `relay` in the relay's workspace, never shadowing another agent), and each relay's link:
// its agents stay registered while it is away, listed offline, and refuse a turn at once.
import { AgentSpec, type AgentRunResult } from '../../protocol/agent-events.js';
import type { KeyRecord } from '../../protocol/records.js';
import { DEFAULT_RELAY_AGENT_TRUST, type RelayRecord } from '../../protocol/relays.js';
import { TRUST_SCOPES } from '../../protocol/scopes.js';
import { MAX_FRAME_BYTES, TUNNEL_VERSION, type RelayAgentCard, type RelayAgentHealth, type RelayFrame } from '../../protocol/tunnel.js';
import { AgentShadowError, type AgentRegistry, type AgentRunner } from '../../runtime/agents/registry.js';
import type { Clock, Timers } from '../../runtime/clock.js';
import { type KeyHasher, verifyKey } from '../../runtime/keys.js';
import { errorText } from '../../runtime/log.js';
import { recordAnnouncement, relayOfKey } from '../../runtime/relay-admin.js';
import type { Store } from '../../runtime/store/types.js';
import type { TunnelApi, TunnelOpen, TunnelSession as TransportSession, TunnelSocket } from '../api.js';
import type { KeyWatch } from '../key-watch.js';
import { decodeFrame, encodeFrame } from './frames.js';
import { CLOSE, TunnelSession } from './tunnel-session.js';

/** A relay that has not said hello within this long after the upgrade is disconnected. */
export const HELLO_WITHIN_MS = 10_000;

export interface RelayHubDeps {
  store: Pick<Store, 'keys' | 'relays'>;
  agents: AgentRegistry;
  hasher: KeyHasher;
  keyWatch: KeyWatch;
  clock: Clock;
  timers: Timers;
  log: (msg: string, fields?: Record<string, unknown>) => void;
}

const fail = (reason: string, message: string): AgentRunResult => ({ ok: false, error: { reason, message } });

const UNAUTHORIZED = {
  missing: 'missing Authorization: Bearer <API key>',
  malformed: 'invalid API key',
  unknown: 'invalid API key',
  revoked: 'API key revoked',
  expired: 'API key expired',
} as const;

const bearer = (h: string | undefined): string | undefined => (h ? (/^Bearer\s+(\S+)\s*$/i.exec(h)?.[1] ?? h) : undefined);

/** One registered relay across its connections: the agents it holds in the registry and its live session, if any. */
class RelayLink {
  session: TunnelSession | undefined;
  /** agent name -> its last announced card */
  readonly cards = new Map<string, RelayAgentCard>();
  /** agent name -> its local agent's health as the live session last reported it (cleared when the session ends) */
  readonly health = new Map<string, RelayAgentHealth>();
  readonly runner: AgentRunner;

  constructor(
    readonly workspace: string,
    readonly name: string,
  ) {
    this.runner = {
      run: (turn) => {
        const s = this.session;
        if (!s?.live)
          return Promise.resolve(fail('relay_offline', `Agent ${turn.agent.id} is offline: its relay ${this.name} is not connected; retry when it is back`));
        // a local agent its relay reports down fails now, not after the relay's local timeout
        const h = this.health.get(turn.agent.id);
        if (h && !h.up)
          return Promise.resolve(
            fail(
              'relay_agent_down',
              `Agent ${turn.agent.id} is down: its relay ${this.name} cannot reach it (since ${h.checkedAt}${h.error ? `: ${h.error}` : ''}); retry when it is back`,
            ),
          );
        return s.run(turn, { stream: this.cards.get(turn.agent.id)?.streaming ?? false });
      },
    };
  }

  get online(): boolean {
    return this.session?.live === true;
  }
}

export class RelayHub implements TunnelApi {
  private readonly links = new Map<string, RelayLink>();
  private closed = false;

  constructor(private readonly d: RelayHubDeps) {}

  /** Lists every stored relay's announced agents (offline until their relay connects). */
  async start(): Promise<void> {
    for (const rec of await this.d.store.relays.list()) {
      const link = this.linkOf(rec);
      const cards = Object.values(rec.agents).flatMap((a) => (a.card ? [a.card] : []));
      this.register(link, rec, cards);
    }
  }

  async open(req: { authorization: string | undefined }): Promise<TunnelOpen> {
    if (this.closed) return { ok: false, status: 403, message: 'the gateway is shutting down' };
    const check = await verifyKey({ hasher: this.d.hasher, keys: this.d.store.keys, clock: this.d.clock, presented: bearer(req.authorization) });
    if (!check.ok) {
      this.d.log('relay tunnel refused', { why: check.why });
      return { ok: false, status: 401, message: `Unauthorized: ${UNAUTHORIZED[check.why]}` };
    }
    const rec = await relayOfKey(this.d.store.relays, check.key.id, check.key.workspaceId);
    if (!rec) {
      this.d.log('relay tunnel refused', { why: 'the key opens no relay', key: check.key.id, workspace: check.key.workspaceId });
      return { ok: false, status: 403, message: 'Forbidden: this key is not the key of a registered relay (a2a-gateway relays add)' };
    }
    return { ok: true, session: this.pendingSession(rec, check.key) };
  }

  /** whether the relay's tunnel is connected now (the dashboard's tunnel state) */
  tunnelUp(workspace: string, name: string): boolean {
    return this.links.get(`${workspace}/${name}`)?.online === true;
  }

  close(): void {
    this.closed = true;
    for (const link of this.links.values()) link.session?.end('the gateway is shutting down', { code: CLOSE.goingAway, reason: 'gateway shutting down' });
  }

  private linkOf(rec: RelayRecord): RelayLink {
    const k = `${rec.workspace}/${rec.name}`;
    let link = this.links.get(k);
    if (!link) this.links.set(k, (link = new RelayLink(rec.workspace, rec.name)));
    return link;
  }

  /** The transport's session from the upgrade to hello; then it hands frames to the live TunnelSession. */
  private pendingSession(rec: RelayRecord, key: KeyRecord): TransportSession {
    const who = { workspace: rec.workspace, relay: rec.name };
    let socket: TunnelSocket | undefined;
    let live: TunnelSession | undefined;
    let state: 'waiting' | 'greeting' | 'live' | 'gone' = 'waiting';
    const early: RelayFrame[] = [];
    let stopHelloTimer: (() => void) | undefined;

    const refuse = (why: string, code: number = CLOSE.protocol) => {
      this.d.log('relay disconnected: protocol broken', { ...who, why });
      socket?.send(encodeFrame({ t: 'error', message: why.slice(0, 500) }));
      if (live) return live.end(why, { code, reason: why });
      state = 'gone';
      stopHelloTimer?.();
      socket?.close(code, why.slice(0, 120));
    };

    const greet = async (hello: Extract<RelayFrame, { t: 'hello' }>) => {
      state = 'greeting';
      stopHelloTimer?.();
      if (hello.workspace !== rec.workspace) {
        this.d.log('relay refused: hello names another workspace', { ...who, announced: hello.workspace });
        state = 'gone';
        socket?.send(encodeFrame({ t: 'error', message: `this key's relay serves workspace ${rec.workspace}, not ${hello.workspace}` }));
        socket?.close(CLOSE.policy, 'workspace mismatch');
        return;
      }
      const link = this.linkOf(rec);
      link.session?.end('replaced by a new tunnel of the same relay', { code: CLOSE.replaced, reason: 'replaced by a new tunnel' });
      let stored: RelayRecord;
      try {
        stored = await recordAnnouncement({ relays: this.d.store.relays, clock: this.d.clock }, rec, this.acceptable(link, rec, hello.agents));
      } catch (e) {
        this.d.log('relay announcement not stored', { ...who, error: errorText(e) });
        state = 'gone';
        socket?.close(CLOSE.goingAway, 'store unavailable; retry');
        return;
      }
      if ((state as string) === 'gone' || !socket) return;
      const accepted = this.register(link, stored, this.acceptable(link, stored, hello.agents));
      const unwatch = this.d.keyWatch.watch(key.id, (why) => {
        this.d.log('relay disconnected: its key lapsed', { ...who, why });
        live?.end(`key ${why}`, { code: CLOSE.keyLapsed, reason: `key ${why}` });
      });
      const s = new TunnelSession({
        socket,
        clock: this.d.clock,
        timers: this.d.timers,
        who,
        log: this.d.log,
        onHealth: (agents) => {
          if (link.session !== s) return;
          const checkedAt = new Date(this.d.clock.now()).toISOString();
          for (const a of agents) {
            // a report on an agent this relay does not hold here (refused, never announced) is ignored
            if (!link.cards.has(a.name)) continue;
            link.health.set(a.name, { up: a.up, checkedAt, ...(a.error !== undefined && { error: a.error }) });
          }
        },
        onEnd: (why) => {
          unwatch();
          if (link.session === s) {
            link.session = undefined;
            link.health.clear();
          }
          this.d.log('relay tunnel ended; its agents are offline', { ...who, why });
        },
      });
      live = s;
      link.session = s;
      // the previous session's reports say nothing of this one: its welcome-time snapshot follows
      link.health.clear();
      state = 'live';
      s.send({
        t: 'welcome',
        v: TUNNEL_VERSION,
        relay: rec.name,
        agents: accepted.map((c) => ({ name: c.name, trust: stored.agents[c.name]?.trust ?? 'execute' })),
      });
      this.d.log('relay connected', { ...who, agents: accepted.map((c) => c.name).join(',') });
      for (const f of early.splice(0)) {
        const broke = s.handle(f);
        if (broke) return refuse(broke);
      }
    };

    return {
      attach: (sock) => {
        socket = sock;
        stopHelloTimer = this.d.timers.after(HELLO_WITHIN_MS, () => {
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
          void greet(f).catch((e: unknown) => refuse(`hello failed: ${errorText(e)}`));
          return;
        }
        if (state === 'greeting') {
          if (f.t === 'hello') return refuse('a second hello');
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

  /** The announced cards this link may register: no repeats, none that would shadow an agent it does not own. */
  private acceptable(link: RelayLink, rec: RelayRecord, cards: readonly RelayAgentCard[]): RelayAgentCard[] {
    const out: RelayAgentCard[] = [];
    const seen = new Set<string>();
    for (const c of cards) {
      if (seen.has(c.name)) {
        this.d.log('relay agent refused: announced twice', { workspace: rec.workspace, relay: rec.name, agent: c.name });
        continue;
      }
      seen.add(c.name);
      const existing = this.d.agents.find(rec.workspace, c.name);
      if (existing && existing.runner !== link.runner) {
        this.d.log('relay agent refused: it would shadow another agent', { workspace: rec.workspace, relay: rec.name, agent: c.name });
        continue;
      }
      out.push(c);
    }
    return out;
  }

  /** Puts the cards in the registry as this link's agents (and takes out its agents no longer announced). */
  private register(link: RelayLink, rec: RelayRecord, cards: readonly RelayAgentCard[]): RelayAgentCard[] {
    const names = new Set(cards.map((c) => c.name));
    for (const old of [...link.cards.keys()]) {
      if (names.has(old)) continue;
      this.d.agents.remove(rec.workspace, old);
      link.cards.delete(old);
    }
    const done: RelayAgentCard[] = [];
    for (const card of cards) {
      const allowed = rec.agents[card.name]?.keys ?? [];
      const trust = rec.agents[card.name]?.trust ?? DEFAULT_RELAY_AGENT_TRUST;
      const spec = AgentSpec.parse({
        id: card.name,
        name: card.name,
        description: card.description,
        kind: 'relay',
        workspace: rec.workspace,
        skills: card.skills,
      });
      const entry = {
        spec,
        runner: link.runner,
        reach: (key: KeyRecord) => allowed.length === 0 || allowed.includes(key.id),
        online: () => link.online,
        health: () => link.health.get(card.name),
        scopes: new Set(TRUST_SCOPES[trust]),
      };
      try {
        if (link.cards.has(card.name)) this.d.agents.update(entry);
        else this.d.agents.add(entry);
      } catch (e) {
        if (!(e instanceof AgentShadowError)) throw e;
        this.d.log('relay agent refused: it would shadow another agent', { workspace: rec.workspace, relay: rec.name, agent: card.name });
        continue;
      }
      link.cards.set(card.name, card);
      done.push(card);
    }
    return done;
  }
}
