// The rate limiter at its exact edges, through real HTTP, both windows, with a hand-moved clock (no sleeps);
// and the order of checks: authentication, scope, rate limit, execution.
import t, { type Test } from 'tap';
import type { ConfigInput } from '../../src/config/schema.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { createKey } from '../../src/runtime/key-admin.js';
import { startTestGateway, type RpcResult } from '../support/gateway.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const MIN = 60_000;
const HOUR = 3_600_000;

async function setup(t: Test, config?: ConfigInput) {
  const clock = new ManualClock(T0);
  const tg = await startTestGateway({ clock, config });
  t.teardown(() => tg.close());
  /** one cheap call that passes every check before execution (extended card: agents.read) */
  const hit = (key: string, at?: number): Promise<RpcResult> => {
    if (at !== undefined) clock.set(T0 + at);
    return tg.rpc({ method: 'agent/getAuthenticatedExtendedCard', key, params: {} });
  };
  return { clock, tg, hit };
}

const header = (r: RpcResult, name: string) => r.headers.get(name);

function allowed(t: Test, r: RpcResult, label: string) {
  t.equal(r.status, 200, `${label}: 200`);
  t.ok(r.json?.result, `${label}: has a result`);
}

function refused(t: Test, r: RpcResult, label: string) {
  t.equal(r.status, 429, `${label}: 429`);
  t.equal(r.json?.error?.code, -32004, `${label}: -32004`);
  t.ok(header(r, 'retry-after'), `${label}: Retry-After present`);
}

/** Sends until refused (at most `max`); returns how many were allowed. */
async function countAllowed(hit: () => Promise<RpcResult>, max: number): Promise<number> {
  for (let n = 0; n < max; n++) {
    const r = await hit();
    if (r.status !== 200) {
      if (r.json?.error?.code !== -32004) throw new Error(`unexpected answer ${r.status} ${JSON.stringify(r.json)}`);
      return n;
    }
  }
  return max;
}

t.test('per-key override 3/min 5/h: the minute edge, headers, Retry-After', async (t) => {
  const { tg, hit } = await setup(t);
  const k = await tg.key({ trust: 'read_only', limits: { perMinute: 3, perHour: 5 } });

  const r1 = await hit(k.key, 0);
  allowed(t, r1, '1st');
  t.equal(header(r1, 'ratelimit-limit'), '3', '1st: limit is the minute window (fewest remaining)');
  t.equal(header(r1, 'ratelimit-remaining'), '2');
  t.equal(header(r1, 'ratelimit-reset'), '60', '1st: room left: the whole minute quota is back one window from now (never 0)');
  t.equal(header(r1, 'retry-after'), null, 'no Retry-After on an allowed request');
  const r2 = await hit(k.key, 0);
  allowed(t, r2, '2nd');
  t.equal(header(r2, 'ratelimit-remaining'), '1');
  const r3 = await hit(k.key, 0);
  allowed(t, r3, '3rd');
  t.equal(header(r3, 'ratelimit-remaining'), '0');
  t.equal(header(r3, 'ratelimit-reset'), '60', '3rd: the window frees its oldest slot in 60 s');

  const r4 = await hit(k.key, 0);
  refused(t, r4, '4th');
  t.equal(header(r4, 'retry-after'), '60');
  t.equal(header(r4, 'ratelimit-limit'), '3');
  t.equal(header(r4, 'ratelimit-remaining'), '0');
  t.equal(header(r4, 'ratelimit-reset'), '60');
  t.equal(r4.json.error.data.reason, 'RATE_LIMITED');
  t.equal(r4.json.error.data.window, 'minute');
  t.equal(r4.json.id, 'req-4', 'the error echoes the request id');

  const r5 = await hit(k.key, 30_000);
  refused(t, r5, '+30 s');
  t.equal(header(r5, 'retry-after'), '30', 'Retry-After counts down');
  const edge = await hit(k.key, MIN - 1);
  refused(t, edge, '+60 s - 1 ms');
  t.equal(header(edge, 'retry-after'), '1', 'Retry-After never says 0 and rounds up');

  const freed = await hit(k.key, MIN);
  allowed(t, freed, 'at exactly +60 s');
  t.equal(header(freed, 'ratelimit-remaining'), '1', 'the hour (5, 4 spent) is now the tighter window');
  t.equal(header(freed, 'ratelimit-limit'), '5');
});

