// The tunnel endpoint behind the transport, as the registry of relays' links: each relay's link and the agents it
// registers (kind `relay`, in the relay's workspace, never shadowing another agent), which stay registered while it is
// away, listed offline, and refuse a turn at once. With several instances on one Redis, a relay's turns reach the
// instance holding its tunnel (mesh.ts), and every instance follows the stored relay records (a relay removed or an
// agent's trust changed by the CLI takes effect on running instances). Opening a tunnel (who may upgrade, the hello,
// the live session) is tunnel-open.ts's, on the links this file lends it.
import type { AgentRunResult } from '../../protocol/agent-events.js';
import type { Task } from '../../protocol/model.js';
import type { RelayRecord } from '../../protocol/relays.js';
import type { RelayAgentCard, RelayAgentHealth } from '../../protocol/tunnel.js';
import type { AgentRegistry, AgentTurn } from '../../runtime/agents/registry.js';
import type { Clock, Timers } from '../../runtime/clock.js';
import type { EventBus } from '../../runtime/events/bus.js';
import type { KeyHasher } from '../../runtime/keys.js';
import { errorText } from '../../runtime/log.js';
import type { Store } from '../../runtime/store/types.js';
import type { TunnelApi, TunnelOpen } from '../api.js';
import type { KeyWatch } from '../key-watch.js';
import type { AuthFailureThrottle } from '../../runtime/limiter/auth-throttle.js';
import { acceptableCards, type LinkDeps, linkKey, RelayLink, registerCards, type RemoteHold, settingsOf, storedCards } from './link.js';
import { type Held, RelayMesh, type Released } from './mesh.js';
import { CLOSE, type RelayTurn } from './tunnel-session.js';
import { openTunnel, type TunnelOpenDeps } from './tunnel-open.js';

/** A holder renews what it holds this often; another instance that heard nothing for HOLD_TTL_MS takes it as gone. */
export const HOLD_RENEW_MS = 10_000;
export const HOLD_TTL_MS = 30_000;
/** How often an instance reads the stored relay records (relays removed, agents' trust or keys changed by the CLI). */
export const RELAY_SYNC_MS = 5_000;

export interface RelayHubDeps {
  store: Pick<Store, 'keys' | 'relays'>;
  agents: AgentRegistry;
  hasher: KeyHasher;
  keyWatch: KeyWatch;
  /** instance-to-instance messages (a local bus has nobody to tell) */
  bus: Pick<EventBus, 'origin' | 'tell' | 'onTold'>;
  clock: Clock;
  timers: Timers;
  log: (msg: string, fields?: Record<string, unknown>) => void;
  /** failed authentications per client address, the A2A endpoint's (absent: not counted) */
  authFailures?: AuthFailureThrottle;
}

const fail = (reason: string, message: string): AgentRunResult => ({ ok: false, error: { reason, message } });

const runTask = (t: Task) => ({ id: t.id, contextId: t.contextId, history: t.history, artifacts: t.artifacts, metadata: t.metadata });

export class RelayHub implements TunnelApi {
  private readonly links = new Map<string, RelayLink>();
  private readonly mesh: RelayMesh;
  private closed = false;
  private syncing: Promise<void> | undefined;
  private stopTimers: Array<() => void> = [];

  private readonly linkDeps: LinkDeps;
  private readonly opening: TunnelOpenDeps;

  constructor(private readonly d: RelayHubDeps) {
    this.linkDeps = { agents: d.agents, log: d.log, online: (link) => this.isOnline(link), health: (link, agent) => this.healthOf(link, agent) };
    this.opening = {
      ...d,
      links: {
        linkOf: (rec) => this.linkOf(rec),
        acceptable: (link, rec, cards) => acceptableCards(this.linkDeps, link, rec, cards),
        register: (link, rec, cards) => this.register(link, rec, cards),
        announce: (link) => this.announce(link),
        released: (link, since) => this.mesh.tellAll({ t: 'released', from: this.mesh.origin, workspace: link.workspace, relay: link.name, since }),
      },
    };
    this.mesh = new RelayMesh({
      bus: d.bus,
      timers: d.timers,
      log: d.log,
      runHere: (t) => this.runHere(t),
      onHeld: (m) => this.heard(m),
      onReleased: (m) => this.released(m),
      onWho: () => {
        for (const link of this.links.values()) this.announce(link);
      },
      onLapsed: (keyId) => void d.keyWatch.checkNow(keyId),
      onRelays: () => this.resync(),
    });
  }

  /** Lists every stored relay's announced agents (offline until their relay connects) and asks who holds what. */
  async start(): Promise<void> {
    for (const rec of await this.d.store.relays.list()) this.register(this.linkOf(rec), rec, storedCards(rec));
    this.mesh.tellAll({ t: 'who', from: this.mesh.origin });
    this.every(HOLD_RENEW_MS, () => this.renew());
    this.every(RELAY_SYNC_MS, () => {
      if (!this.syncing) this.resync();
    });
  }

