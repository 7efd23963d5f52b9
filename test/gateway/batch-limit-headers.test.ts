// A batch's one HTTP answer tells the key's budget as a single call's does: RateLimit-* of the tightest decision among
// its calls, and Retry-After when any of them was rate limited, whatever call happens to come last (memory and Redis,
// two instances sharing one budget on Redis). Injected clock, real HTTP.
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { startTestGateway, type RpcResult, type TestGateway } from '../support/gateway.js';
import { startPair } from '../support/instance-pair.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const LIMITS = { perMinute: 3, perHour: 100 };

const call = (id: string, method: string) => ({ jsonrpc: '2.0', id, method, params: {} });
/** allowed for a read_only key, and cheap */
const listed = (id: string) => call(id, 'agents/list');
/** refused by scope before the limiter: read_only has no tasks.create */
const forbidden = (id: string) => call(id, 'message/send');
/** refused as unknown before the limiter */
const unknown = (id: string) => call(id, 'no/such/method');

const batch = (tg: TestGateway, key: string, calls: unknown[]) => tg.rpc({ key, body: JSON.stringify(calls) });
const codes = (r: RpcResult) => (r.json as Array<{ result?: unknown; error?: { code: number } }>).map((x) => (x.result ? 'ok' : x.error?.code));
const limitHeaders = (r: RpcResult) => ({
  limit: r.headers.get('ratelimit-limit'),
  remaining: r.headers.get('ratelimit-remaining'),
  retryAfter: r.headers.get('retry-after'),
});

/** The two batches every engine answers: the budget shown after a forbidden last call, then a refusal shown. */
async function budgetTold(t: Test, first: TestGateway, second: TestGateway, key: string) {
  const r1 = await batch(first, key, [listed('a'), listed('b'), forbidden('c')]);
  t.equal(r1.status, 200);
  t.strictSame(codes(r1), ['ok', 'ok', -32006], 'two calls allowed, the forbidden one refused by scope');
  t.strictSame(
    limitHeaders(r1),
    { limit: '3', remaining: '1', retryAfter: null },
    'the budget after the two allowed calls, though the last call never reached the limiter',
  );

  const r2 = await batch(second, key, [listed('d'), listed('e'), unknown('f')]);
  t.strictSame(codes(r2), ['ok', -32004, -32601], 'the third call of the minute allowed, the fourth rate limited');
  const h = limitHeaders(r2);
  t.equal(h.remaining, '0', 'nothing remains');
  t.equal(h.limit, '3');
  t.ok(h.retryAfter !== null && Number(h.retryAfter) >= 1 && Number(h.retryAfter) <= 60, `Retry-After is told (${h.retryAfter})`);
}

t.test('memory engine: the batch answer carries the tightest budget and any Retry-After', async (t) => {
  const clock = new ManualClock(T0);
  const tg = await startTestGateway({ clock });
  t.teardown(() => tg.close());
  const { key } = await tg.key({ trust: 'read_only', limits: LIMITS });
  await budgetTold(t, tg, tg, key);
});

t.test('Redis, two instances: one budget, told on each instance whatever the batch ends with', async (t) => {
  const clock = new ManualClock(T0);
  const [a, b] = await startPair(t, { name: 'batch-limit-headers', clock });
  const { key } = await a.key({ trust: 'read_only', limits: LIMITS });
  await budgetTold(t, a, b, key);
});

t.test('a batch refused whole by the limit says when to come back, as a single call does', async (t) => {
  const clock = new ManualClock(T0);
  const tg = await startTestGateway({ clock });
  t.teardown(() => tg.close());
  const { key } = await tg.key({ trust: 'read_only', limits: LIMITS });
  await batch(tg, key, [listed('a'), listed('b'), listed('c')]);
  clock.advance(20_000);
  const single = await tg.rpc({ key, method: 'agents/list', params: {} });
  t.equal(single.status, 429);
  const r = await batch(tg, key, [listed('d'), unknown('e')]);
  t.strictSame(codes(r), [-32004, -32601]);
  t.strictSame(limitHeaders(r), limitHeaders(single), "the batch's headers are the single call's");
});

t.test('a streaming method refused inside a batch spends no budget, as a scope refusal does not', async (t) => {
  const clock = new ManualClock(T0);
  const tg = await startTestGateway({ clock });
  t.teardown(() => tg.close());
  const { key } = await tg.key({ trust: 'admin', limits: LIMITS });
  const streams = [1, 2, 3].map((i) => ({ jsonrpc: '2.0', id: `s${i}`, method: 'message/stream', params: {} }));
  const r = await batch(tg, key, streams);
  t.strictSame(codes(r), [-32600, -32600, -32600], 'each stream refused as an invalid request');
  t.match(r.json[0].error.message, /cannot be part of a batch/);
  const after = await tg.rpc({ key, method: 'agents/list', params: {} });
  t.equal(after.status, 200, 'the key still has its budget');
  t.equal(after.headers.get('ratelimit-remaining'), '2', 'only this call spent');
});
