// The admin UI's password and its bounds: a bind that is not loopback needs one; with one set, the page asks for it
// (a login form, in a real Chromium, used from the keyboard), the API and /metrics answer only with the session
// cookie (HttpOnly, SameSite=Strict) or HTTP Basic, /healthz and /readyz stay open; the task log is a bounded ring.
import t from 'tap';
import { parseRelayConfig } from '../../relay/config.js';
import { ADMIN_PASSWORD, RELAY_SETTINGS } from '../support/relay-admin-settings.js';
import { type Admin, startAdmin } from '../../relay/admin/server.js';
import { AdminState } from '../../relay/admin/state.js';
import type { RunFrame } from '../../relay/turn.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { launchChromium } from '../support/browser.js';

t.test('a bind that is not loopback needs a password (config or env)', async (t) => {
  t.throws(
    () => parseRelayConfig({ text: JSON.stringify({ ...RELAY_SETTINGS, admin_bind: '0.0.0.0' }) }),
    /admin_password: a bind that is not loopback needs admin_password/,
  );
  const c = parseRelayConfig({
    text: JSON.stringify(RELAY_SETTINGS),
    env: { SVC_ADMIN_BIND: '0.0.0.0', SVC_ADMIN_PASSWORD: ADMIN_PASSWORD, SVC_ADMIN_PORT: '9191' },
  });
  t.equal(c.admin_bind, '0.0.0.0');
  t.equal(c.admin_port, 9191);
  t.throws(() => parseRelayConfig({ text: JSON.stringify(RELAY_SETTINGS), env: { SVC_ADMIN_PORT: 'ninety' } }), /admin_port \(from SVC_ADMIN_PORT\)/);
  t.equal(parseRelayConfig({ text: JSON.stringify(RELAY_SETTINGS) }).admin_port, 9090, 'port 9090 by default');
  t.equal(parseRelayConfig({ text: JSON.stringify(RELAY_SETTINGS) }).admin_bind, '127.0.0.1', 'loopback by default');
});

t.test('with a password: the form asks for it, a session cookie or HTTP Basic lets in; probes stay open', async (t) => {
  const admin: Admin = await startAdmin({
    config: parseRelayConfig({ text: JSON.stringify({ ...RELAY_SETTINGS, admin_port: 0, admin_password: ADMIN_PASSWORD }) }),
    log: () => {},
  });
  t.teardown(() => admin.close());
  const get = (path: string, headers: Record<string, string> = {}) => fetch(admin.url + path, { headers, redirect: 'manual' });
  t.equal((await get('/healthz')).status, 200);
  t.equal((await get('/readyz')).status, 503, 'not ready: no tunnel');
  const home = await get('/');
  t.equal(home.status, 303);
  t.equal(home.headers.get('location'), '/login');
  t.equal((await get('/api/status')).status, 401);
  t.equal((await get('/metrics')).status, 401);

  const wrong = await fetch(`${admin.url}/login`, {
    method: 'POST',
    body: 'password=nope',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    redirect: 'manual',
  });
  t.equal(wrong.status, 401);
  t.match(await wrong.text(), /Wrong password/);
  const right = await fetch(`${admin.url}/login`, {
    method: 'POST',
    body: new URLSearchParams({ password: ADMIN_PASSWORD }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    redirect: 'manual',
  });
  t.equal(right.status, 303);
  const cookie = right.headers.get('set-cookie') ?? '';
  t.match(cookie, /HttpOnly/);
  t.match(cookie, /SameSite=Strict/);
  const session = cookie.split(';')[0]!;
  t.equal((await get('/api/status', { cookie: session })).status, 200);
  t.equal(
    (await get('/metrics', { authorization: `Basic ${Buffer.from(`prometheus:${ADMIN_PASSWORD}`).toString('base64')}` })).status,
    200,
    'HTTP Basic for scrapers',
  );
  t.equal((await get('/api/status', { authorization: `Basic ${Buffer.from('x:wrong').toString('base64')}` })).status, 401);
  t.equal((await get('/api/status', { cookie: 'a2a_relay_session=forged' })).status, 401);
});

t.test('the login form in a real browser, from the keyboard', async (t) => {
  const admin = await startAdmin({
    config: parseRelayConfig({ text: JSON.stringify({ ...RELAY_SETTINGS, admin_port: 0, admin_password: ADMIN_PASSWORD }) }),
    log: () => {},
  });
  const browser = await launchChromium();
  t.teardown(async () => {
    await browser.close();
    await admin.close();
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 640 } });
  await page.goto(admin.url);
  t.match(page.url(), /\/login$/);
  await page.keyboard.type('not it');
  await page.keyboard.press('Enter');
  await page.getByRole('alert').getByText('Wrong password').waitFor();
  if (process.env.A2A_SCREENSHOTS === '1') await page.screenshot({ path: new URL('../../docs/screenshots/relay-login.png', import.meta.url).pathname });
  await page.locator('#password').fill(ADMIN_PASSWORD);
  await page.keyboard.press('Enter');
  await page.getByRole('navigation', { name: 'Views' }).waitFor();
  t.match(page.url(), /\/$/);
  t.match(await page.getByTestId('tunnel-pill').innerText(), /starting|connecting/);
});

t.test('the task log keeps the last N turns, newest first', async (t) => {
  const clock = new ManualClock();
  const state = new AdminState({ clock, gatewayUrl: 'ws://x', workspace: 'ws1', secrets: [], capacity: 3 });
  const frame = (i: number): RunFrame => ({
    t: 'run',
    sid: i,
    agent: 'echo',
    task: { id: `task-${i}`, contextId: 'c', history: [], artifacts: [], metadata: {} },
    message: { role: 'user', parts: [{ kind: 'text', text: `m${i}` }], messageId: `m${i}` },
    stream: false,
  });
  for (let i = 1; i <= 5; i++) {
    const w = state.turn({ frame: frame(i), url: 'http://x', at: clock.now() });
    clock.advance(10);
    w.end({ ok: true }, clock.now());
  }
  t.same(
    state.tasks().map((x) => x.taskId),
    ['task-5', 'task-4', 'task-3'],
  );
  t.equal(state.task('t1'), undefined, 'the oldest were dropped');
  t.equal(state.tasks()[0]!.durationMs, 10);
});

t.test('a message too large to keep is logged but not kept for a replay', async (t) => {
  const clock = new ManualClock();
  const state = new AdminState({ clock, gatewayUrl: 'ws://x', workspace: 'ws1', secrets: [] });
  const big = 'y'.repeat(300 * 1024);
  state.turn({
    frame: {
      t: 'run',
      sid: 1,
      agent: 'echo',
      task: { id: 'big', contextId: 'c', history: [], artifacts: [], metadata: {} },
      message: { role: 'user', parts: [{ kind: 'text', text: big }], messageId: 'm' },
      stream: false,
    },
    url: 'http://x',
    at: 0,
  });
  t.equal(state.replayable('t1'), 'too_large');
  t.match(state.task('t1')!.request, /cut at 16384 bytes/);
});
