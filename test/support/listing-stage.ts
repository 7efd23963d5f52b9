// Test support for the listing tests (tasks/list, the dashboard's recent tasks) on both engines: the two engines'
// configs, a gateway on a data dir of its own that a test stops and starts again (to change what is stored beneath
// it), and a task record damaged where it is stored, which a listing that reads only its page never meets.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { createClient } from 'redis';
import type { ConfigInput } from '../../src/config/schema.js';
import { redisKeys } from '../../src/runtime/redis/keys.js';
import { taskKey } from '../../src/runtime/store/types.js';
import { startTestGateway, type TestGateway } from './gateway.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from './redis.js';

export type EngineConfig = ConfigInput & { redisPrefix?: string };

/** LMDB and Redis (a fresh prefix named after `prefix` per call of `config`), each with `config` beside. */
export const listingEngines = (o: { prefix: string; config?: ConfigInput }): Array<{ name: string; config: () => EngineConfig }> => [
  { name: 'lmdb', config: () => ({ ...o.config }) },
  { name: 'redis', config: () => ({ ...o.config, store: 'redis', redisUrl: REDIS_URL, redisPrefix: testPrefix(o.prefix) }) },
];

export interface StoppableGateway {
  /** the gateway running now */
  gw: TestGateway;
  dataDir: string;
  /** stops the gateway, runs `meanwhile` while none runs, and starts a new one on the same data dir (with `log`) */
  restart(o?: { meanwhile?: () => Promise<void>; log?: (msg: string) => void }): Promise<TestGateway>;
}

/** A gateway of `config` on a data dir of its own; the one running at the end, the dir and the Redis prefix go with the test. */
export async function stoppableGateway(t: Test, o: { config: EngineConfig; dir: string }): Promise<StoppableGateway> {
  const dataDir = await mkdtemp(join(tmpdir(), `a2a-${o.dir}-`));
  const st: StoppableGateway = {
    gw: await startTestGateway({ config: o.config, dataDir }),
    dataDir,
    async restart(r = {}) {
      await st.gw.close();
      await r.meanwhile?.();
      st.gw = await startTestGateway({ config: o.config, dataDir, ...(r.log && { log: r.log }) });
      return st.gw;
    },
  };
  t.teardown(async () => {
    await st.gw.close();
    await rm(dataDir, { recursive: true, force: true });
    if (o.config.redisPrefix) await cleanupPrefix(REDIS_URL, o.config.redisPrefix);
  });
  return st;
}

/**
 * Overwrites task `id` of `workspace` where it is stored with a record no reader takes (Redis: not msgpack; LMDB: no
 * status). LMDB only with no gateway running on `dataDir` (its task cache would still hold the good record): call it
 * in a restart's `meanwhile`.
 */
export async function damageStoredTask(o: { config: EngineConfig; dataDir: string; workspace: string; id: string }): Promise<void> {
  const key = taskKey(o.workspace, o.id);
  if (o.config.redisPrefix) {
    const raw = createClient({ url: REDIS_URL });
    raw.on('error', () => {});
    await raw.connect();
    await raw.set(redisKeys(o.config.redisPrefix).task(key), 'not msgpack of a task');
    await raw.close();
    return;
  }
  const { open } = await import('lmdb');
  const { LMDB_DBS } = await import('../../src/runtime/store/lmdb/index.js');
  const env = open({ path: `${o.dataDir}/store`, noSubdir: false, maxDbs: 32 });
  await env.openDB({ name: LMDB_DBS.tasks }).put(key, { id: o.id, status: 'not a status' });
  await env.close();
}
