// The relay: its local agents (from the config, or one read from LOCAL_AGENT_URL), the A2A client that calls them,
// the tunnel and the health checks, each a supervised XState actor (a crash of one restarts it, never the relay).
// `done` says how it ended: 0 when stopped, 1 when the retries ran out.
import { createActor, type SnapshotFrom } from 'xstate';
import { boundedCard } from '../src/protocol/relay-card-bounds.js';
import type { RelayAgentCard } from '../src/protocol/tunnel.js';
import { createA2AClient } from '../src/runtime/a2a-client/client.js';
import type { A2AClient, RemoteEndpoint } from '../src/runtime/a2a-client/types.js';
import { type Clock, systemClock, systemTimers, type Timers } from '../src/runtime/clock.js';
import { errorText, type Log } from '../src/runtime/log.js';
import { parseAllowlist, type Resolve } from '../src/runtime/net/guard.js';
import type { RelayConfig } from './config.js';
import { actorClock, startHealthChecks, type HealthChecks } from './health.js';
import { type CheckedStart, checkHello, checkRelayStart } from './preflight.js';
import { openSession, type Session, WELCOME_TIMEOUT_MS } from './session.js';
import { supervise } from './supervisor.js';
import type { RelayObserver, TunnelView } from './observer.js';
import { createTunnelMachine } from './tunnel-machine.js';
import { createReplay, type Replay } from './replay.js';

export interface RelayOptions {
  config: RelayConfig;
  log: Log;
  clock?: Clock;
  timers?: Timers;
  random?: () => number;
  resolve?: Resolve;
  /** allow ws:// to a gateway that is not on loopback */
  insecure?: boolean;
  /** the start checks' result, when the caller ran them before listening (the command does: preflight.ts) */
  checked?: CheckedStart;
  /** backoff and liveness numbers (relay.md "The tunnel"); tests shrink them */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  heldMs?: number;
  pingMs?: number;
  pongTimeoutMs?: number;
  welcomeTimeoutMs?: number;
  /** restart bounds of each supervised actor (5 in 60 s by default; see supervisor.ts) */
  maxRestarts?: number;
  restartWindowMs?: number;
  /**
   * Fault injection, for tests only (no config or flag sets it): hooks called inside the actors' logic, a throw from
   * one crashing that actor as a bug would. `health` as an agent's check result is taken, `tunnel` as a session's end is.
   */
  faults?: { health?: (agent: string) => void; tunnel?: () => void };
  /** watches the tunnel, health rounds and turns (the admin UI) */
  observer?: RelayObserver;
}

export interface RelayEnd {
  code: number;
  message: string;
}

export interface Relay {
  /** resolves once the relay stopped or gave up */
  readonly done: Promise<RelayEnd>;
  /** the tunnel's state and its backoff numbers (see TunnelView) */
  tunnel(): TunnelView;
  health: HealthChecks;
  /** the agents served: each card and its local URL */
  agents(): Array<{ card: RelayAgentCard; url: string }>;
  /** runs a message against a local agent as a new task (the admin UI's replay), observed like any turn */
  replay: Replay;
  stop(): Promise<void>;
}

/** Local agents are on private networks by design, and their URLs are the operator's own: every address is admitted. */
const LOCAL_NETWORKS = parseAllowlist(['0.0.0.0/0', '::/0']);

/** A card's name made into an agent name (letters, digits, dot, dash, underscore). */
const agentName = (s: string): string =>
  s
    .trim()
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64) || 'agent';

/**
 * The card of the LOCAL_AGENT_URL agent, read from it (retried each health interval until it answers), within the
 * cards' bounds: a local agent's card is its own to write, and goes up the tunnel in one frame.
 */
