// The RateLimit-* and Retry-After headers derived from a decision.
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { rateLimitHeaders } from '../../src/runtime/limiter/headers.js';
import { createMemoryLimiter } from '../../src/runtime/limiter/memory.js';
import { T0 } from './limiter-support.js';

t.test('allowed: the deciding window, no Retry-After; item 10: Reset is never 0 while quota remains', async (t) => {
  t.same(rateLimitHeaders({ allowed: true, window: 'minute', limit: 60, remaining: 59, resetMs: 0 }), {
    'RateLimit-Limit': '60',
    'RateLimit-Remaining': '59',
    'RateLimit-Reset': '60',
  });
  t.same(rateLimitHeaders({ allowed: true, window: 'hour', limit: 60, remaining: 59, resetMs: 0 })['RateLimit-Reset'], '3600');
  t.same(rateLimitHeaders({ allowed: true, window: 'hour', limit: 5, remaining: 0, resetMs: 1 })['RateLimit-Reset'], '1', 'rounded up');
});

t.test('refused: seconds rounded up, Retry-After at least 1', async (t) => {
  const h = (resetMs: number, retryAfterMs: number) => rateLimitHeaders({ allowed: false, window: 'minute', limit: 3, remaining: 0, resetMs, retryAfterMs });
  t.same(h(1, 1), { 'RateLimit-Limit': '3', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '1', 'Retry-After': '1' });
  t.equal(h(1500, 1500)['Retry-After'], '2');
  t.equal(h(60_000, 60_000)['Retry-After'], '60');
  t.equal(h(60_001, 60_001)['RateLimit-Reset'], '61');
  t.equal(h(0, 0)['Retry-After'], '1', 'never 0');
  t.equal(h(59_900, 3_599_900)['Retry-After'], '3600', 'Retry-After follows retryAfterMs');
});

t.test('from a real decision', async (t) => {
  const clock = new ManualClock(T0);
  const lim = createMemoryLimiter({ clock });
  const L = { perMinute: 2, perHour: 100 };
  lim.checkSync('k', L);
  lim.checkSync('k', L);
  clock.advance(30_000);
  t.same(rateLimitHeaders(lim.checkSync('k', L)), { 'RateLimit-Limit': '2', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '30', 'Retry-After': '30' });
});