t.test('the hour window binds after 5, for the rest of the hour, even with room in the minute', async (t) => {
  const { tg, hit } = await setup(t);
  const k = await tg.key({ trust: 'read_only', limits: { perMinute: 3, perHour: 5 } });
  for (let i = 0; i < 3; i++) allowed(t, await hit(k.key, 0), `t0 #${i + 1}`);
  allowed(t, await hit(k.key, MIN), '+60 s #4');
  const fifth = await hit(k.key, MIN + 1);
  allowed(t, fifth, '+60 s #5');
  t.equal(header(fifth, 'ratelimit-limit'), '5', '#5: the hour window has the fewest remaining');
  t.equal(header(fifth, 'ratelimit-remaining'), '0');
  t.equal(header(fifth, 'ratelimit-reset'), String(Math.ceil((HOUR - MIN - 1) / 1000)), '#5: reset is when the t0 entries leave the hour');

  const sixth = await hit(k.key, MIN + 2);
  refused(t, sixth, '#6 with one slot left in the minute');
  t.equal(sixth.json.error.data.window, 'hour');
  t.equal(header(sixth, 'ratelimit-limit'), '5', 'headers speak of the hour window');
  t.equal(header(sixth, 'retry-after'), String(Math.ceil((HOUR - MIN - 2) / 1000)));

  for (const at of [5 * MIN, 30 * MIN, HOUR - 1]) {
    const r = await hit(k.key, at);
    refused(t, r, `at +${at} ms (minute window empty)`);
    t.equal(r.json.error.data.window, 'hour');
  }
  t.equal(header(await hit(k.key, HOUR - 1), 'retry-after'), '1');

  // at exactly +1 h the three t0 entries leave the hour; the minute allows 3 again
  const back = await hit(k.key, HOUR);
  allowed(t, back, 'at exactly +1 h');
  allowed(t, await hit(k.key, HOUR), '+1 h #2');
  allowed(t, await hit(k.key, HOUR), '+1 h #3');
  refused(t, await hit(k.key, HOUR), '+1 h #4: the minute again');
});

t.test('a refused request spends nothing, in either window', async (t) => {
  const { tg, hit, clock } = await setup(t);
  const k = await tg.key({ trust: 'read_only', limits: { perMinute: 3, perHour: 100 } });
  t.equal(await countAllowed(() => hit(k.key, 0), 50), 3, '3 allowed at t0');
  for (let i = 0; i < 20; i++) refused(t, await hit(k.key, 1_000 + i * 1_000), `refusal ${i + 1}`);
  clock.set(T0 + MIN);
  const atMinute = await hit(k.key);
  allowed(t, atMinute, 'at +60 s');
  t.equal(header(atMinute, 'ratelimit-remaining'), '2', 'the 20 refusals were not recorded');
  t.equal(await countAllowed(() => hit(k.key), 50), 2, 'exactly the full minute budget again');

  // minute refusals do not spend the hour either: 3/min, 5/h
  const h = await tg.key({ trust: 'read_only', limits: { perMinute: 3, perHour: 5 } });
  clock.set(T0);
  t.equal(await countAllowed(() => hit(h.key), 50), 3);
  for (let i = 0; i < 10; i++) refused(t, await hit(h.key, 10 + i), `minute refusal ${i + 1}`);
  clock.set(T0 + MIN);
  t.equal(await countAllowed(() => hit(h.key), 50), 2, 'the hour still has exactly 2 left');
});

