// The limiter contract, run against both engines (memory, real Redis) with a hand-moved clock.
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import type { RateLimits } from '../../src/protocol/records.js';
import type { LimitDecision, Limiter } from '../../src/runtime/limiter/types.js';
import { createMemoryLimiter } from '../../src/runtime/limiter/memory.js';
import { createRedisLimiter } from '../../src/runtime/limiter/redis.js';
import { LimiterClosedError } from '../../src/runtime/limiter/errors.js';
import { REDIS_URL, T0, deleteUnder, uniquePrefix } from './limiter-support.js';
import { OracleLimiter, seededRandom } from './limiter-oracle.js';

interface Engine {
  name: string;
  make(clock: ManualClock): Promise<Limiter>;
}

const prefix = uniquePrefix();
t.teardown(() => deleteUnder(prefix));

const engines: Engine[] = [
  { name: 'memory', make: async (clock) => createMemoryLimiter({ clock }) },
  { name: 'redis', make: (clock) => createRedisLimiter({ url: REDIS_URL, prefix, clock }) },
];

let keySeq = 0;

for (const engine of engines) {
  t.test(engine.name, async (t) => {
    /** A fresh limiter, clock at T0 and key of its own for each test. */
    async function setup(t: Test) {
      const clock = new ManualClock(T0);
      const limiter = await engine.make(clock);
      t.teardown(() => limiter.close());
      const key = `${engine.name}-${keySeq++}`;
      const at = (ms: number, limits: RateLimits, k = key): Promise<LimitDecision> => {
        clock.set(T0 + ms);
        return limiter.check(k, limits);
      };
      return { clock, limiter, key, at };
    }

    t.test('a fresh key gets the whole budget, minute deciding', async (t) => {
      const { at } = await setup(t);
      const d = await at(0, { perMinute: 60, perHour: 1000 });
      t.same(d, { allowed: true, window: 'minute', limit: 60, remaining: 59, resetMs: 0 });
      t.notOk('retryAfterMs' in d, 'no retryAfterMs when allowed');
    });

    t.test('minute window: an entry counts until exactly t + 60000', async (t) => {
      const { at } = await setup(t);
      const L = { perMinute: 3, perHour: 100 };
      t.same(await at(0, L), { allowed: true, window: 'minute', limit: 3, remaining: 2, resetMs: 0 });
      t.same(await at(10, L), { allowed: true, window: 'minute', limit: 3, remaining: 1, resetMs: 0 });
      t.same(await at(20, L), { allowed: true, window: 'minute', limit: 3, remaining: 0, resetMs: 59_980 }, 'last slot: reset points at the oldest');
      t.same(await at(59_999, L), { allowed: false, window: 'minute', limit: 3, remaining: 0, resetMs: 1, retryAfterMs: 1 });
      t.same(await at(60_000, L), { allowed: true, window: 'minute', limit: 3, remaining: 0, resetMs: 10 }, 'freed at exactly t + 60000');
      t.same(await at(60_009, L), { allowed: false, window: 'minute', limit: 3, remaining: 0, resetMs: 1, retryAfterMs: 1 });
      t.same(await at(60_010, L), { allowed: true, window: 'minute', limit: 3, remaining: 0, resetMs: 10 });
    });

    t.test('hour window: binds under small overrides, edge at t + 3600000', async (t) => {
      const { at } = await setup(t);
      const L = { perMinute: 3, perHour: 5 };
      for (const ms of [0, 1, 2]) t.ok((await at(ms, L)).allowed);
      t.same(await at(60_002, L), { allowed: true, window: 'hour', limit: 5, remaining: 1, resetMs: 0 });
      t.same(await at(60_003, L), { allowed: true, window: 'hour', limit: 5, remaining: 0, resetMs: 3_600_000 - 60_003 });
      t.same(await at(120_003, L), { allowed: false, window: 'hour', limit: 5, remaining: 0, resetMs: 3_479_997, retryAfterMs: 3_479_997 });
      t.same(await at(3_599_999, L), { allowed: false, window: 'hour', limit: 5, remaining: 0, resetMs: 1, retryAfterMs: 1 });
      t.same(await at(3_600_000, L), { allowed: true, window: 'hour', limit: 5, remaining: 0, resetMs: 1 }, 'freed at exactly t + 3600000');
      t.same(await at(3_600_000, L), { allowed: false, window: 'hour', limit: 5, remaining: 0, resetMs: 1, retryAfterMs: 1 });
    });

    t.test('a request refused by the minute spends nothing of the hour', async (t) => {
      const { at } = await setup(t);
      const L = { perMinute: 2, perHour: 3 };
      await at(0, L);
      await at(1, L);
      for (let ms = 2; ms < 12; ms++) t.match(await at(ms, L), { allowed: false, window: 'minute' });
      // had the ten refusals been recorded in the hour, it would be full long before this
      t.same(await at(60_001, L), { allowed: true, window: 'hour', limit: 3, remaining: 0, resetMs: 3_600_000 - 60_001 });
    });

    t.test('a request refused by the hour spends nothing of the minute', async (t) => {
      const { at } = await setup(t);
      const L = { perMinute: 2, perHour: 2 };
      await at(0, L);
      await at(1, L);
      for (let ms = 3_599_990; ms < 3_600_000; ms++) {
        t.same(await at(ms, L), { allowed: false, window: 'hour', limit: 2, remaining: 0, resetMs: 3_600_000 - ms, retryAfterMs: 3_600_000 - ms });
      }
      t.same(await at(3_600_000, L), { allowed: true, window: 'hour', limit: 2, remaining: 0, resetMs: 1 });
      // the ten refusals sit inside this minute: recorded, they would refuse this one
      t.same(await at(3_600_001, L), { allowed: true, window: 'hour', limit: 2, remaining: 0, resetMs: 3_599_999 });
    });

    t.test('retryAfterMs is when both windows allow', async (t) => {
      const { at } = await setup(t);
      const both = { perMinute: 2, perHour: 2 };
      await at(0, both);
      await at(1, both);
      t.same(
        await at(100, both),
        { allowed: false, window: 'hour', limit: 2, remaining: 0, resetMs: 3_599_900, retryAfterMs: 3_599_900 },
        'the minute frees first, the hour decides',
      );
      t.match(await at(60_001, both), { allowed: false, window: 'hour', retryAfterMs: 3_539_999 }, 'minute free, hour not');

      const s2 = await setup(t);
      const minuteOnly = { perMinute: 2, perHour: 3 };
      await s2.at(0, minuteOnly);
      await s2.at(1, minuteOnly);
      const d = await s2.at(100, minuteOnly);
      t.same(d, { allowed: false, window: 'minute', limit: 2, remaining: 0, resetMs: 59_900, retryAfterMs: 59_900 });
      t.equal((await s2.at(100 + 59_899, minuteOnly)).allowed, false, 'one ms early is refused');
      t.equal((await s2.at(100 + 59_900, minuteOnly)).allowed, true, 'exactly retryAfterMs later is allowed');
    });

    t.test('keys are isolated', async (t) => {
      const { at, key } = await setup(t);
      const other = `${key}-other`;
      const L = { perMinute: 2, perHour: 10 };
      await at(0, L);
      await at(0, L);
      t.equal((await at(1, L)).allowed, false);
      t.same(await at(2, L, other), { allowed: true, window: 'minute', limit: 2, remaining: 1, resetMs: 0 });
      t.equal((await at(3, L)).allowed, false, 'the other key gave nothing back');
      t.same(await at(4, L, other), { allowed: true, window: 'minute', limit: 2, remaining: 0, resetMs: 59_998 });
      t.equal((await at(5, L, other)).allowed, false);
    });

    t.test('a key whose limits change keeps every live entry', async (t) => {
      const { at } = await setup(t);
      for (let ms = 0; ms < 4; ms++) t.ok((await at(ms, { perMinute: 5, perHour: 100 })).allowed);
      t.same(
        await at(4, { perMinute: 2, perHour: 100 }),
        { allowed: false, window: 'minute', limit: 2, remaining: 0, resetMs: 59_998, retryAfterMs: 59_998 },
        'lowered: count 4 over 2, a slot frees when the 3rd oldest goes',
      );
      t.same(
        await at(5, { perMinute: 5, perHour: 100 }),
        { allowed: true, window: 'minute', limit: 5, remaining: 0, resetMs: 59_995 },
        'raised back: the 4 spent are still there',
      );
      t.same(await at(6, { perMinute: 10, perHour: 100 }), { allowed: true, window: 'minute', limit: 10, remaining: 4, resetMs: 0 });
      t.same(await at(7, { perMinute: 10, perHour: 6 }), {
        allowed: false,
        window: 'hour',
        limit: 6,
        remaining: 0,
        resetMs: 3_599_993,
        retryAfterMs: 3_599_993,
      });
      t.same(
        await at(60_002, { perMinute: 10, perHour: 100 }),
        { allowed: true, window: 'minute', limit: 10, remaining: 6, resetMs: 0 },
        'minute: 0..2 expired, 3, 5, 6 live',
      );
    });

    t.test('peek decides as a check would and records nothing', async (t) => {
      const { clock, limiter, key, at } = await setup(t);
      const L = { perMinute: 2, perHour: 100 };
      const peek = (ms: number) => {
        clock.set(T0 + ms);
        return limiter.peek(key, L);
      };
      t.match(await peek(0), { allowed: true }, 'a key never seen: allowed');
      t.match(await peek(1), { allowed: true }, 'peeks spend nothing');
      t.same(await at(2, L), { allowed: true, window: 'minute', limit: 2, remaining: 1, resetMs: 0 }, 'the whole budget is still there');
      t.match(await peek(3), { allowed: true });
      await at(4, L);
      t.same(await peek(10), { allowed: false, window: 'minute', limit: 2, remaining: 0, resetMs: 59_992, retryAfterMs: 59_992 }, 'refused as a check is');
      t.same(await peek(10), await at(10, L), 'the same decision as a check at the same moment');
      t.match(await peek(60_002), { allowed: true }, 'free again when the oldest leaves the window');
      t.same(await at(60_002, L), { allowed: true, window: 'minute', limit: 2, remaining: 0, resetMs: 2 }, 'the refused peeks and check took no slot');
    });

    t.test('limits that are not positive integers are refused loudly', async (t) => {
      const { limiter, key } = await setup(t);
      await t.rejects(limiter.check(key, { perMinute: 0, perHour: 10 }), RangeError);
      await t.rejects(limiter.check(key, { perMinute: 1.5, perHour: 10 }), RangeError);
    });

    t.test('close is idempotent and later checks fail', async (t) => {
      const { limiter, key } = await setup(t);
      await limiter.close();
      await limiter.close();
      await t.rejects(limiter.check(key, { perMinute: 1, perHour: 1 }), LimiterClosedError);
    });

    t.test('agrees with a brute-force model over a random walk', async (t) => {
      const { clock, limiter } = await setup(t);
      const oracle = new OracleLimiter();
      const rnd = seededRandom(engine.name === 'memory' ? 7 : 11);
      const steps = [0, 0, 1, 7, 999, 15_000, 59_999, 60_000, 60_001, 400_000, 3_599_999];
      const limitChoices: RateLimits[] = [
        { perMinute: 3, perHour: 5 },
        { perMinute: 4, perHour: 9 },
        { perMinute: 2, perHour: 30 },
        { perMinute: 12, perHour: 12 },
      ];
      const keys = ['a', 'b', 'c'].map((k) => `${engine.name}-${keySeq++}-${k}`);
      const limitsOf = new Map(keys.map((k) => [k, limitChoices[0]!]));
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
      let mismatches = 0;
      for (let i = 0; i < 1500; i++) {
        clock.advance((pick(steps) * (rnd() < 0.7 ? 0.01 : 1)) | 0);
        const k = pick(keys);
        if (rnd() < 0.03) limitsOf.set(k, pick(limitChoices));
        const limits = limitsOf.get(k) ?? limitChoices[0]!;
        const got = await limiter.check(k, limits);
        const want = oracle.check(k, limits, clock.now());
        if (JSON.stringify(got) !== JSON.stringify(want) && mismatches++ < 5) t.same(got, want, `step ${i}`);
      }
      t.equal(mismatches, 0, 'every decision matches the model');
      t.ok(oracle.refusals > 100 && oracle.allowances > 100, `the walk exercised both outcomes (${oracle.allowances} allowed, ${oracle.refusals} refused)`);
    });
  });
}
