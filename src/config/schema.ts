// The one config schema (the schema is the type): the top-level settings, with the setting groups of sections.ts and
// the agent list of agents.ts under their keys. Where the values come from is load.ts's business.
import { z } from 'zod';
import { plainDecimal } from '../protocol/decimal.js';
import { DEFAULT_AUTH_FAILURES, DEFAULT_RATE_LIMITS, RateLimits } from '../protocol/records.js';
import { TrustedProxyList } from '../runtime/net/ip-lists.js';
import { ListenHost } from '../runtime/net/listen-host.js';
import { AgentList } from './agents.js';
import {
  CardSection,
  ConnectionsSection,
  DashboardSection,
  InstancesSection,
  MetricsSection,
  PoolSection,
  PushSection,
  RedisSection,
  RetentionSection,
  StreamingSection,
  TasksSection,
} from './sections.js';

/**
 * The base URL callers reach (behind a proxy). The cards' URLs are it plus `/api/a2a...`: a trailing slash is dropped
 * (it doubled the path's), and a query or fragment, which would land before the path, is refused, as is a user name
 * or password (the cards are public).
 */
const PublicUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
  .refine((u) => !u.includes('?') && !u.includes('#'), 'must have no query or fragment (the paths are added after it)')
  // the public cards (read without a key) carry it: a user name or password in it would be shown to anyone
  .refine((u) => {
    // zod runs this check even on a value its URL check refused
    const url = URL.canParse(u) ? new URL(u) : undefined;
    return url === undefined || (url.username === '' && url.password === '');
  }, 'must not carry a user name or password (the public Agent Cards show this URL to anyone)')
  .transform((u) => u.replace(/\/+$/, ''));

/** A number that may come as text (a flag, an env variable): plain decimal digits only, never Number()'s looser reading. */
const fromDecimalText = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (typeof v === 'string' ? (plainDecimal(v) ?? v) : v), schema);

export const Config = z
  .object({
    host: ListenHost.default('127.0.0.1'),
    port: fromDecimalText(z.number({ error: 'must be a port number from 0 to 65535' }).int().min(0).max(65535)).default(8080),
    dataDir: z.string().min(1).default('./data'),
    store: z.enum(['lmdb', 'redis']).default('lmdb'),
    redisUrl: z.string().min(1).default('redis://127.0.0.1:6379'),
    redisPrefix: z.string().min(1).default('a2a:'),
    /** names this process in task ownership; restart recovery fails only this instance's running tasks */
    instanceId: z.string().min(1).optional(),
    publicUrl: PublicUrl.optional(),
    /**
     * proxies whose X-Forwarded-For names the client (addresses or CIDR ranges); the per-address throttles count by
     * that client. Empty: the connection's peer is the client, and X-Forwarded-For is ignored
     */
    trustedProxies: TrustedProxyList.default([]),
    /** serve HTTPS, and WSS for the relay tunnel (uWS SSLApp), from these PEM files */
    tls: z
      .object({ certFile: z.string().min(1), keyFile: z.string().min(1) })
      .strict()
      .optional(),
    maxBodyBytes: fromDecimalText(z.number({ error: 'must be a number of bytes' }).int().positive()).default(1024 * 1024),
    /** a request body must arrive whole within this long of its headers, else 408 and the connection is closed */
    bodyTimeoutMs: fromDecimalText(z.number({ error: 'must be a number of milliseconds' }).int().positive()).default(30_000),
    /** a JSON-RPC batch of more calls is refused whole (-32600): each call is answered, so this bounds an answer's size */
    maxBatchSize: fromDecimalText(z.number({ error: 'must be a number of calls' }).int().positive()).default(100),
    limits: RateLimits.default(DEFAULT_RATE_LIMITS),
    /**
     * failed authentications (an unknown, malformed, revoked or expired key) allowed per client address on the A2A
     * endpoint and the relay tunnel together; past it the address is answered 429 whatever key it presents
     */
    authFailures: RateLimits.default(DEFAULT_AUTH_FAILURES),
    pool: PoolSection,
    card: CardSection,
    /** absent: the builtin demo agents (echo, converse, slow) serving every workspace */
    agents: AgentList.optional(),
    push: PushSection,
    redis: RedisSection,
    instances: InstancesSection,
    tasks: TasksSection,
    connections: ConnectionsSection,
    dashboard: DashboardSection,
    metrics: MetricsSection,
    retention: RetentionSection,
    streaming: StreamingSection,
  })
  .strict();
export type Config = z.infer<typeof Config>;
export type ConfigInput = z.input<typeof Config>;