async function discoverLocal(o: {
  client: A2AClient;
  url: string;
  log: Log;
  timers: Timers;
  intervalMs: number;
  stopped: () => boolean;
}): Promise<RelayAgentCard | undefined> {
  const endpoint: RemoteEndpoint = { url: o.url, credentials: { kind: 'none' } };
  for (;;) {
    if (o.stopped()) return undefined;
    try {
      const d = await o.client.discover(endpoint);
      const raw = d.card.raw as { skills?: Array<{ id?: unknown; name?: unknown; description?: unknown }> };
      const skills = (Array.isArray(raw.skills) ? raw.skills : [])
        .filter((s) => typeof s.id === 'string' && typeof s.name === 'string' && s.id !== '' && s.name !== '')
        .map((s) => ({ id: s.id as string, name: s.name as string, description: typeof s.description === 'string' ? s.description : '' }));
      return boundedCard({ name: agentName(d.card.name), description: d.card.description, skills, streaming: true }).card;
    } catch (e) {
      o.log('local agent card not readable yet, retrying', { url: o.url, error: errorText(e) });
      await new Promise<void>((r) => o.timers.after(o.intervalMs, r));
    }
  }
}

export async function startRelay(o: RelayOptions): Promise<Relay> {
  const c = o.config;
  const checked = o.checked ?? checkRelayStart({ config: c, insecure: o.insecure ?? false });
  const clock = o.clock ?? systemClock;
  const timers = o.timers ?? systemTimers;
  const ca = checked.ca;
  const client = createA2AClient({
    clock,
    timers,
    allowlist: LOCAL_NETWORKS,
    ...(o.resolve && { resolve: o.resolve }),
  });
  const intervalMs = c.health_check_interval * 1000;
  const restartBounds = {
    ...(o.maxRestarts !== undefined && { maxRestarts: o.maxRestarts }),
    ...(o.restartWindowMs !== undefined && { restartWindowMs: o.restartWindowMs }),
  };
  let stopping = false;

  // the listed agents' cards, checked; LOCAL_AGENT_URL's joins them once read
  const cards: RelayAgentCard[] = [...checked.cards];
  const endpoints = new Map<string, RemoteEndpoint>();
  for (const a of c.agents) endpoints.set(a.name, { url: a.local_url, credentials: a.credentials, allowedOrigins: a.allowed_origins });
  if (c.local_agent_url !== undefined) {
    const card = await discoverLocal({ client, url: c.local_agent_url, log: o.log, timers, intervalMs, stopped: () => stopping });
    if (card) {
      cards.push(card);
      endpoints.set(card.name, { url: c.local_agent_url, credentials: { kind: 'none' } });
      checkHello({ workspace: c.workspace_id, cards });
    }
  }

  let session: Session | undefined;
  /** when the gateway welcomed the current session */
  let upSince: number | undefined;
  const health = startHealthChecks({
    client,
    clock,
    timers,
    log: o.log,
    endpoints,
    intervalMs,
    // before the welcome nothing goes up: the welcome's snapshot carries the state then
    onChange: (changed) => upSince !== undefined && session?.send({ t: 'health', agents: changed }),
    ...(o.faults?.health && { fault: o.faults.health }),
    ...restartBounds,
    ...(o.observer?.health && { onRound: (results, at) => o.observer?.health?.(results, at) }),
  });

  const machine = createTunnelMachine({
    baseMs: o.backoffBaseMs ?? 1_000,
    capMs: o.backoffCapMs ?? 60_000,
    retryAttempts: c.retry_attempts,
    random: o.random ?? Math.random,
    now: () => clock.now(),
    ...(o.faults?.tunnel && { fault: o.faults.tunnel }),
    connect: (signal) => {
      const s = openSession({
        gatewayUrl: c.gateway_url,
        apiKey: c.api_key,
        ...(ca !== undefined && { ca }),
        workspace: c.workspace_id,
        cards,
        endpoints,
        client,
        clock,
        timers,
        log: o.log,
        debug: c.log_level === 'debug',
        localTimeoutMs: c.local_timeout_seconds * 1000,
        heldMs: o.heldMs ?? 10_000,
        pingMs: o.pingMs ?? 15_000,
        pongTimeoutMs: o.pongTimeoutMs ?? 45_000,
        welcomeTimeoutMs: o.welcomeTimeoutMs ?? WELCOME_TIMEOUT_MS,
        health: () => health.current(),
        onWelcome: () => {
          upSince = clock.now();
          o.observer?.tunnel?.(view());
        },
        observer: o.observer,
      });
      session = s;
      signal.addEventListener('abort', () => s.close(), { once: true });
      return s.done.then((end) => {
        if (session === s) {
          session = undefined;
          upSince = undefined;
        }
        return end;
      });
    },
  });

  // the supervisor's first actor reports before `tunnel` below is assigned: its restarts are 0 then
  let restarts = () => 0;
  const viewOf = (s: SnapshotFrom<typeof machine>): TunnelView => ({
    // a crashed machine whose restart waits for the supervisor's window
    state: s.status === 'error' ? 'crashed' : String(s.value),
    upSince,
    restarts: restarts(),
    ...s.context,
  });
  let resolveDone!: (end: RelayEnd) => void;
  const done = new Promise<RelayEnd>((r) => {
    resolveDone = r;
  });
  let lastState = '';
  const onTunnel = (snap: SnapshotFrom<typeof machine>) => {
    const state = String(snap.value);
    if (state !== lastState && state === 'waiting') {
      const { lastError, failures, delayMs, retryAfterMs } = snap.context;
      // retry_after_ms: the gateway said when to come back, which is why the wait is what it is
      o.log('relay tunnel down, retrying', {
        error: lastError,
        attempt: failures,
        retry_in_ms: delayMs,
        ...(retryAfterMs !== undefined && { retry_after_ms: retryAfterMs }),
      });
    }
    lastState = state;
    o.observer?.tunnel?.(viewOf(snap));
    if (state === 'spent') {
      const message = `a2a-relay: gave up after ${snap.context.failures} failed connection attempts (retry_attempts ${c.retry_attempts}); last error: ${snap.context.lastError}`;
      resolveDone({ code: 1, message });
    } else if (state === 'stopped') resolveDone({ code: 0, message: 'a2a-relay stopped' });
  };
  const tunnel = supervise({
    name: 'tunnel',
    log: o.log,
    clock,
    timers,
    ...(o.maxRestarts !== undefined && { maxRestarts: o.maxRestarts }),
    ...(o.restartWindowMs !== undefined && { windowMs: o.restartWindowMs }),
    create: () => {
      const actor = createActor(machine, { clock: actorClock(timers) });
      lastState = '';
      // the supervisor observes the crash; this observer's own error handler only keeps XState from calling it uncaught
      actor.subscribe({ next: onTunnel, error: () => {} });
      // a crashed machine leaves its session open (XState stops no child of an errored actor): it is closed here
      return { actor, dispose: () => session?.close() };
    },
  });
  restarts = () => tunnel.restarts();
  const view = (): TunnelView => viewOf(tunnel.current().getSnapshot());
  void done.then(async () => {
    tunnel.stop();
    health.stop();
    await client.close();
  });

  return {
    done,
    health,
    tunnel: view,
    agents: () => cards.map((card) => ({ card, url: endpoints.get(card.name)?.url ?? '' })),
    replay: createReplay({
      client,
      clock,
      timers,
      workspace: c.workspace_id,
      endpoints,
      timeoutMs: c.local_timeout_seconds * 1000,
      observer: o.observer,
    }),
    async stop() {
      stopping = true;
      const s = session;
      const actor = tunnel.current();
      // STOP closes the session (its invocation's signal aborts); a crashed tunnel waiting for its restart has none
      if (actor.getSnapshot().status === 'active') actor.send({ type: 'STOP' });
      else resolveDone({ code: 0, message: 'a2a-relay stopped' });
      if (s) await s.done;
      await done;
    },
  };
}
