// AuthFailureThrottle.authenticate, the one failed-authentication sequence of the A2A endpoint, the relay tunnel and
// the admin API, on the real in-process limiter: a key check's own answer, or the refusal of an address past its budget.
import t from 'tap';
import { AuthFailureThrottle, isAuthBlocked } from '../../src/runtime/limiter/auth-throttle.js';
import { ManualClock } from '../../src/runtime/clock.js';
import type { KeyCheck } from '../../src/runtime/keys.js';
import { createMemoryLimiter } from '../../src/runtime/limiter/memory.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const RIGHT: KeyCheck = { ok: true, key: { id: 'k1' } as Extract<KeyCheck, { ok: true }>['key'] };
const WRONG: KeyCheck = { ok: false, why: 'unknown' };
const MISSING: KeyCheck = { ok: false, why: 'missing' };
/** a key check (its input is the answer it gives) */
const check = (c: KeyCheck) => Promise.resolve(c);

function setup() {
  const clock = new ManualClock(T0);
  const throttle = new AuthFailureThrottle({ limiter: createMemoryLimiter({ clock }), limits: { perMinute: 2, perHour: 100 }, bucket: 'test' });
  return { clock, throttle };
}

t.test('past its budget an address is refused whatever it presents, the right key included, until the window frees', async (t) => {
  const { clock, throttle } = setup();
  t.same(await throttle.authenticate('203.0.113.7', true, check, RIGHT), RIGHT, 'the right key: its check answers');
  t.same(await throttle.authenticate('203.0.113.7', true, check, WRONG), WRONG, 'a first wrong key: its check answers');
  t.same(await throttle.authenticate('203.0.113.7', true, check, WRONG), WRONG, 'a second: still within the budget');

  const third = await throttle.authenticate('203.0.113.7', true, check, WRONG);
  t.ok(isAuthBlocked(third), 'the next attempt is refused');
  if (isAuthBlocked(third)) {
    t.equal(third.blocked.retryAfterMs, 60_000, 'for as long as the oldest failure stays in the window');
    t.equal(third.failed, undefined, 'before its check counted');
  }
  const lucky = await throttle.authenticate('203.0.113.7', true, check, RIGHT);
  t.ok(isAuthBlocked(lucky), 'the right key from the blocked address is refused too');
  t.same(lucky, third, 'the same answer as a wrong one');
  t.same(await throttle.authenticate('203.0.113.8', true, check, RIGHT), RIGHT, 'another address is not blocked');

  clock.advance(60_000);
  t.same(await throttle.authenticate('203.0.113.7', true, check, RIGHT), RIGHT, 'free again once the window passed');
});

t.test('of attempts under way together, the failure that passes the budget is refused and says which check failed', async (t) => {
  const { throttle } = setup();
  const all = await Promise.all([1, 2, 3].map(() => throttle.authenticate('203.0.113.7', true, check, WRONG)));
  t.same(all.slice(0, 2), [WRONG, WRONG], 'the first two: their checks answer');
  t.ok(isAuthBlocked(all[2]), 'the third passes the budget: refused');
  if (isAuthBlocked(all[2])) t.same(all[2].failed, WRONG, 'with its failed check');
});

t.test('a missing key is no guess: never counted, never refused', async (t) => {
  const { throttle } = setup();
  for (let i = 0; i < 5; i++) t.same(await throttle.authenticate('203.0.113.7', false, check, MISSING), MISSING, `missing key ${i + 1}: its check answers`);
  t.same(await throttle.authenticate('203.0.113.7', true, check, WRONG), WRONG, 'a wrong key after them is the first failure counted');
  t.same(await throttle.authenticate('203.0.113.7', true, check, RIGHT), RIGHT, 'and the right key still works');
});

t.test("a failing lookup of the check is the caller's error, not a refusal", async (t) => {
  const { throttle } = setup();
  await t.rejects(
    throttle.authenticate('203.0.113.7', true, () => Promise.reject(new Error('store down')), undefined),
    /store down/,
  );
});
