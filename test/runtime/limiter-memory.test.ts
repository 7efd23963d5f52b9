// What only the memory limiter has: its ring, idle eviction and the synchronous entry point.
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { createMemoryLimiter } from '../../src/runtime/limiter/memory.js';
import { TimestampRing } from '../../src/runtime/limiter/ring.js';
import { HOUR_MS } from '../../src/runtime/limiter/windows.js';
import { T0 } from './limiter-support.js';

t.test('the ring grows to its limit, keeps order, expires from the oldest', async (t) => {
  const r = new TimestampRing(1000, 20);
  for (let i = 0; i < 20; i++) r.push(i * 10);
  t.equal(r.size, 20);
  t.same(
    Array.from({ length: 20 }, (_, i) => r.at(i)),
    Array.from({ length: 20 }, (_, i) => i * 10),
  );
  t.equal(r.gate(), 0, 'full: the oldest frees the next slot');
  t.equal(r.expire(1000 + 45), 15, 'entries at 0..40 are at or before now - window');
  t.equal(r.at(0), 50);
  r.push(1100);
  r.push(1110);
  t.equal(r.at(r.size - 1), 1110, 'wraps around');
  r.setLimit(4);
  t.equal(r.size, 17, 'a lower limit keeps every live entry');
  t.equal(r.gate(), r.at(13));
  t.equal(r.expire(5000), 0, 'all stale at once');
});

t.test('keys idle for an hour are evicted as checks go by', async (t) => {
  const clock = new ManualClock(T0);
  const lim = createMemoryLimiter({ clock });
  const L = { perMinute: 5, perHour: 5 };
  for (let i = 0; i < 100; i++) lim.checkSync(`k${i}`, L);
  t.equal(lim.keyCount(), 100);
  clock.advance(HOUR_MS - 1);
  for (let i = 0; i < 200; i++) lim.checkSync('busy', { perMinute: 1e6, perHour: 1e6 });
  t.equal(lim.keyCount(), 101, 'not yet: one ms short of an hour');
  clock.advance(1);
  for (let i = 0; i < 60; i++) lim.checkSync('busy', { perMinute: 1e6, perHour: 1e6 });
  t.equal(lim.keyCount(), 1, 'only the busy key is left');
  t.same(
    lim.checkSync('k0', L),
    { allowed: true, window: 'minute', limit: 5, remaining: 4, resetMs: 0 },
    'an evicted key starts fresh, as it would have anyway',
  );
});

t.test('a short idleEvictMs cannot forget budget still spent in the hour', async (t) => {
  const clock = new ManualClock(T0);
  const lim = createMemoryLimiter({ clock, idleEvictMs: 1000 });
  const L = { perMinute: 1, perHour: 1 };
  t.ok(lim.checkSync('spent', L).allowed);
  clock.advance(120_000);
  for (let i = 0; i < 10; i++) lim.checkSync(`other${i}`, L);
  t.same(lim.checkSync('spent', L), { allowed: false, window: 'hour', limit: 1, remaining: 0, resetMs: 3_480_000, retryAfterMs: 3_480_000 });
});

t.test('check and checkSync decide alike', async (t) => {
  const clock = new ManualClock(T0);
  const a = createMemoryLimiter({ clock });
  const b = createMemoryLimiter({ clock });
  const L = { perMinute: 3, perHour: 4 };
  for (let i = 0; i < 6; i++) {
    clock.advance(7);
    t.same(await a.check('k', L), b.checkSync('k', L));
  }
});
