// The composition root: config -> runtime -> actors -> gateway -> transport. The only place that picks concrete engines.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { TaskSupervisor } from './actors/task-supervisor.js';
import { agentsOf, checkAgentEntries, type Config } from './config.js';
import { checkTlsFiles } from './tls-files.js';
import { AgentRegistry } from './runtime/agents/registry.js';
import { createWorkerRunner } from './runtime/agents/worker-runner.js';
import { createRemoteRunner } from './runtime/agents/remote-runner.js';
import type { ConnectionSupervisor } from './actors/connection-supervisor.js';
import { createOutbound } from './outbound.js';
import { createGateway } from './gateway/gateway.js';
import { PushQuota } from './gateway/push-quota.js';
import { AuthFailureThrottle } from './runtime/limiter/auth-throttle.js';
import { KeyWatch } from './gateway/key-watch.js';
import { RelayHub } from './gateway/relay/hub.js';
import { systemClock, systemTimers, type Clock, type Timers } from './runtime/clock.js';
import { createLocalBus, createRedisBus, type EventBus } from './runtime/events/bus.js';
import { KeyHasher } from './runtime/keys.js';
import { Presence } from './runtime/presence.js';
import { RetentionSweeper } from './runtime/retention.js';
import { IndexRepair } from './runtime/index-repair.js';
import { createMemoryLimiter } from './runtime/limiter/memory.js';
import { createRedisLimiter } from './runtime/limiter/redis.js';
import { limiterPrefix } from './runtime/redis/keys.js';
import type { Limiter } from './runtime/limiter/types.js';
import { errorText, silentLog, type Log } from './runtime/log.js';
import { SaidOnce } from './runtime/said-once.js';
import { createAgentPool } from './runtime/pool/index.js';
import { createPushRuntime, type PushRuntime } from './runtime/push/push.js';
import type { Resolve } from './runtime/net/guard.js';
import type { StoreCorruptError } from './runtime/store/errors.js';
import type { Store } from './runtime/store/types.js';
import { startHttpServer } from './transport/app.js';
import { checkListenable } from './transport/listen.js';
import { readiness } from './runtime/readiness.js';
import { openSecret, openStore } from './open-store.js';
import { lockDataDir } from './data-dir-lock.js';
import { createMetrics, noMetrics, type GatewayMetrics } from './runtime/metrics/metrics.js';
import { meteredCalls } from './runtime/metrics/metered.js';
import { meteredTunnel } from './gateway/metered-tunnel.js';
import { createAdmin } from './gateway/admin/admin.js';
import { KeyUsage } from './gateway/key-usage.js';
import { RecentDeliveries } from './runtime/push/recent.js';
import { parseAllowlist } from './runtime/net/guard.js';
import { trustedProxies } from './runtime/net/client-address.js';

export interface GatewayInstance {
  readonly url: string;
  readonly port: number;
  readonly store: Store;
  readonly secret: Buffer;
  readonly config: Config;
  /** webhook delivery: the workspace secrets, and `idle()` for tests that move a ManualClock */
  readonly push: PushRuntime;
  /** the agents it runs: add, update and remove them while it serves (cards and agents/list follow) */
  readonly agents: AgentRegistry;
  /** client mode: the outbound connections' actors (`status()`, `rescan()` for tests) */
  readonly connections: ConnectionSupervisor;
  /** task retention: `idle()` for tests that move a ManualClock past a sweep */
  readonly retention: RetentionSweeper;
  /** on Redis (unless redis.indexRepairMs is 0): the workspace index repair, `idle()` for tests that move a ManualClock */
  readonly indexRepair: IndexRepair | undefined;
  /** on Redis: this instance's beats and its sweep for dead instances' tasks, `idle()` for tests that move a ManualClock */
  readonly presence: Presence | undefined;
  /** keys' last uses: `idle()` for tests that move a ManualClock past a flush (KEY_USAGE_FLUSH_MS) */
  readonly usage: KeyUsage;
  /** the dashboard's recent deliveries: `idle()` once their records are written */
  readonly deliveries: RecentDeliveries;
  /** what GET /metrics serves (readable after close, with the process metrics stopped) */
  readonly metrics: GatewayMetrics;
  /** drains: stops listening, stops live tasks (stored as last persisted), closes pool and store; idempotent */
  close(): Promise<void>;
}