t.test('separate keys have separate budgets', async (t) => {
  const { tg, hit } = await setup(t);
  const a = await tg.key({ trust: 'read_only', limits: { perMinute: 3, perHour: 5 } });
  const b = await tg.key({ trust: 'read_only', limits: { perMinute: 3, perHour: 5 } });
  const other = await tg.key({ workspace: 'ws2', trust: 'read_only', limits: { perMinute: 3, perHour: 5 } });
  t.equal(await countAllowed(() => hit(a.key, 0), 10), 3, 'a: 3');
  const first = await hit(b.key, 0);
  allowed(t, first, 'b is untouched by a');
  t.equal(header(first, 'ratelimit-remaining'), '2');
  t.equal(await countAllowed(() => hit(b.key, 0), 10), 2, 'b: the rest of its 3');
  t.equal(await countAllowed(() => hit(other.key, 0), 10), 3, 'a key of another workspace: 3');
  refused(t, await hit(a.key, 0), 'a stays refused');
});

t.test('default limits 60/min and 1000/h when the key has no override', async (t) => {
  const { tg, hit, clock } = await setup(t);
  // the test helper's key() always sets generous limits; make a key without any
  const made = await createKey({ keys: tg.gw.store.keys, secret: tg.gw.secret, clock }, { workspace: 'ws1', trust: 'read_only' });
  t.equal(made.record.limits, undefined, 'no per-key override');
  const key = made.key;
  const first = await hit(key, 0);
  t.equal(header(first, 'ratelimit-limit'), '60');
  t.equal(header(first, 'ratelimit-remaining'), '59');
  t.equal(await countAllowed(() => hit(key), 100), 59, '60 in the minute in all');
  const r61 = await hit(key);
  refused(t, r61, '61st in the minute');
  t.equal(header(r61, 'ratelimit-limit'), '60');

  // the hour: 60 per minute for 16 more minutes reaches 1000 (60 * 16 = 960, then 40 more)
  let total = 60;
  for (let m = 1; total < 1000; m++) {
    clock.set(T0 + m * MIN);
    total += await countAllowed(() => hit(key), 100);
  }
  t.equal(total, 1000, '1000 in the hour in all');
  const over = await hit(key);
  refused(t, over, '1001st in the hour');
  t.equal(over.json.error.data.window, 'hour');
  t.equal(header(over, 'ratelimit-limit'), '1000');
  clock.set(T0 + 30 * MIN);
  refused(t, await hit(key), 'still refused half an hour in, the minute empty');
});

t.test('the configured default applies to keys without an override', async (t) => {
  const { tg, hit, clock } = await setup(t, { limits: { perMinute: 2, perHour: 10 } });
  const made = await createKey({ keys: tg.gw.store.keys, secret: tg.gw.secret, clock }, { workspace: 'ws1', trust: 'read_only' });
  t.equal(await countAllowed(() => hit(made.key, 0), 10), 2);
  const withOverride = await tg.key({ trust: 'read_only', limits: { perMinute: 4, perHour: 10 } });
  t.equal(await countAllowed(() => hit(withOverride.key, 0), 10), 4, 'a per-key override wins over the configured default');
});

