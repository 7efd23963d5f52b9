// One serving gateway per LMDB data dir: a second `serve` on a dir another one still serves is refused before it runs
// start-up recovery, which would fail the first one's running tasks as if it had died.
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { ConfigError } from './config/error.js';

export interface DataDirLock {
  release(): Promise<void>;
}

/**
 * Held as a listening socket in Linux's abstract namespace, named after the dir's real path: the kernel drops it with
 * the process however it ends (kill -9 included), so no stale lock is ever left to clear. Elsewhere nothing is held.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  if (process.platform !== 'linux') return { release: async () => undefined };
  const real = await realpath(dataDir);
  const name = `\0a2a-gateway-serve:${createHash('sha256').update(real).digest('hex').slice(0, 40)}`;
  const server = createServer((socket) => socket.destroy());
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(name, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    throw new ConfigError(
      `dataDir (--data-dir, A2A_DATA_DIR) ${real}: another gateway is serving from it; stop that one first, or give this one its own data dir`,
    );
  }
  // the lock must not keep a process alive that has nothing else to do
  server.unref();
  return { release: () => closeServer(server) };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
