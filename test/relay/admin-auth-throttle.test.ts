// The relay admin UI's bound on password guesses, as a hostile caller meets it: failures are counted per client address
// whichever way the password is tried (the login form or HTTP Basic), an address past its budget is refused (429 with
// Retry-After) even with the right password, and another address (the operator's) is not locked out by it.
// Behind a trusted proxy (admin_trusted_proxies) the address is the client its X-Forwarded-For names.
import { request } from 'node:http';
import t from 'tap';
import { parseRelayConfig } from '../../relay/config.js';
import { ADMIN_PASSWORD, RELAY_SETTINGS } from '../support/relay-admin-settings.js';
import { startAdmin } from '../../relay/admin/server.js';
import { ManualClock } from '../../src/runtime/clock.js';

const settings = {
  ...RELAY_SETTINGS,
  admin_port: 0,
  admin_password: ADMIN_PASSWORD,
};
const config = parseRelayConfig({ text: JSON.stringify(settings) });

/** One request to the admin server from the loopback address `from` (127.0.0.x: every one of them reaches 127.0.0.1). */
function call(url: string, o: { from: string; method?: string; path: string; headers?: Record<string, string>; body?: string }) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = request(`${url}${o.path}`, { method: o.method ?? 'GET', headers: o.headers, localAddress: o.from }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` });
const form = (password: string, headers: Record<string, string> = {}) => ({
  method: 'POST',
  path: '/login',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams({ password }).toString(),
});

t.test('password guesses over HTTP Basic count as the form does; a locked address is refused even the right password', async (t) => {
  const clock = new ManualClock();
  const admin = await startAdmin({ config, log: () => {}, clock });
  t.teardown(() => admin.close());
  const attacker = '127.0.0.2';

  for (let i = 0; i < 10; i++) t.equal((await call(admin.url, { from: attacker, path: '/api/status', headers: basic(`guess-${i}`) })).status, 401);
  const right = await call(admin.url, { from: attacker, path: '/api/status', headers: basic(ADMIN_PASSWORD) });
  t.equal(right.status, 429, 'the 11th try in the minute is refused, though it is right: a guess learns nothing');
  t.ok(Number(right.headers['retry-after']) > 0, 'Retry-After says when to come back');
  t.notMatch(right.body, /"connection"/, 'no status shown');
  const viaForm = await call(admin.url, { from: attacker, ...form(ADMIN_PASSWORD) });
  t.equal(viaForm.status, 429, 'the form is locked for that address too');
  t.match(viaForm.body, /Too many failed attempts/);
  t.notOk(viaForm.headers['set-cookie'], 'no session');

  const operator = '127.0.0.3';
  const signIn = await call(admin.url, { from: operator, ...form(ADMIN_PASSWORD) });
  t.equal(signIn.status, 303, "another address signs in: one caller's guesses do not lock the operator out");
  t.match(String(signIn.headers['set-cookie']), /a2a_relay_session=/);
  t.equal(
    (await call(admin.url, { from: operator, path: '/metrics', headers: basic(ADMIN_PASSWORD) })).status,
    200,
    'and a scraper elsewhere still reads /metrics',
  );

  clock.advance(60_000);
  t.equal(
    (await call(admin.url, { from: attacker, path: '/api/status', headers: basic(ADMIN_PASSWORD) })).status,
    200,
    'a minute later the right password works again',
  );
});

t.test('guesses through the form lock HTTP Basic as well', async (t) => {
  const clock = new ManualClock();
  const admin = await startAdmin({ config, log: () => {}, clock });
  t.teardown(() => admin.close());
  for (let i = 0; i < 10; i++) t.equal((await call(admin.url, { from: '127.0.0.4', ...form(`guess-${i}`) })).status, 401);
  t.equal((await call(admin.url, { from: '127.0.0.4', path: '/metrics', headers: basic(ADMIN_PASSWORD) })).status, 429);
  t.equal((await call(admin.url, { from: '127.0.0.4', path: '/healthz' })).status, 200, 'probes stay open');
});

t.test('behind a trusted proxy the budget is per client its X-Forwarded-For names; from anyone else the header is ignored', async (t) => {
  const clock = new ManualClock();
  const proxied = parseRelayConfig({ text: JSON.stringify({ ...settings, admin_trusted_proxies: ['127.0.0.5'] }) });
  const admin = await startAdmin({ config: proxied, log: () => {}, clock });
  t.teardown(() => admin.close());
  const proxy = '127.0.0.5';
  const via = (client: string) => ({ 'x-forwarded-for': client });

  for (let i = 0; i < 10; i++) {
    t.equal((await call(admin.url, { from: proxy, ...form(`guess-${i}`, via('203.0.113.7')) })).status, 401);
  }
  const locked = await call(admin.url, { from: proxy, path: '/api/status', headers: { ...basic(ADMIN_PASSWORD), ...via('203.0.113.7') } });
  t.equal(locked.status, 429, 'the guessing client is locked out');
  const operator = await call(admin.url, { from: proxy, ...form(ADMIN_PASSWORD, via('198.51.100.2')) });
  t.equal(operator.status, 303, "another client through the same proxy signs in: one client's guesses do not lock everyone out");
  t.equal(
    (await call(admin.url, { from: proxy, path: '/metrics', headers: { ...basic(ADMIN_PASSWORD), ...via('203.0.113.7, 198.51.100.2') } })).status,
    200,
    'only the hop the proxy appended is read: what the client wrote to its left is not its address',
  );

  // a peer that is not a trusted proxy cannot pick a fresh bucket per request with the header
  const direct = '127.0.0.6';
  for (let i = 0; i < 10; i++) {
    t.equal((await call(admin.url, { from: direct, path: '/api/status', headers: { ...basic(`guess-${i}`), ...via(`192.0.2.${i}`) } })).status, 401);
  }
  t.equal((await call(admin.url, { from: direct, path: '/api/status', headers: { ...basic(ADMIN_PASSWORD), ...via('192.0.2.99') } })).status, 429);
});

t.test("another site's page cannot spend the operator's password budget, nor sign the operator in", async (t) => {
  // a page the operator visits posts the login form to the admin UI from the operator's own browser (same address)
  const clock = new ManualClock();
  const admin = await startAdmin({ config, log: () => {}, clock });
  t.teardown(() => admin.close());
  const operator = '127.0.0.5';
  const crossSite = { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' };
  for (let i = 0; i < 12; i++) {
    const r = await call(admin.url, { from: operator, ...form(`guess-${i}`, crossSite) });
    t.equal(r.status, 403, `cross-site try ${i + 1} is refused unread`);
  }
  const withRight = await call(admin.url, { from: operator, ...form(ADMIN_PASSWORD, { origin: 'https://evil.example' }) });
  t.equal(withRight.status, 403, 'a cross-site form with the right password (an Origin of another host) signs nobody in');
  t.notOk(withRight.headers['set-cookie'], 'no session');
  const own = await call(admin.url, { from: operator, ...form(ADMIN_PASSWORD, { 'sec-fetch-site': 'same-origin' }) });
  t.equal(own.status, 303, "the operator's own form still signs in: the other site's posts counted nothing");
  t.match(String(own.headers['set-cookie']), /a2a_relay_session=/);
});
