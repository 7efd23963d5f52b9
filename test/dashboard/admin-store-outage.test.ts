// The admin API during a store outage: Redis cut off (a forwarder in front of the real Redis that drops everything)
// answers 503 with Retry-After and the catalogue's message, as the A2A endpoint does, never a 500.
import t from 'tap';
import { startTestGateway } from '../support/gateway.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { until } from '../support/a2a-client.js';

t.setTimeout(60_000);

t.test('a store outage answers the admin API 503 with Retry-After, like the A2A endpoint', async (t) => {
  const redisPort = Number(new URL(REDIS_URL).port || 6379);
  const proxy = await startTcpProxy(redisPort);
  t.teardown(() => proxy.close());
  const prefix = testPrefix('admin-outage');
  t.teardown(() => cleanupPrefix(REDIS_URL, prefix));
  const tg = await startTestGateway({
    config: {
      store: 'redis',
      redisUrl: `redis://127.0.0.1:${proxy.port}`,
      redisPrefix: prefix,
      redis: { commandTimeoutMs: 300 },
      dashboard: { enabled: true },
    },
  });
  t.teardown(() => tg.close());
  const admin = await tg.key({ workspace: 'acme', trust: 'admin' });
  const keys = () => fetch(`${tg.url}/api/admin/keys`, { headers: { Authorization: `Bearer ${admin.key}` } });
  t.equal((await keys()).status, 200, 'the admin API works while Redis is reachable');

  proxy.target(undefined);
  proxy.cut();
  let res = await keys();
  await until(async () => {
    res = await keys();
    return res.status !== 200;
  }, 'the admin API to notice the outage');
  const body = (await res.json()) as { error?: string; message?: string };
  t.equal(res.status, 503, 'a store outage is 503, not 500');
  t.equal(body.error, 'store_unavailable');
  t.match(body.message, /store cannot be reached/);
  t.equal(res.headers.get('retry-after'), '1');
  const a2a = await tg.rpc({ method: 'tasks/get', key: admin.key, params: { id: 'x' } });
  t.equal(a2a.status, 503, 'the A2A endpoint answers the same outage 503');

  proxy.target(redisPort);
  await until(async () => (await keys()).status === 200, 'the admin API to work again');
  t.pass('back without a restart');
});
