// What only the Redis limiter has: atomicity under concurrency, key expiry, key names, the script fallback.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { ManualClock } from '../../src/runtime/clock.js';
import { createRedisLimiter } from '../../src/runtime/limiter/redis.js';
import { limiterKeys } from '../../src/runtime/redis/keys.js';
import { defineLua, runLua } from '../../src/runtime/limiter/lua.js';
import { LimiterReplyError } from '../../src/runtime/limiter/errors.js';
import type { LimitDecision } from '../../src/runtime/limiter/types.js';
import { REDIS_URL, T0, adminClient, deleteUnder, uniquePrefix } from './limiter-support.js';

const prefix = uniquePrefix();
t.teardown(() => deleteUnder(prefix));

t.test('50 concurrent checks with a limit of 10 allow exactly 10', async (t) => {
  const clock = new ManualClock(T0);
  const limiter = await createRedisLimiter({ url: REDIS_URL, prefix, clock });
  t.teardown(() => limiter.close());
  const ds = await Promise.all(Array.from({ length: 50 }, () => limiter.check('burst', { perMinute: 10, perHour: 100 })));
  t.equal(ds.filter((d) => d.allowed).length, 10);
  t.same(
    ds
      .filter((d) => d.allowed)
      .map((d) => d.remaining)
      .sort((a, b) => a - b),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    'each allowed one saw its own count',
  );
});

t.test('two instances share one budget', async (t) => {
  const clock = new ManualClock(T0);
  const a = await createRedisLimiter({ url: REDIS_URL, prefix, clock });
  const b = await createRedisLimiter({ url: REDIS_URL, prefix, clock });
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  const L = { perMinute: 10, perHour: 100 };
  const ds = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).check('shared', L)));
  t.equal(ds.filter((d) => d.allowed).length, 10);
});

t.test('keys live under the prefix and expire with their window', async (t) => {
  const clock = new ManualClock(T0);
  const limiter = await createRedisLimiter({ url: REDIS_URL, prefix, clock });
  const admin = await adminClient();
  t.teardown(async () => {
    await limiter.close();
    await admin.close();
  });
  await limiter.check('ttl', { perMinute: 5, perHour: 50 });
  const [minute, hour] = limiterKeys(prefix, 'ttl');
  t.ok(minute.startsWith(prefix) && hour.startsWith(prefix));
  t.same(await admin.lRange(minute, 0, -1), [String(T0)], 'the injected clock, not Redis TIME');
  const [mTtl, hTtl] = [await admin.pTTL(minute), await admin.pTTL(hour)];
  t.ok(mTtl > 55_000 && mTtl <= 60_000, `minute list PEXPIRE ~60s (${mTtl})`);
  t.ok(hTtl > 3_595_000 && hTtl <= 3_600_000, `hour list PEXPIRE ~1h (${hTtl})`);

  clock.advance(3_600_000);
  await limiter.check('ttl', { perMinute: 5, perHour: 50 });
  t.same(await admin.lRange(hour, 0, -1), [String(T0 + 3_600_000)], 'expired entries are pruned by the script');
});

t.test('an unknown script falls back to EVAL once, then runs by SHA', async (t) => {
  const admin = await adminClient();
  t.teardown(() => admin.close());
  // a script no server has seen, rather than SCRIPT FLUSH, which would disturb others sharing this Redis
  const script = defineLua({ name: 'echo-1', numberOfKeys: 1, source: `-- ${randomBytes(8).toString('hex')}\nreturn {KEYS[1], ARGV[1]}` });
  t.same(await admin.scriptExists(script.sha1), [0]);
  t.same(await runLua({ client: admin, script, keys: [`${prefix}x`], args: ['y'] }), [`${prefix}x`, 'y']);
  t.same(await admin.scriptExists(script.sha1), [1], 'loaded by the fallback');
  t.same(await runLua({ client: admin, script, keys: [`${prefix}x`], args: ['z'] }), [`${prefix}x`, 'z']);
  await t.rejects(runLua({ client: admin, script, keys: [], args: [] }), RangeError, 'key count is checked');
  t.throws(() => defineLua({ name: 'echo', numberOfKeys: 1, source: 'return 1' }), 'the name carries the key count');
});

t.test('a caller-owned client is used and left open', async (t) => {
  const admin = await adminClient();
  t.teardown(() => admin.close());
  const limiter = await createRedisLimiter({ client: admin, prefix, clock: new ManualClock(T0) });
  t.match(await limiter.check('owned', { perMinute: 1, perHour: 1 }), { allowed: true });
  await limiter.close();
  t.equal(await admin.ping(), 'PONG');
});

t.test('a reply of the wrong shape is an error, not a decision', async (t) => {
  const odd = { evalSha: async () => [1, 'two'], eval: async () => [1, 'two'] };
  const limiter = await createRedisLimiter({ client: odd, prefix, clock: new ManualClock(T0) });
  await t.rejects(limiter.check('k', { perMinute: 1, perHour: 1 }), LimiterReplyError);
});

t.test('a dropped connection is re-established and checks fail fast meanwhile', async (t) => {
  const clientName = `limiter-test-${process.pid}-${randomBytes(4).toString('hex')}`;
  const limiter = await createRedisLimiter({ url: REDIS_URL, prefix, clock: new ManualClock(T0), clientName });
  const admin = await adminClient();
  t.teardown(async () => {
    await limiter.close();
    await admin.close();
  });
  const L = { perMinute: 100, perHour: 100 };
  t.ok((await limiter.check('drop', L)).allowed);
  const line = (await admin.clientList()).find((c) => c.name === clientName);
  if (!line) throw new Error('our connection is not in CLIENT LIST');
  await admin.clientKill({ filter: 'ID', id: line.id });
  let failures = 0;
  let d: LimitDecision | undefined;
  for (let i = 0; i < 200 && d === undefined; i++) {
    try {
      d = await limiter.check('drop', L);
    } catch {
      failures++;
      await new Promise((r) => setTimeout(r, 10)); // real reconnection takes real time
    }
  }
  t.match(d, { allowed: true, remaining: 98 }, `recovered after ${failures} fast failures`);
});

t.test('a prefix with braces is refused (it would break the hash tag)', async (t) => {
  await t.rejects(createRedisLimiter({ client: { evalSha: async () => 0, eval: async () => 0 }, prefix: 'a{b}:', clock: new ManualClock(T0) }), RangeError);
});

t.test('a Redis that cannot be reached fails the create', async (t) => {
  await t.rejects(createRedisLimiter({ url: 'redis://127.0.0.1:1', prefix, clock: new ManualClock(T0) }));
});
