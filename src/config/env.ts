// The environment the gateway reads: its variables (one list, for the loader and the help text), their reading, the
// log level LOG_LEVEL names and the shortest A2A_SECRET taken.
import { PLAIN_DECIMAL_RULE, plainDecimal } from '../protocol/decimal.js';
import { LOG_LEVELS, logLevelOf, type LogLevel } from '../runtime/log.js';
import { ConfigError } from './error.js';
import type { ConfigInput } from './schema.js';

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
export function readEnv(env: NodeJS.ProcessEnv, flags: Record<string, unknown>): Record<string, unknown> {
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
