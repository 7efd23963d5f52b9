// What an admin route handler gets and what the admin API is assembled from.
import type { TaskSupervisor } from '../../actors/task-supervisor.js';
import type { ConnectionStatus } from '../../protocol/connections.js';
import type { AgentRegistry } from '../../runtime/agents/registry.js';
import type { RateLimits } from '../../protocol/records.js';
import type { Clock, Timers } from '../../runtime/clock.js';
import type { Limiter } from '../../runtime/limiter/types.js';
import type { EventBus } from '../../runtime/events/bus.js';
import type { KeyHasher } from '../../runtime/keys.js';
import type { Log } from '../../runtime/log.js';
import type { Allowlist, Resolve } from '../../runtime/net/guard.js';
import type { PushRuntime } from '../../runtime/push/push.js';
import type { RecentDeliveries } from '../../runtime/push/recent.js';
import type { Store } from '../../runtime/store/types.js';
import type { AdminHttpRequest, HttpReply } from '../api.js';
import type { CardSettings } from '../card.js';
import type { KeyUsage } from '../key-usage.js';
import type { KeyWatch } from '../key-watch.js';

/** The live side of outbound connections (the server's supervisor): their actors' state, a card fetch, a rescan. */
export interface LiveConnections {
  status(workspace: string, name: string): ConnectionStatus | undefined;
  testCard(workspace: string, name: string): Promise<{ dialect: string; card: Record<string, unknown> }>;
  rescan(): Promise<void>;
}

/**
 * The live side of relays: whether a relay's tunnel is connected now (here, or on another instance), and the news of a
 * revoked key or of changed relay records, which every instance acts on at once (RelayHub).
 */
export interface LiveRelays {
  online(workspace: string, name: string): boolean;
  keyRevoked(keyId: string): void;
  recordsChanged(): void;
}

export interface AdminDeps {
  store: Store;
  /** the server secret: keys are hashed and connection credentials sealed under it */
  secret: Buffer;
  hasher: KeyHasher;
  clock: Clock;
  /** the session watch's checks (tests: the manual clock) */
  timers: Timers;
  agents: AgentRegistry;
  supervisor: TaskSupervisor;
  bus: EventBus;
  push: Pick<PushRuntime, 'secrets'>;
  deliveries: RecentDeliveries;
  usage: KeyUsage;
  /** ends a live view once the key behind it is revoked or expires, as it ends the key's A2A streams */
  keyWatch: Pick<KeyWatch, 'watch'>;
  connections: LiveConnections;
  relays: LiveRelays;
  /** internal addresses a connection URL may reach (config push.allowlist) and the DNS for the check */
  allowlist: Allowlist;
  resolve?: Resolve;
  card: CardSettings;
  publicUrl?: string;
  /** how long a dashboard session lasts */
  sessionTtlMs: number;
  /** how soon a live view ends once its session is signed out (on any instance) or expires (streaming.keyCheckMs) */
  sessionCheckMs: number;
  /** the gateway's limiter (the A2A endpoint's): the admin API's budgets are buckets of their own in it */
  limiter: Limiter;
  /** each admin key's budget of admin API calls */
  limits: RateLimits;
  /** failed admin authentications allowed per client address */
  authFailures: RateLimits;
  /** live views (SSE) one admin key may hold open on this instance at once (dashboard.maxStreamsPerKey) */
  maxStreamsPerKey: number;
  maxBodyBytes: number;
  log: Log;
}

/** One authenticated admin call: the workspace it manages, its path parameters, its parsed JSON body and query. */
export interface AdminCall {
  workspace: string;
  /** the key behind the call: the Bearer admin key, or the one that signed the session in */
  keyId: string;
  /** the session behind the call (its store id), when it came with the cookie rather than a Bearer key */
  sessionId?: string;
  params: string[];
  body: unknown;
  query: URLSearchParams;
  req: AdminHttpRequest;
}

/** A handler answers a value (sent as JSON 200) or a whole reply (another status, a stream). */
export type AdminHandler = (c: AdminCall) => Promise<unknown>;

export interface AdminRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** matched against the path after /api/admin; its groups are the params (percent-decoded) */
  path: RegExp;
  handler: AdminHandler;
}

/** A handler's answer that is already a reply (status other than 200, or a stream). */
export class Reply {
  constructor(readonly reply: HttpReply) {}
}
