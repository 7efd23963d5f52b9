// Opens the configured store engine and the server secret; engines load on demand so a CLI command pulls in only its own.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { loadSecret } from '../runtime/keys.js';
import type { Store } from '../runtime/store/types.js';
import type { Config } from './config.js';

export async function openStore(config: Config, o: { onError?: (e: Error) => void } = {}): Promise<Store> {
  if (config.store === 'redis') {
    const { openRedisStore } = await import('../runtime/store/redis.js');
    return openRedisStore({ url: config.redisUrl, prefix: config.redisPrefix, commandTimeoutMs: config.redis.commandTimeoutMs, onError: o.onError });
  }
  await mkdir(config.dataDir, { recursive: true });
  const { openLmdbStore } = await import('../runtime/store/lmdb.js');
  return openLmdbStore({ path: join(config.dataDir, 'store') });
}

export async function openSecret(config: Config, secret?: Buffer): Promise<Buffer> {
  return secret ?? loadSecret({ dataDir: config.dataDir, fromEnv: process.env.A2A_SECRET });
}
