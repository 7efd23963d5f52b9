// The composition root: config -> runtime -> actors -> gateway -> transport, what starts in which order and what closes
// in which order. With the files beside it (open-store.ts, engines.ts), the only place that picks concrete engines.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { TaskSupervisor } from './actors/task-supervisor.js';
import { createGatewayPool } from './agent-pool.js';
import { configuredAdmin } from './admin-api.js';
import { agentsOf, checkAgentEntries } from './config/agents.js';
import { openBus, openLimiter } from './engines.js';
import type { GatewayInstance, StartOptions } from './gateway-instance.js';
import { instanceIdOf, warnUnstableInstanceId } from './instance-id.js';
import { instancePresence } from './instance-presence.js';
import { damagedRecordLog, redisErrorLog } from './store-logs.js';
import { checkTlsFiles } from './tls-files.js';
import { AgentRegistry } from './runtime/agents/registry.js';
import { relayAgentsUp } from './runtime/agents/relay-agents-up.js';
import { createWorkerRunner } from './runtime/agents/worker-runner.js';
import { createRemoteRunner } from './runtime/agents/remote-runner.js';
import { createOutbound } from './outbound.js';
import { createGateway } from './gateway/gateway.js';
import { PushQuota } from './gateway/push-quota.js';
import { AuthFailureThrottle } from './runtime/limiter/auth-throttle.js';
import { KeyWatch } from './gateway/key-watch.js';
import { RelayHub } from './gateway/relay/hub.js';
import { systemClock, systemTimers } from './runtime/clock.js';
import { KeyHasher } from './runtime/keys.js';
import { RetentionSweeper } from './runtime/retention.js';
import { IndexRepair } from './runtime/index-repair.js';
import { errorText, silentLog } from './runtime/log.js';
import { createPushRuntime } from './runtime/push/push.js';
import { startHttpServer } from './transport/app.js';
import { checkListenable } from './transport/listen.js';
import { readiness } from './runtime/readiness.js';
import { openSecret, openStore } from './open-store.js';
import { lockDataDir } from './data-dir-lock.js';
import { createMetrics, noMetrics } from './runtime/metrics/metrics.js';
import { meteredCalls } from './runtime/metrics/metered.js';
import { meteredTunnel } from './gateway/metered-tunnel.js';
import { KeyUsage } from './gateway/key-usage.js';
import { RecentDeliveries } from './runtime/push/recent.js';
import { trustedProxies } from './runtime/net/client-address.js';

/** Webhook delivery attempts the dashboard lists per workspace. */
export const RECENT_DELIVERIES = 100;
/** How often an instance writes its keys' last uses to the store: the dashboard's "last used" lags by up to this. */
export const KEY_USAGE_FLUSH_MS = 60_000;

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
  const onRedisError = redisErrorLog(log);
  const store = await openStore(config, { onError: onRedisError, onCorrupt: damagedRecordLog(log) });
  // instances share a Redis store by design; an LMDB dir has one server, whose recovery assumes no other runs
  const dirLock =
    config.store === 'lmdb'
      ? await lockDataDir(config.dataDir).catch(async (e: unknown) => {
          await store.close();
          throw e;
        })
      : undefined;
  const limiter = await openLimiter({ config, clock, onError: onRedisError });
  const pool = createGatewayPool({ config, log });
  const outbound = createOutbound({ config, store, secret, clock, timers, log, resolve: o.lookup });
  const metrics = config.metrics.enabled ? createMetrics() : noMetrics;
  const calls = meteredCalls(outbound.supervisor, metrics);
  const workers = createWorkerRunner({ pool, log, calls });
  const remotes = createRemoteRunner({ calls });
  const agents = new AgentRegistry(agentsOf(config).map((spec) => ({ spec, runner: spec.kind === 'remote' ? remotes : workers })));
  const bus = await openBus({ config, onError: onRedisError });
  const deliveries = new RecentDeliveries({
    store: store.dashboard,
    perWorkspace: RECENT_DELIVERIES,
    clock,
    onError: (e) => log('webhook delivery not recorded for the dashboard', { error: errorText(e) }),
  });
  const instanceId = instanceIdOf(config);
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

  warnUnstableInstanceId({ config, instanceId, log });
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
  const presence = instancePresence({ config, store, clock, timers, instanceId, log });
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
  // the card the A2A endpoint and the dashboard both serve
  const card = { name: config.card.name, description: config.card.description, streaming: true, pushNotifications: true };
  const usage = new KeyUsage({
    store: store.dashboard,
    timers,
    flushMs: KEY_USAGE_FLUSH_MS,
    onError: (e) => log('key last-used times not stored', { error: errorText(e) }),
  });
  const admin = configuredAdmin({
    config,
    parts: {
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
      card,
      limiter,
      log,
    },
    lookup: o.lookup,
  });
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
      card,
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