  /**
   * Key `keyId` was revoked on this instance: what it holds open here and on every other instance (a relay's tunnel,
   * its streams) is checked now, not at the next key check. An instance that misses the message (Redis away for a
   * moment) still finds out at its next check.
   */
  keyRevoked(keyId: string): void {
    void this.d.keyWatch.checkNow(keyId);
    this.mesh.tellAll({ t: 'lapsed', from: this.mesh.origin, keyId });
  }

  /** Relay records were changed on this instance: every instance re-reads them now, not at the next sync. */
  recordsChanged(): void {
    this.resync();
    this.mesh.tellAll({ t: 'relays', from: this.mesh.origin });
  }

  private resync(): void {
    if (this.closed) return;
    void this.syncOnce().catch((e: unknown) => this.d.log('relay records not read (the next sync tries again)', { error: errorText(e) }));
  }

  /** Whether a relay's tunnel is live here or on another instance that renewed it lately. */
  online(workspace: string, name: string): boolean {
    const link = this.links.get(linkKey(workspace, name));
    return link !== undefined && this.isOnline(link);
  }

  /**
   * One read of the records at a time, joined by whoever asks meanwhile: a clock that jumps hours ahead, a slow store
   * or a stream of `held` news for relays not known here must not pile reads up.
   */
  private syncOnce(): Promise<void> {
    this.syncing ??= this.sync().finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  /** Reads the stored relay records: a removed relay's agents go and its tunnel closes; changed settings apply. */
  async sync(): Promise<void> {
    const records = await this.d.store.relays.list();
    if (this.closed) return;
    const seen = new Set<string>();
    for (const rec of records) {
      const k = linkKey(rec.workspace, rec.name);
      seen.add(k);
      const link = this.links.get(k);
      if (link?.session?.live && link.sessionKeyId !== rec.keyId) {
        // removed and added again under another key within one sync: the old key opens this relay no more
        this.d.log('relay disconnected: it was registered again with another key', { workspace: rec.workspace, relay: rec.name });
        link.session.end('the relay was registered again with another key', { code: CLOSE.policy, reason: 'relay key changed' });
      }
      if (!link) this.register(this.linkOf(rec), rec, storedCards(rec));
      else if (settingsOf(rec) !== link.settings) this.register(link, rec, this.isOnline(link) ? [...link.cards.values()] : storedCards(rec));
    }
    for (const [k, link] of [...this.links]) {
      if (seen.has(k)) continue;
      this.d.log('relay removed: its agents are gone', { workspace: link.workspace, relay: link.name });
      this.links.delete(k);
      link.remote = undefined;
      link.session?.end('the relay was removed', { code: CLOSE.policy, reason: 'relay removed' });
      for (const name of link.cards.keys()) this.d.agents.remove(link.workspace, name);
      link.cards.clear();
    }
  }

  async open(req: { authorization: string | undefined; address: string }): Promise<TunnelOpen> {
    if (this.closed) return { ok: false, status: 403, message: 'the gateway is shutting down' };
    return openTunnel(this.opening, req);
  }

  close(): void {
    this.closed = true;
    for (const stop of this.stopTimers) stop();
    for (const link of this.links.values()) link.session?.end('the gateway is shutting down', { code: CLOSE.goingAway, reason: 'gateway shutting down' });
  }

  private every(ms: number, fn: () => unknown): void {
    const i = this.stopTimers.length;
    const arm = () => {
      this.stopTimers[i] = this.d.timers.after(ms, () => {
        if (this.closed) return;
        void fn();
        arm();
      });
    };
    arm();
  }

  private register(link: RelayLink, rec: RelayRecord, cards: readonly RelayAgentCard[]): RelayAgentCard[] {
    return registerCards(this.linkDeps, link, rec, cards);
  }

  private linkOf(rec: RelayRecord): RelayLink {
    const k = linkKey(rec.workspace, rec.name);
    let link = this.links.get(k);
    if (!link) this.links.set(k, (link = new RelayLink(rec.workspace, rec.name, (l, turn) => this.runTurn(l, turn))));
    return link;
  }

  private liveRemote(link: RelayLink): RemoteHold | undefined {
    const r = link.remote;
    return r && this.d.clock.now() - r.seenAt <= HOLD_TTL_MS ? r : undefined;
  }

  private isOnline(link: RelayLink): boolean {
    return link.session?.live === true || this.liveRemote(link) !== undefined;
  }

  private healthOf(link: RelayLink, agent: string): RelayAgentHealth | undefined {
    return link.session?.live ? link.health.get(agent) : this.liveRemote(link)?.health.get(agent);
  }

  /** A turn of one of this instance's tasks: on the tunnel here, or forwarded to the instance holding it. */
  private runTurn(link: RelayLink, turn: AgentTurn): Promise<AgentRunResult> {
    const s = link.session?.live ? link.session : undefined;
    const remote = s ? undefined : this.liveRemote(link);
    if (!s && !remote)
      return Promise.resolve(fail('relay_offline', `Agent ${turn.agent.id} is offline: its relay ${link.name} is not connected; retry when it is back`));
    // a local agent its relay reports down fails now, not after the relay's local timeout. The relay's error text of
    // the check (local hosts, addresses) is not the caller's to read: only the fact and the time
    const h = this.healthOf(link, turn.agent.id);
    if (h && !h.up)
      return Promise.resolve(
        fail('relay_agent_down', `Agent ${turn.agent.id} is down: its relay ${link.name} cannot reach it (since ${h.checkedAt}); retry when it is back`),
      );
    const what = {
      agent: turn.agent.id,
      timeoutMs: turn.agent.timeoutMs,
      task: runTask(turn.task),
      message: turn.message,
      stream: link.cards.get(turn.agent.id)?.streaming ?? false,
      dialect: turn.task.dialect,
    };
    if (s) return s.run({ ...what, signal: turn.signal, onEvent: turn.onEvent });
    return this.mesh.forward(remote!.from, { ...what, workspace: link.workspace, relay: link.name }, { signal: turn.signal, onEvent: turn.onEvent });
  }

  /** A turn another instance forwarded: it runs on this instance's tunnel, if this one still holds it. */
  private runHere(t: RelayTurn & { workspace: string; relay: string }): Promise<AgentRunResult> {
    const s = this.links.get(linkKey(t.workspace, t.relay))?.session;
    if (!s?.live) return Promise.resolve(fail('relay_disconnected', `Relay ${t.relay} is no longer connected to the instance its turn was sent to`));
    return s.run(t);
  }

  /** Tells every instance this one holds the link's tunnel (on open, on health changes, as a lease renewal). */
  private announce(link: RelayLink): void {
    const s = link.session;
    if (!s?.live || this.closed) return;
    this.mesh.tellAll({
      t: 'held',
      from: this.mesh.origin,
      workspace: link.workspace,
      relay: link.name,
      since: s.since,
      settings: link.settings,
      agents: [...link.cards.keys()],
      health: [...link.health].map(([name, h]) => ({ name, ...h })),
    });
  }

  private renew(): void {
    for (const link of this.links.values()) {
      this.announce(link);
      const r = link.remote;
      if (r && !this.liveRemote(link)) {
        link.remote = undefined;
        this.d.log('relay tunnel on another instance not renewed: its agents are offline here', {
          workspace: link.workspace,
          relay: link.name,
          holder: r.from,
        });
        this.mesh.holderGone(r.from, link.workspace, link.name, 'its instance stopped answering');
      }
    }
  }

  /** Another instance holds a relay's tunnel. */
  private heard(m: Held): void {
    const link = this.links.get(linkKey(m.workspace, m.relay));
    if (!link) {
      // a relay registered after this instance last read the records: read them, then take the news
      // a read already under way may have begun before the record was written: the news waits for the next one
      const fresh = this.syncing ? this.syncing.catch(() => undefined).then(() => this.syncOnce()) : this.syncOnce();
      void fresh
        .then(() => this.links.has(linkKey(m.workspace, m.relay)) && this.heard(m))
        .catch((e: unknown) => this.d.log('relay records not read', { error: errorText(e) }));
      return;
    }
    const own = link.session?.live ? link.session : undefined;
    if (own) {
      // the later tunnel is the relay's: an older one here is a leftover the relay already left
      if (own.since >= m.since) {
        this.announce(link);
        return;
      }
      own.end('replaced by a tunnel of the same relay on another instance', { code: CLOSE.replaced, reason: 'replaced by a new tunnel' });
    }
    link.remote = { from: m.from, since: m.since, seenAt: this.d.clock.now(), health: new Map(m.health.map(({ name, ...h }) => [name, h])) };
    const sameAgents = m.agents.length === link.cards.size && m.agents.every((a) => link.cards.has(a));
    if (m.settings !== link.settings || !sameAgents) {
      void this.d.store.relays
        .get(link.workspace, link.name)
        .then((rec) => {
          if (rec && this.links.get(linkKey(rec.workspace, rec.name)) === link) this.register(link, rec, storedCards(rec, m.agents));
        })
        .catch((e: unknown) => this.d.log('relay record not read', { workspace: link.workspace, relay: link.name, error: errorText(e) }));
    }
  }

  private released(m: Released): void {
    const link = this.links.get(linkKey(m.workspace, m.relay));
    if (!link?.remote || link.remote.from !== m.from || link.remote.since !== m.since) return;
    link.remote = undefined;
    this.mesh.holderGone(m.from, m.workspace, m.relay, 'the tunnel ended');
  }
}
