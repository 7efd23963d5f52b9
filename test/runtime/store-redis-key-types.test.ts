// A fixed key of the Redis store holding another type (another program on the same prefix, a hand edit): serve and
// the CLI stop at once naming the key and the fix, not with Redis's bare WRONGTYPE; without it they run as before.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import t from 'tap';
import { redisKeys } from '../../src/runtime/redis/keys.js';
import { runCli, startChildServer } from '../support/child-server.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';

t.setTimeout(300_000);

t.test('a fixed key of another type stops serve and the CLI, naming it; once it is gone both run', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'a2a-key-types-'));
  const prefix = testPrefix('key-types');
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  t.teardown(() => cleanupPrefix(REDIS_URL, prefix));
  const env = { A2A_STORE: 'redis', REDIS_URL, A2A_REDIS_PREFIX: prefix };
  const redis = createClient({ url: REDIS_URL });
  redis.on('error', () => {});
  await redis.connect();
  t.teardown(() => redis.close());
  const k = redisKeys(prefix);
  await redis.set(k.connections, 'another program was here');
  await redis.rPush(k.meta, ['a', 'list']);

  const [served, listed] = await Promise.all([
    runCli(['serve', '--port', '0', '--data-dir', dataDir], { env, timeoutMs: 60_000 }),
    runCli(['keys', 'list', '--data-dir', dataDir, '--json'], { env }),
  ]);
  for (const [what, r] of [
    ['serve', served],
    ['keys list', listed],
  ] as const) {
    t.not(r.code, 0, `${what}: exits non-zero`);
    t.equal(r.signal, null, `${what}: by itself`);
    t.notMatch(r.stdout, /listening|\[/, `${what}: neither serves nor lists`);
    t.match(r.stderr, /redis key "[^"]+:(connections|meta)" holds a (string|list) where the gateway keeps a hash/, `${what}: names the key`);
    t.match(r.stderr, /A2A_REDIS_PREFIX/, `${what}: and the setting that gives the gateway its own prefix`);
    t.notMatch(r.stderr, /WRONGTYPE/, `${what}: not the bare Redis error`);
  }
  t.equal(await redis.get(k.connections), 'another program was here', 'the other data is left as it was');

  await redis.del([k.connections, k.meta]);
  const server = await startChildServer({ dataDir, env });
  t.teardown(() => server.kill('SIGKILL'));
  t.pass('with the keys gone, serve starts');
});