t.test('order of checks: authentication and scope come before the rate limit', async (t) => {
  t.test("unauthenticated requests never spend a key's budget", async (t) => {
    const { tg, hit } = await setup(t);
    const k = await tg.key({ trust: 'read_only', limits: { perMinute: 3, perHour: 5 } });
    const near = k.key.slice(0, -1) + (k.key.endsWith('A') ? 'B' : 'A');
    const variants: Array<Record<string, string>> = [
      {},
      { Authorization: `Basic ${k.key}` },
      { Authorization: `Bearer ${near}` },
      { Authorization: `Bearer ${k.key}x` },
      { Authorization: 'Bearer' },
    ];
    for (const headers of variants) {
      for (let i = 0; i < 4; i++) {
        const r = await tg.rpc({ method: 'agent/getAuthenticatedExtendedCard', params: {}, headers });
        t.equal(r.json.error.code, -32003, 'refused as unauthorized, not rate limited');
        t.equal(r.headers.get('ratelimit-remaining'), null, 'no RateLimit headers before authentication');
      }
    }
    const first = await hit(k.key, 0);
    t.equal(header(first, 'ratelimit-remaining'), '2', "the key's budget is whole");
    t.equal(await countAllowed(() => hit(k.key), 10), 2);
  });

  t.test('an expired key spends nothing and is refused as unauthorized, not rate limited', async (t) => {
    const { tg, hit, clock } = await setup(t);
    const k = await tg.key({ trust: 'read_only', limits: { perMinute: 3, perHour: 5 }, expiresAt: T0 + 10 * MIN });
    t.equal(await countAllowed(() => hit(k.key, 0), 10), 3);
    clock.set(T0 + 10 * MIN);
    const r = await hit(k.key);
    t.equal(r.json.error.code, -32003, 'an exhausted, expired key gets -32003 (authentication first)');
  });

  t.test('a scope failure does not spend budget', async (t) => {
    const { tg, hit } = await setup(t);
    const k = await tg.key({ trust: 'read_only', limits: { perMinute: 3, perHour: 5 } });
    for (let i = 0; i < 10; i++) {
      const r = await tg.rpc({ method: 'tasks/cancel', key: k.key, params: { id: 'x' } });
      t.equal(r.status, 403);
      t.equal(r.json.error.code, -32006);
      t.equal(r.headers.get('ratelimit-remaining'), null, 'no RateLimit headers: the limiter was not consulted');
    }
    const unknown = await tg.rpc({ method: 'no/such/method', key: k.key, params: {} });
    t.equal(unknown.json.error.code, -32601, 'an unknown method is refused before the limiter too');
    const first = await hit(k.key, 0);
    t.equal(header(first, 'ratelimit-remaining'), '2', 'the 10 scope failures spent nothing');
    t.equal(await countAllowed(() => hit(k.key), 10), 2);
    // with the budget gone, a forbidden method is still a scope failure (scope is checked first)
    const forbidden = await tg.rpc({ method: 'message/send', key: k.key, params: { message: { role: 'user', parts: [{ type: 'text', text: 'x' }] } } });
    t.equal(forbidden.status, 403, 'exhausted key, forbidden method: 403');
    t.equal(forbidden.json.error.code, -32006);
  });

  t.test('the rate limit comes before execution: invalid params and unknown tasks spend budget', async (t) => {
    const { tg, hit } = await setup(t);
    const k = await tg.key({ trust: 'read_only', limits: { perMinute: 3, perHour: 5 } });
    const bad = await tg.rpc({ method: 'tasks/get', key: k.key, params: { historyLength: -1 } });
    t.equal(bad.json.error.code, -32602);
    t.equal(header(bad, 'ratelimit-remaining'), '2', 'an invalid call was counted');
    const missing = await tg.rpc({ method: 'tasks/get', key: k.key, params: { id: 'nope' } });
    t.equal(missing.json.error.code, -32001);
    t.equal(header(missing, 'ratelimit-remaining'), '1');
    allowed(t, await hit(k.key, 0), '3rd');
    const late = await tg.rpc({ method: 'tasks/get', key: k.key, params: { historyLength: -1 } });
    t.equal(late.json.error.code, -32004, 'once exhausted, even an invalid call is rate limited (not executed)');
    t.equal(late.status, 429);
  });
});

t.test('a batch counts each element against the limit', async (t) => {
  const { tg, hit } = await setup(t);
  const k = await tg.key({ trust: 'read_only', limits: { perMinute: 3, perHour: 5 } });
  const batch = [1, 2, 3, 4].map((i) => ({ jsonrpc: '2.0', id: `b${i}`, method: 'agent/getAuthenticatedExtendedCard', params: {} }));
  const r = await tg.rpc({ key: k.key, body: JSON.stringify(batch) });
  t.equal(r.status, 200);
  t.equal(r.json.length, 4);
  const codes = (r.json as Array<{ result?: unknown; error?: { code: number } }>).map((x) => (x.result ? 'ok' : x.error?.code));
  t.equal(codes.filter((c) => c === 'ok').length, 3, 'three elements allowed');
  t.equal(codes.filter((c) => c === -32004).length, 1, 'one rate limited');
  refused(t, await hit(k.key, 0), 'the batch spent the minute');
});
