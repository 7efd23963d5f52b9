// An IPv6 client is counted by its /64, so walking the addresses of its block buys no fresh budget: once the block is
// past its failed-authentication budget, an address of it that never failed here is refused too, the right key included
// (else its 200 for the right key and 429 for a wrong one would test candidate keys without limit, one address each).
// Also an IPv4 client written IPv4-mapped once and plain once. Through a trusted proxy's X-Forwarded-For, on the
// in-process limiter (Redis looks every call up anyway).
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { msgB, startTestGateway } from '../support/gateway.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const BUDGET = { perMinute: 3, perHour: 100 };
/** a key of the right shape that no one holds */
const wrongKey = (c: string) => `svc_a2a_${c.repeat(43)}`;

t.test('a /64 past its budget is refused from every address of it, the right key included', async (t) => {
  const clock = new ManualClock(T0);
  const tg = await startTestGateway({ clock, config: { authFailures: BUDGET, trustedProxies: ['127.0.0.1'] } });
  t.teardown(() => tg.close());
  const good = await tg.key({ workspace: 'ws1', trust: 'execute' });
  const send = (key: string, client: string) => tg.rpc({ method: 'message/send', params: msgB('hi'), key, headers: { 'X-Forwarded-For': client } });

  for (let i = 0; i < BUDGET.perMinute; i++) t.equal((await send(wrongKey('x'), '2001:db8:1:2::1')).status, 401, 'a wrong key: 401');
  const blocked = await send(good.key, '2001:db8:1:2::1');
  t.equal(blocked.status, 429, 'the address that failed is refused, its right key too');

  const walked = await send(good.key, '2001:db8:1:2::7');
  t.equal(walked.status, 429, 'another address of the same /64 is refused with the right key, as the first one is');
  t.same(walked.json.error, blocked.json.error, 'the same answer');
  t.equal((await send(wrongKey('y'), '2001:db8:1:2::8')).status, 429, 'and with a wrong one');
  t.equal((await send(good.key, '2001:db8:1:3::1')).status, 200, 'the next /64 is another client');
  t.equal((await send(good.key, '192.0.2.1')).status, 200, 'an IPv4 client is another client');

  for (let i = 0; i < BUDGET.perMinute; i++) t.equal((await send(wrongKey('z'), '::ffff:192.0.2.9')).status, 401, 'a wrong key, IPv4-mapped: 401');
  t.equal((await send(good.key, '192.0.2.9')).status, 429, 'the same IPv4 client written plain is the same client');

  clock.advance(60_000);
  t.equal((await send(good.key, '2001:db8:1:2::9')).status, 200, 'once the window frees, the block is served again');
});
