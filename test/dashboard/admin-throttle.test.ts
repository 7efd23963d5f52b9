// The admin API's throttles over plain HTTP: each admin key's budget of admin calls (the limiter of the A2A endpoint,
// a bucket of its own) and failed admin authentications per client address, both answered 429 with Retry-After.
import { request } from 'node:http';
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { addressBucket } from '../../src/runtime/limiter/auth-throttle.js';
import { adminCall, type AdminCallOptions } from '../support/admin-api.js';
import { msgB, startTestGateway } from '../support/gateway.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

async function setup(t: Test, dashboard: Record<string, unknown>) {
  const clock = new ManualClock(T0);
  const tg = await startTestGateway({ clock, config: { dashboard: { enabled: true, ...dashboard } } });
  t.teardown(() => tg.close());
  const call = (method: string, path: string, o?: AdminCallOptions) => adminCall(tg, method, path, o);
  return { clock, tg, call };
}

/** GET /api/admin/keys with a Bearer key from another loopback source address (127.0.0.2): another client. */
function fromOtherAddress(url: string, bearer: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path: '/api/admin/keys', localAddress: '127.0.0.2', headers: { Authorization: `Bearer ${bearer}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test("an admin key's admin calls are rate-limited per key: 429 with Retry-After, nothing done, its A2A budget apart", async (t) => {
  const { clock, tg, call } = await setup(t, { limits: { perMinute: 3, perHour: 100 } });
  const admin = await tg.key({ workspace: 'acme', trust: 'admin' });
  const other = await tg.key({ workspace: 'acme', trust: 'admin' });

  const first = await call('GET', '/keys', { bearer: admin.key });
  t.equal(first.status, 200);
  t.equal(first.headers.get('ratelimit-remaining'), '2', 'the reply says what is left');
  // a sign-in and the session's calls spend the budget of the key that signed in
  const signIn = await call('POST', '/session', { body: { key: admin.key } });
  t.equal(signIn.status, 200);
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
  t.equal((await call('GET', '/keys', { cookie })).status, 200, 'the third call');

  const refused = await call('POST', '/keys', { cookie, csrf: signIn.json.csrf, body: { name: 'late', trust: 'execute' } });
  t.equal(refused.status, 429, 'the fourth call in the minute is refused');
  t.equal(refused.json.error, 'rate_limited');
  t.match(refused.json.message, /rate limit/i);
  t.equal(refused.headers.get('retry-after'), '60', 'Retry-After: when the oldest call leaves the window');
  t.equal((await call('GET', '/keys', { bearer: admin.key })).status, 429, 'the Bearer key shares that budget');
  const keys = await tg.gw.store.keys.list({ workspaceId: 'acme' });
  t.equal(keys.length, 2, 'the refused call created no key');

  t.equal((await call('GET', '/keys', { bearer: other.key })).status, 200, 'another admin key has its own budget');
  const a2a = await tg.rpc({ method: 'message/send', key: admin.key, params: msgB('still works') });
  t.equal(a2a.json.result?.status?.state, 'completed', 'the A2A endpoint does not spend or read the admin budget');

  clock.advance(59_999);
  t.equal((await call('GET', '/keys', { bearer: admin.key })).status, 429, 'still refused 1 ms before the window frees');
  clock.advance(1);
  t.equal((await call('GET', '/keys', { bearer: admin.key })).status, 200, 'allowed once the oldest call has left the window');
});

t.test('failed admin authentications are throttled per client address, before any key is checked', async (t) => {
  const { clock, tg, call } = await setup(t, { authFailures: { perMinute: 3, perHour: 100 } });
  const admin = await tg.key({ workspace: 'acme', trust: 'admin' });
  const reader = await tg.key({ workspace: 'acme', trust: 'read_only' });
  const wrong = `svc_a2a_${'A'.repeat(43)}`;

  // neither nothing presented nor a live key of too low a trust is a guess: they spend nothing
  for (let i = 0; i < 5; i++) {
    t.equal((await call('GET', '/keys')).status, 401);
    t.equal((await call('GET', '/keys', { bearer: reader.key })).status, 403);
  }
  t.equal((await call('GET', '/keys', { bearer: wrong })).status, 401, 'first wrong key');
  t.equal((await call('POST', '/session', { body: { key: wrong } })).status, 401, 'a wrong sign-in key counts too');
  t.equal((await call('GET', '/keys', { bearer: 'not-even-a-key' })).status, 401, 'third');
  const fourth = await call('GET', '/keys', { bearer: wrong });
  t.equal(fourth.status, 429, 'the fourth failure in a minute is refused');
  t.equal(fourth.json.error, 'rate_limited');
  t.equal(fourth.headers.get('retry-after'), '60');

  // while throttled, no key is checked at all: a right key is refused too, so the answer tells a guesser nothing
  const right = await call('GET', '/keys', { bearer: admin.key });
  t.equal(right.status, 429, 'the right admin key from that address waits as well');
  t.ok(Number(right.headers.get('retry-after')) >= 1, 'with a Retry-After');
  t.equal((await call('POST', '/session', { body: { key: admin.key } })).status, 429, 'and so does a sign-in');
  t.equal(await fromOtherAddress(tg.url, admin.key), 200, 'another client address is not affected');
  t.equal((await tg.rpc({ method: 'agent/getAuthenticatedExtendedCard', key: admin.key, params: {} })).status, 200, 'nor is the A2A endpoint');

  clock.advance(60_000);
  t.equal((await call('GET', '/keys', { bearer: admin.key })).status, 200, 'the address may try again once the window frees');
});

t.test('a client address is bucketed: IPv4 whole (also IPv4-mapped), IPv6 by its /64', async (t) => {
  t.equal(addressBucket('203.0.113.7'), '203.0.113.7');
  t.equal(addressBucket('0000:0000:0000:0000:0000:ffff:cb00:7107'), '203.0.113.7', 'the long form of an IPv4-mapped peer');
  t.equal(addressBucket('2001:db8:1:2:aaaa::1'), '2001:db8:1:2:0:0:0:0/64');
  t.equal(addressBucket('2001:db8:1:2:ffff:ffff:ffff:ffff'), addressBucket('2001:db8:1:2::9'), 'one /64, one bucket');
  t.not(addressBucket('2001:db8:1:3::1'), addressBucket('2001:db8:1:2::1'), 'the next /64 is another');
});
