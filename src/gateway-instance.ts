// What starting a gateway takes (StartOptions) and what a started one exposes (GatewayInstance): its address, its
// parts that tests and the CLI reach, and its close.
import type { ConnectionSupervisor } from './actors/connection-supervisor.js';
import type { Config } from './config/schema.js';
import type { AgentRegistry } from './runtime/agents/registry.js';
import type { Clock, Timers } from './runtime/clock.js';
import type { IndexRepair } from './runtime/index-repair.js';
import type { Log } from './runtime/log.js';
import type { GatewayMetrics } from './runtime/metrics/metrics.js';
import type { Resolve } from './runtime/net/guard.js';
import type { Presence } from './runtime/presence.js';
import type { PushRuntime } from './runtime/push/push.js';
import type { RecentDeliveries } from './runtime/push/recent.js';
import type { RetentionSweeper } from './runtime/retention.js';
import type { Store } from './runtime/store/types.js';
import type { KeyUsage } from './gateway/key-usage.js';

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
