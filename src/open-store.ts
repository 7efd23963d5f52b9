// Opens the configured store engine and the server secret; engines load on demand so a CLI command pulls in only its own.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SecretFileError, loadSecret } from './runtime/keys.js';
import type { Store } from './runtime/store/types.js';
import type { OnCorrupt } from './runtime/store/validate.js';
import { ConfigError } from './config/error.js';
import type { Config } from './config/schema.js';

export async function openStore(config: Config, o: { onError?: (e: Error) => void; onCorrupt?: OnCorrupt } = {}): Promise<Store> {
  if (config.store === 'redis') {
    const { openRedisStore } = await import('./runtime/store/redis/index.js');
    return openRedisStore({
      url: config.redisUrl,
      prefix: config.redisPrefix,
      commandTimeoutMs: config.redis.commandTimeoutMs,
      onError: o.onError,
      onCorrupt: o.onCorrupt,
    });
  }
  const { openLmdbStore } = await import('./runtime/store/lmdb/index.js');
  return inDataDir(config, () =>
    mkdir(config.dataDir, { recursive: true }).then(() => openLmdbStore({ path: join(config.dataDir, 'store'), onCorrupt: o.onCorrupt })),
  );
}

export async function openSecret(config: Config, secret?: Buffer): Promise<Buffer> {
  if (secret) return secret;
  try {
    return await inDataDir(config, () => loadSecret({ dataDir: config.dataDir, fromEnv: process.env.A2A_SECRET }));
  } catch (e) {
    if (e instanceof SecretFileError) throw new ConfigError(`dataDir (--data-dir, A2A_DATA_DIR) ${e.message}`);
    throw e;
  }
}

/** A data dir that cannot be used is a config error that names the setting and the fix, not a raw errno. */
async function inDataDir<T>(config: Config, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) throw e;
    const why: Record<string, string> = {
      EACCES: 'permission denied',
      EPERM: 'not permitted',
      EROFS: 'the file system is read-only',
      ENOTDIR: 'a part of the path is a file, not a directory',
      ENOENT: 'a part of the path does not exist',
      ENOSPC: 'the disk is full',
    };
    throw new ConfigError(
      `dataDir (--data-dir, A2A_DATA_DIR) ${config.dataDir}: cannot use it for the store: ${why[code] ?? code} (${code}). ` +
        'Point it at a writable directory.',
    );
  }
}