/** Webhook delivery attempts the dashboard lists per workspace. */
export const RECENT_DELIVERIES = 100;
/** How often an instance writes its keys' last uses to the store: the dashboard's "last used" lags by up to this. */
export const KEY_USAGE_FLUSH_MS = 60_000;

export interface StartOptions {
  config: Config;
  clock?: Clock;
  /** timers for pings and retries (a ManualClock serves as both in tests) */
  timers?: Timers;
  log?: Log;
  /** the server secret; default: A2A_SECRET, else `<dataDir>/secret` */
  secret?: Buffer;
  /** resolves webhook host names (default: node's dns.lookup, every address); tests stand in for DNS with it */
  lookup?: Resolve;
}

export { openSecret, openStore };

export async function startGateway(o: StartOptions): Promise<GatewayInstance> {
  const { config } = o;
  const clock = o.clock ?? systemClock;
  const timers = o.timers ?? systemTimers;
  const log = o.log ?? silentLog;
  checkAgentEntries(agentsOf(config), existsSync);
  checkTlsFiles(config.tls);
  // before anything is written: a start refused at its listen left the data dir, its secret and store behind
  await checkListenable({ host: config.host, port: config.port });
  const secret = await openSecret(config, o.secret);
  // a Redis connection that drops says so once per reason, not once per retry
  let lastRedisError = '';
  const onRedisError = (e: Error) => {
    const text = errorText(e);
    if (text !== lastRedisError) log('redis connection error', { error: text });
    lastRedisError = text;
  };
  // a damaged record (another version's, or a damaged file) is left out of listings, so the rest still start and
  // serve; said once per record, not on every rescan
  const reportedCorrupt = new SaidOnce();
  const recycleSaid = new SaidOnce(1000);
  const onCorrupt = (e: StoreCorruptError) => {
    if (!reportedCorrupt.first(`${e.record} ${e.id}`)) return;
    log('damaged stored record left out; repair or remove it', { record: e.record, id: e.id, error: e.message });
  };
  const store = await openStore(config, { onError: onRedisError, onCorrupt });
  // instances share a Redis store by design; an LMDB dir has one server, whose recovery assumes no other runs
  const dirLock =
    config.store === 'lmdb'
      ? await lockDataDir(config.dataDir).catch(async (e: unknown) => {
          await store.close();
          throw e;
        })
      : undefined;
  const commandTimeoutMs = config.redis.commandTimeoutMs;
  const limiter: Limiter =
    config.store === 'redis'
      ? await createRedisLimiter({ url: config.redisUrl, prefix: limiterPrefix(config.redisPrefix), clock, commandTimeoutMs, onError: onRedisError })
      : createMemoryLimiter({ clock });
  // two warm threads at least: an agent that holds one (a long or busy run) never makes the next run wait for a
  // cold thread start (a second or more under load)
  const minThreads = config.pool.minThreads ?? 2;
  const pool = createAgentPool({
    minThreads,
    maxThreads: Math.max(minThreads, config.pool.maxThreads ?? 4),
    maxHeapMb: config.pool.maxHeapMb,
    maxOutputBytes: config.tasks.maxTaskBytes,
    // an agent that leaves a timer in every turn costs a thread start per turn: the operator is told once what it leaves
    onRecycle: ({ agentId, left }) => {
      if (recycleSaid.first(`${agentId}\n${left.join('\n')}`))
        log('agent worker replaced after a turn: the agent left something running or changed in it (said once per agent and kinds)', { agent: agentId, left });
    },
  });
  const outbound = createOutbound({ config, store, secret, clock, timers, log, resolve: o.lookup });
  const metrics = config.metrics.enabled ? createMetrics() : noMetrics;
  const calls = meteredCalls(outbound.supervisor, metrics);
  const workers = createWorkerRunner({ pool, log, calls });
  const remotes = createRemoteRunner({ calls });
  const agents = new AgentRegistry(agentsOf(config).map((spec) => ({ spec, runner: spec.kind === 'remote' ? remotes : workers })));
  const bus: EventBus =
    config.store === 'redis'
      ? await createRedisBus({ url: config.redisUrl, prefix: config.redisPrefix, commandTimeoutMs, onError: onRedisError })
      : createLocalBus();
  const deliveries = new RecentDeliveries({
    store: store.dashboard,
    perWorkspace: RECENT_DELIVERIES,
    clock,
    onError: (e) => log('webhook delivery not recorded for the dashboard', { error: errorText(e) }),
  });
  // stable across restarts so a restarted instance recovers its own tasks; port 0 has no stable name
  const instanceId = config.instanceId ?? (config.store === 'lmdb' ? 'embedded' : `${hostname()}:${config.port === 0 ? `pid${process.pid}` : config.port}`);
  const push = createPushRuntime({
    store,
    secret,
    clock,
    timers,
    log,
    settings: config.push,
    resolve: o.lookup,
    permits: (key, agentId) => agents.permits(key, agentId),
    // the same stable name: this run frees the push leases its previous run took and never finished
    holder: { instance: instanceId, boot: randomUUID() },
    onAttempt: (a) => {
      metrics.pushAttempt(a.result);
      deliveries.record(a);
    },
  });

  if (config.store === 'redis' && config.instanceId === undefined && config.port === 0) {
    // its next start cannot know its old tasks for its own: they wait for the presence sweep instead (and a cancel of
    // one waits for a dead instance meanwhile), and each start leaves one more beat key in Redis until it expires
    log('this instance has no stable name (port 0 and no A2A_INSTANCE_ID)', {
      instance: instanceId,
      effect: `tasks it leaves running are failed only once instances.deadAfterMs has passed after its restart (reason instance_lost), not at its next start`,
      fix: 'set A2A_INSTANCE_ID (config instanceId) to a name unique to this instance and kept across its restarts',
    });
  }
  const supervisor = new TaskSupervisor({
    store: store.tasks,
    bus,
    retainEvents: config.streaming.eventRetention,
    clock,
    timers,
    cancelTimeoutMs: 10_000,
    // presence is made below, before any call can come
    ownerGone: (owner) => presence?.isDead(owner) ?? Promise.resolve(false),
    agents,
    firstWriteHoldMs: config.tasks.firstWriteHoldMs,
    maxTaskBytes: config.tasks.maxTaskBytes,
    instanceId,
    pushJobs: (records) => push.prepare(records),
    onWriteFailure: (e, t) => log('task change not stored', { task: t.id, workspace: t.workspaceId, error: errorText(e) }),
  });
  const recovered = await supervisor.recover();
  if (recovered > 0) log('recovered tasks left running by a previous process', { failed: recovered });
  // instances share work only on Redis: there each beats, and fails what a dead one left running
  const presence =
    config.store === 'redis'
      ? new Presence({
          meta: store.meta,
          clock,
          timers,
          instanceId,
          beatMs: config.instances.heartbeatMs,
          deadAfterMs: config.instances.deadAfterMs,
          onError: (e) => log('instance heartbeat failed', { error: e instanceof Error ? e.message : String(e) }),
          // the scan that fails dead instances' tasks: its own line, so an operator can tell which of the two failed
          onSweepError: (e) => log('instance sweep failed', { error: errorText(e) }),
          onTwin: () =>
            log('another running gateway process uses this instance id', {
              instance: instanceId,
              effect:
                "each one's start fails the tasks the other runs (reason gateway_restart) and frees the webhook deliveries it claimed (sent twice); neither is ever judged dead",
              fix: 'give every instance its own A2A_INSTANCE_ID (config instanceId)',
            }),
        })
      : undefined;
  presence?.start(async () => {
    const lost = await supervisor.reclaim((owner) => presence.isDead(owner));
    if (lost > 0) log('failed tasks of a gateway instance that stopped answering', { failed: lost });
  });
  push.start();
  await outbound.supervisor.start();
  const retention = new RetentionSweeper({
    store,
    clock,
    timers,
    ...config.retention,
    onError: (e) => log('task retention sweep failed', { error: errorText(e) }),
    onSwept: (n) => log('deleted tasks and outbound results past their retention', { deleted: n }),
  });
  retention.start();
  const indexRepair =
    config.store === 'redis' && config.redis.indexRepairMs > 0
      ? new IndexRepair({
          tasks: store.tasks,
          timers,
          everyMs: config.redis.indexRepairMs,
          onError: (e) => log('workspace index repair failed', { error: errorText(e) }),
          onRepaired: (n) => log('added tasks an older instance wrote to the workspace index', { added: n }),
        })
      : undefined;
  indexRepair?.start();

  const keyWatch = new KeyWatch({
    keys: store.keys,
    clock,
    timers,
    everyMs: config.streaming.keyCheckMs,
    onError: (e) => log('key check failed', { error: errorText(e) }),
  });
  const hasher = new KeyHasher({ secret });
  // the A2A endpoint and the relay tunnel test the same keys: one budget of failures per address for both
  const authFailures = new AuthFailureThrottle({ limiter, limits: config.authFailures, bucket: 'auth-failed' });
  const relays = new RelayHub({ store, agents, hasher, keyWatch, bus, clock, timers, log, authFailures });
  await relays.start();
  metrics.sources({
    tasksByState: () => supervisor.liveStates(),
    connectionsByState: () => outbound.supervisor.states(),
    relayAgents: () => relayAgentsUp(agents),
    agentPool: () => pool.stats(),
  });
  const usage = new KeyUsage({
    store: store.dashboard,
    timers,
    flushMs: KEY_USAGE_FLUSH_MS,
    onError: (e) => log('key last-used times not stored', { error: errorText(e) }),
  });
  const admin = config.dashboard.enabled
    ? createAdmin({
        store,
        secret,
        hasher,
        clock,
        timers,
        agents,
        supervisor,
        bus,
        push,
        deliveries,
        usage,
        keyWatch,
        connections: outbound.supervisor,
        relays,
        allowlist: parseAllowlist(config.push.allowlist, 'push.allowlist'),
        ...(o.lookup && { resolve: o.lookup }),
        card: { name: config.card.name, description: config.card.description, streaming: true, pushNotifications: true },
        ...(config.publicUrl && { publicUrl: config.publicUrl }),
        sessionTtlMs: config.dashboard.sessionTtlMs,
        sessionCheckMs: config.streaming.keyCheckMs,
        limiter,
        limits: config.dashboard.limits,
        authFailures: config.dashboard.authFailures,
        maxStreamsPerKey: config.dashboard.maxStreamsPerKey,
        maxBodyBytes: Math.min(config.maxBodyBytes, 256 * 1024),
        log,
      })
    : undefined;
  const gateway = createGateway({
    admin,
    usage,
    authFailures,
    parts: {
      store,
      clock,
      timers,
      supervisor,
      agents,
      bus,
      push,
      streaming: { pingIntervalMs: config.streaming.pingIntervalMs },
      keyWatch,
      pushQuota: new PushQuota({ maxPerTask: config.push.maxConfigsPerTask, configs: store.pushConfigs }),
      card: { name: config.card.name, description: config.card.description, streaming: true, pushNotifications: true },
    },
    limiter,
    hasher,
    tunnel: meteredTunnel(relays, metrics),
    metrics: config.metrics.enabled ? metrics : undefined,
    defaultLimits: config.limits,
    log,
    maxBodyBytes: config.maxBodyBytes,
    maxBatchSize: config.maxBatchSize,
    maxStreamsPerKey: config.streaming.maxStreamsPerKey,
    publicUrl: config.publicUrl,
    ready: () => readiness({ store, bus }),
  });
  const http = await startHttpServer({
    gateway,
    host: config.host,
    port: config.port,
    log,
    sse: { maxBufferedBytes: config.streaming.maxBufferedBytes },
    bodyTimeoutMs: config.bodyTimeoutMs,
    timers,
    tls: config.tls,
    ...(config.trustedProxies.length > 0 && { proxies: trustedProxies(config.trustedProxies) }),
  });

  let closing: Promise<void> | undefined;
  return {
    url: http.url,
    port: http.port,
    store,
    secret,
    config,
    push,
    agents,
    connections: outbound.supervisor,
    retention,
    indexRepair,
    presence,
    usage,
    deliveries,
    metrics,
    close() {
      closing ??= (async () => {
        await presence?.stop();
        keyWatch.stop();
        relays.close();
        await retention.stop();
        await indexRepair?.stop();
        await http.close();
        // no scrape can come now; the process metrics' monitor and GC observer would outlive the gateway
        metrics.close();
        await supervisor.stop();
        await outbound.close();
        await push.stop();
        await deliveries.idle();
        await usage.stop();
        await pool.close();
        await bus.close();
        await limiter.close();
        await store.close();
        await dirLock?.release();
      })();
      return closing;
    },
  };
}

/** Relay agents that take turns now (relay connected, local agent not reported down) and those that do not. */
function relayAgentsUp(agents: AgentRegistry): { up: number; down: number } {
  let up = 0;
  let down = 0;
  for (const a of agents.specs) {
    if (a.kind !== 'relay') continue;
    if (agents.online(a.workspace, a.id) && agents.health(a.workspace, a.id)?.up !== false) up++;
    else down++;
  }
  return { up, down };
}
