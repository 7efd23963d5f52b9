// The one config schema (file, env and flags merged in that order of precedence: flags > env > file > defaults).
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { AgentSpec } from './protocol/agent-events.js';
import { MAX_RESULT_RETENTION_HOURS, MAX_RETENTION_MS } from './protocol/connections.js';
import { DEFAULT_ADMIN_AUTH_FAILURES, DEFAULT_ADMIN_LIMITS, DEFAULT_AUTH_FAILURES, DEFAULT_RATE_LIMITS, RateLimits } from './protocol/records.js';
import { DEMO_AGENTS } from './demo-agents.js';
import { jsonDuplicateKey, jsonSyntaxText } from './protocol/config-text.js';
import { PLAIN_DECIMAL_RULE, plainDecimal } from './protocol/decimal.js';
import { MAX_TIMEOUT_MS } from './protocol/long-timeout.js';
import { MAX_UNREAD_BYTES } from './protocol/stream-lag.js';
import { IpOrCidr, TrustedProxyList } from './runtime/net/ip-lists.js';
import { ListenHost } from './runtime/net/listen-host.js';
import { LOG_LEVELS, logLevelOf, type LogLevel } from './runtime/log.js';

/** Agent ids name URLs and tasks, so a repeated id would run another agent than the one chosen; a module agent needs its file. */
function checkAgents(agents: AgentSpec[], ctx: z.RefinementCtx<AgentSpec[]>): void {
  const seen = new Set<string>();
  agents.forEach((a, i) => {
    if (seen.has(a.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate agent id '${a.id}'` });
    seen.add(a.id);
    if (a.kind === 'module' && !a.entry)
      ctx.addIssue({ code: 'custom', path: [i, 'entry'], message: 'a module agent needs an entry: the path of its JS file' });
    if (a.kind === 'relay')
      ctx.addIssue({ code: 'custom', path: [i, 'kind'], message: 'relay agents are announced by a relay (a2a-gateway relays add), not configured' });
    if (a.childProcesses !== undefined && a.kind !== 'module')
      ctx.addIssue({ code: 'custom', path: [i, 'childProcesses'], message: 'only a module agent runs code of its own that could start a process' });
    if (a.kind === 'remote' && !a.connection)
      ctx.addIssue({ code: 'custom', path: [i, 'connection'], message: 'a remote agent needs a connection: the name of an outbound connection' });
  });
}

/** A number that may come as text (a flag, an env variable): plain decimal digits only, never Number()'s looser reading. */
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

const fromDecimalText = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (typeof v === 'string' ? (plainDecimal(v) ?? v) : v), schema);

/** MB per agent worker: room for a module agent's real work, far below V8's default heap (GBs on a big machine) */
const DEFAULT_WORKER_HEAP_MB = 512;

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
    pool: z
      .object({
        minThreads: z.number().int().positive().optional(),
        maxThreads: z.number().int().positive().optional(),
        /**
         * old-generation heap cap of each agent worker thread, in MB: a module agent that allocates past it ends its
         * own worker (its task fails, worker_crash) instead of growing to the process's own multi-GB default
         */
        maxHeapMb: z.number().int().min(32).default(DEFAULT_WORKER_HEAP_MB),
      })
      .strict()
      .default({ maxHeapMb: DEFAULT_WORKER_HEAP_MB }),
    card: z
      .object({
        name: z.string().min(1).default('a2a-gateway'),
        description: z.string().default('An A2A gateway: runs tasks on its agents for external agents over JSON-RPC.'),
      })
      .strict()
      .default({ name: 'a2a-gateway', description: 'An A2A gateway: runs tasks on its agents for external agents over JSON-RPC.' }),
    /** absent: the builtin demo agents (echo, converse, slow) serving every workspace */
    agents: z.array(AgentSpec).superRefine(checkAgents).optional(),
    push: z
      .object({
        /** internal addresses (CIDRs or exact IPs) a webhook URL may reach anyway; everything internal is refused otherwise */
        allowlist: z.array(IpOrCidr).default([]),
        /** each delivery attempt gives up after this long */
        timeoutMs: z.number().int().positive().default(10_000),
        /** a delivery is given up after this many failed attempts */
        maxAttempts: z.number().int().positive().default(12),
        /** the delay before the first retry; it doubles per failure (with jitter) up to backoffMaxMs */
        backoffBaseMs: z.number().int().positive().default(2_000),
        backoffMaxMs: z
          .number()
          .int()
          .positive()
          .default(15 * 60_000),
        /** push configs one task may hold (each is one webhook per change); another is refused until one is deleted */
        maxConfigsPerTask: z.number().int().positive().default(10),
        /**
         * delivery attempts one workspace may have in flight at once, of the worker's 16 (hence the bound): a workspace
         * whose receivers hang holds at most this many while the others' webhooks go out
         */
        maxInFlightPerWorkspace: z.number().int().min(1).max(16).default(8),
      })
      .strict()
      .default({
        allowlist: [],
        timeoutMs: 10_000,
        maxAttempts: 12,
        backoffBaseMs: 2_000,
        backoffMaxMs: 15 * 60_000,
        maxConfigsPerTask: 10,
        maxInFlightPerWorkspace: 8,
      }),
    redis: z
      .object({
        /** a Redis command unanswered this long fails: calls during an outage get a 503 instead of hanging */
        commandTimeoutMs: z
          .number()
          .int()
          .positive()
          // the deadline is one timer: past this Node fires it after 1 ms, and every command would time out at once
          .max(MAX_TIMEOUT_MS, `at most ${MAX_TIMEOUT_MS} ms (about 24 days)`)
          .default(2_000),
        /**
         * how often one instance adds to the workspace task index the tasks an instance of an older version wrote
         * without it (a rolling upgrade; tasks/list misses them until then); 0 never does
         */
        indexRepairMs: z
          .number()
          .int()
          .nonnegative()
          .default(5 * 60_000),
      })
      .strict()
      .default({ commandTimeoutMs: 2_000, indexRepairMs: 5 * 60_000 }),
    /** scale-out on Redis: each instance stamps a beat; work of an instance silent past deadAfterMs is failed */
    instances: z
      .object({
        heartbeatMs: z.number().int().positive().default(5_000),
        deadAfterMs: z.number().int().positive().default(20_000),
      })
      .strict()
      // silent for less than two beats is no sign of death: shorter, every live instance is judged dead between its
      // own beats (or at one late beat) and its running tasks are failed (instance_lost)
      .refine((i) => i.deadAfterMs >= 2 * i.heartbeatMs, {
        path: ['deadAfterMs'],
        message: 'must be at least twice instances.heartbeatMs, else live instances are judged dead between their beats',
      })
      .default({ heartbeatMs: 5_000, deadAfterMs: 20_000 }),
    tasks: z
      .object({
        /**
         * a blocking send's new task is first written when it settles, or after this long if it has not by then: a
         * quick task costs one write instead of two (nothing of it is acknowledged before its write is stored)
         */
        firstWriteHoldMs: z.number().int().nonnegative().default(100),
        /**
         * the content one task may hold (artifacts, and messages of both sides), summed over its turns: a turn that
         * would pass it is stopped and the task fails (`output_too_large`), and a caller's message that would pass it
         * is refused (-32602), so neither an agent nor a caller can make a task, and each write of it, huge
         */
        maxTaskBytes: z
          .number({ error: 'must be a number of bytes' })
          .int()
          .positive()
          .default(8 * 1024 * 1024),
      })
      .strict()
      .default({ firstWriteHoldMs: 100, maxTaskBytes: 8 * 1024 * 1024 }),
    /** client mode: outbound connections to external A2A agents (created with `a2a-gateway connections add`) */
    connections: z
      .object({
        /** the first retry of a failed discovery waits up to this long (full jitter); each failure doubles it up to backoffMaxMs */
        backoffBaseMs: z.number().int().positive().default(1_000),
        backoffMaxMs: z.number().int().positive().default(60_000),
        /** this many failures in a row open a connection's circuit: its calls are refused at once */
        circuitFailures: z.number().int().positive().default(5),
        /** an open circuit lets one probe through after this long */
        coolDownMs: z.number().int().positive().default(30_000),
        /** a call waits this long at most for a connection still reading its remote's card */
        readyWaitMs: z.number().int().positive().default(10_000),
        /** how often the store is read again for connections added, changed or removed by the CLI */
        rescanMs: z.number().int().positive().default(5_000),
        /** one outbound call (send and wait for the result) gives up after this long */
        callTimeoutMs: z.number().int().positive().default(300_000),
        /** a remote card without cache headers is used this long before it is read again */
        cardTtlMs: z.number().int().positive().default(300_000),
        /** a remote card's own Cache-Control max-age keeps it at most this long before it is read again */
        cardMaxTtlMs: z.number().int().positive().default(3_600_000),
      })
      .strict()
      .default({
        backoffBaseMs: 1_000,
        backoffMaxMs: 60_000,
        circuitFailures: 5,
        coolDownMs: 30_000,
        readyWaitMs: 10_000,
        rescanMs: 5_000,
        callTimeoutMs: 300_000,
        cardTtlMs: 300_000,
        cardMaxTtlMs: 3_600_000,
      }),
    /** the web dashboard at /dashboard and its JSON admin API at /api/admin/ (sign-in with an admin key) */
    dashboard: z
      .object({
        enabled: z.boolean().default(true),
        sessionTtlMs: z
          .number()
          .int()
          .positive()
          // as the other retention settings: a longer one is a slip, and past a Date's range no sign-in could answer
          .max(MAX_RETENTION_MS, `at most ${MAX_RETENTION_MS} ms (${MAX_RESULT_RETENTION_HOURS} hours, 10 years)`)
          .default(8 * 3_600_000),
        /** each admin key's budget of admin API calls (Bearer or its session), apart from its A2A budget */
        limits: RateLimits.default(DEFAULT_ADMIN_LIMITS),
        /** failed admin authentications (a wrong Bearer or sign-in key) allowed per client address */
        authFailures: RateLimits.default(DEFAULT_ADMIN_AUTH_FAILURES),
        /** live views (SSE) one admin key may hold open on one instance at once; the next is refused with HTTP 429 */
        maxStreamsPerKey: z.number().int().positive().default(20),
      })
      .strict()
      .default({ enabled: true, sessionTtlMs: 8 * 3_600_000, limits: DEFAULT_ADMIN_LIMITS, authFailures: DEFAULT_ADMIN_AUTH_FAILURES, maxStreamsPerKey: 20 }),
    /** Prometheus metrics at GET /metrics (prom-client); off: no /metrics and no counting */
    metrics: z
      .object({ enabled: z.boolean().default(true) })
      .strict()
      .default({ enabled: true }),
    /** terminal tasks (with their events, push configs and jobs) are deleted once they have been terminal for taskTtlMs */
    retention: z
      .object({
        /** 7 days by default; 0 keeps tasks forever; at most 10 years, as a connection's results (a longer one is a slip) */
        taskTtlMs: z
          .number()
          .int()
          .nonnegative()
          .max(MAX_RETENTION_MS, `at most ${MAX_RETENTION_MS} ms (${MAX_RESULT_RETENTION_HOURS} hours, 10 years); 0 keeps tasks forever`)
          .default(7 * 86_400_000),
        sweepIntervalMs: z
          .number()
          .int()
          .positive()
          .default(10 * 60_000),
      })
      .strict()
      .default({ taskTtlMs: 7 * 86_400_000, sweepIntervalMs: 10 * 60_000 }),
    streaming: z
      .object({
        /** a `: ping` comment after this much silence on a stream */
        pingIntervalMs: z.number().int().positive().default(15_000),
        /** events kept per task for resubscribe replay */
        eventRetention: z.number().int().positive().default(1000),
        /** bytes a slow reader may leave unsent before its stream is closed */
        maxBufferedBytes: z.number().int().positive().default(MAX_UNREAD_BYTES),
        /** how often the keys holding open streams are read again: a revoked key's streams end within this */
        keyCheckMs: z.number().int().positive().default(1_000),
        /** SSE streams one key may hold open on one instance at once; the next is refused with HTTP 429 until one closes */
        maxStreamsPerKey: z.number().int().positive().default(100),
      })
      .strict()
      .default({ pingIntervalMs: 15_000, eventRetention: 1000, maxBufferedBytes: MAX_UNREAD_BYTES, keyCheckMs: 1_000, maxStreamsPerKey: 100 }),
  })
  .strict();
export type Config = z.infer<typeof Config>;
export type ConfigInput = z.input<typeof Config>;

export class ConfigError extends Error {
  /** what the CLI's --json error says (`config`); the exit status is 2 */
  readonly code = 'ERR_CONFIG';
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const FLAGS: Partial<Record<string, string>> = { port: '--port', host: '--host', dataDir: '--data-dir' };

/** A setting's name as a user can set it: the field, and its flag and env variable where it has them. */
export function settingName(key: string): string {
  const env = ENV_VARS.find((v) => v.key === key)?.name;
  const alt = [FLAGS[key], env].filter(Boolean).join(', ');
  return alt ? `${key} (${alt})` : key;
}

/** Parses merged settings; the error names the failing field (`from` says where the values came from). */
export function parseConfig(input: unknown, from = 'config'): Config {
  const r = Config.safeParse(input);
  if (r.success) return r.data;
  const lines = r.error.issues.map((i) => `  ${i.path.length ? settingName(i.path.map(String).join('.')) : '(root)'}: ${i.message}`);
  throw new ConfigError(`invalid ${from}:\n${lines.join('\n')}`);
}

export const agentsOf = (c: Config): AgentSpec[] => c.agents ?? DEMO_AGENTS;

/** Every environment variable the gateway reads: the config loader and the help text both use this one list. */
export const ENV_VARS: ReadonlyArray<{
  name: string;
  key?: keyof ConfigInput;
  what: string;
  /** a whole number: plain decimal digits only */
  int?: true;
}> = [
  { name: 'A2A_CONFIG', what: 'the JSON config file (as --config)' },
  { name: 'A2A_HOST', key: 'host', what: 'the address to listen on (127.0.0.1)' },
  { name: 'A2A_PORT', key: 'port', what: 'the port (8080)', int: true },
  { name: 'A2A_DATA_DIR', key: 'dataDir', what: 'the embedded store and the secret file (./data)' },
  { name: 'A2A_STORE', key: 'store', what: 'lmdb (embedded, default) or redis (shared by several instances)' },
  { name: 'REDIS_URL', key: 'redisUrl', what: 'the Redis server (redis://127.0.0.1:6379)' },
  { name: 'A2A_REDIS_PREFIX', key: 'redisPrefix', what: 'the prefix of every Redis key (a2a:)' },
  { name: 'A2A_INSTANCE_ID', key: 'instanceId', what: "this instance's stable name on Redis" },
  { name: 'A2A_PUBLIC_URL', key: 'publicUrl', what: 'the base URL callers reach (behind a proxy)' },
  { name: 'A2A_TRUSTED_PROXIES', key: 'trustedProxies', what: 'comma-separated proxy addresses or CIDR ranges whose X-Forwarded-For is read (none)' },
  { name: 'A2A_MAX_BODY_BYTES', key: 'maxBodyBytes', what: 'the request body limit (1048576)', int: true },
  { name: 'A2A_MAX_BATCH_SIZE', key: 'maxBatchSize', what: 'the most calls in one JSON-RPC batch (100)', int: true },
  { name: 'A2A_SECRET', what: 'the server secret keys are hashed with, 16 characters or more (default: <dataDir>/secret)' },
  { name: 'LOG_LEVEL', what: 'info (default), debug (every call, with its request id) or silent; any other value is refused' },
];

/**
 * The settings env gives; a whole number that is not plain decimal digits is refused naming its variable (unless a
 * flag overrides that setting: a flag beats env, as it always has).
 */
function readEnv(env: NodeJS.ProcessEnv, flags: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const bad: string[] = [];
  for (const { name, key, int } of ENV_VARS) {
    const text = env[name];
    if (!key || text === undefined || text === '' || key in flags) continue;
    const value = int ? plainDecimal(text) : text;
    if (value !== undefined) out[key] = value;
    else bad.push(`  ${name} (setting ${key}): ${PLAIN_DECIMAL_RULE}, not ${JSON.stringify(text.slice(0, 40))}`);
  }
  if (bad.length > 0) throw new ConfigError(`invalid environment:\n${bad.join('\n')}`);
  return out;
}

/**
 * The log level LOG_LEVEL names; any other value is refused naming LOG_LEVEL and the levels, as a bad A2A_SECRET is.
 * Every command checks it with the rest of the environment (loadConfig); `serve` reads its level here.
 */
export function logLevelFrom(env: NodeJS.ProcessEnv): LogLevel {
  const level = logLevelOf(env.LOG_LEVEL);
  if (level !== undefined) return level;
  throw new ConfigError(
    `invalid environment:\n  LOG_LEVEL: must be ${LOG_LEVELS.slice(0, -1).join(', ')} or ${LOG_LEVELS.at(-1)} (in any case), not ${JSON.stringify(String(env.LOG_LEVEL).slice(0, 40))}`,
  );
}

/**
 * The shortest A2A_SECRET taken. The secret keys the HMAC of every API key and seals connections' credentials in the
 * store: one of a few characters lets anyone holding a copy of the store guess it and open those credentials. The
 * secret file the gateway writes itself holds 64 characters. Checked with the config, before any command opens a store.
 */
export const MIN_SECRET_CHARS = 16;

/** Reads the config file (JSON) and env, then applies flag overrides. */
export async function loadConfig(o: { file?: string; env: NodeJS.ProcessEnv; flags: Partial<Record<keyof ConfigInput, unknown>> }): Promise<Config> {
  let fromFile: Record<string, unknown> = {};
  const file = o.file ?? o.env.A2A_CONFIG;
  if (file) {
    let text: string;
    try {
      // a byte order mark (some editors write one) is no part of the JSON
      text = (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
    } catch (e) {
      throw new ConfigError(`cannot read config file ${file}: ${(e as Error).message}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw new ConfigError(`config file ${file} is not valid JSON: ${jsonSyntaxText(e, text)}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new ConfigError(`config file ${file} must hold one JSON object of settings, e.g. {"port": 8080}`);
    }
    // JSON.parse keeps a repeated key's last value: the file would mean what its reader, who saw the first, did not
    const twice = jsonDuplicateKey(text);
    if (twice !== undefined) throw new ConfigError(`invalid config file ${file}:\n  ${settingName(twice)}: given twice; give it once`);
    fromFile = parsed as Record<string, unknown>;
    // the file is checked on its own too: a bad value there is reported even where a flag or env overrides it
    parseConfig(fromFile, `config file ${file}`);
  }
  const flags = Object.fromEntries(Object.entries(o.flags).filter(([, v]) => v !== undefined));
  const fromEnv = readEnv(o.env, flags);
  logLevelFrom(o.env);
  const secret = o.env.A2A_SECRET;
  if (secret && secret.length < MIN_SECRET_CHARS) {
    throw new ConfigError(
      `invalid environment:\n  A2A_SECRET: at least ${MIN_SECRET_CHARS} characters (it keys every API key's hash and seals stored credentials); unset it to use <dataDir>/secret`,
    );
  }
  const config = parseConfig({ ...fromFile, ...fromEnv, ...flags });
  // a module agent's relative entry is the config file's business: resolved against its directory, not the cwd
  if (file && config.agents) {
    config.agents = config.agents.map((a) =>
      a.kind === 'module' && a.entry && !isAbsolute(a.entry) ? { ...a, entry: resolve(dirname(resolve(file)), a.entry) } : a,
    );
  }
  return config;
}

/** Start-up check: every module agent's file exists (a missing one would only show when a task fails). */
export function checkAgentEntries(agents: readonly AgentSpec[], exists: (path: string) => boolean): void {
  const missing = agents.filter((a) => a.kind === 'module' && a.entry && !exists(a.entry));
  if (missing.length === 0) return;
  const lines = missing.map((a) => `  agent '${a.id}': entry ${a.entry} does not exist`);
  throw new ConfigError(
    `invalid config: module agents whose file is missing (relative entries are resolved against the config file's directory):\n${lines.join('\n')}`,
  );
}
