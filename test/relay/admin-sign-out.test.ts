// Signing out of the relay admin UI, in a real Chromium: the header offers "Sign out" when a password is set; it ends
// the session on the server (the old cookie is refused) and the live streams opened under it; another site cannot
// sign the operator out; a session that expires ends its streams too.
import t from 'tap';
import { parseRelayConfig } from '../../relay/config.js';
import { ADMIN_PASSWORD, RELAY_SETTINGS } from '../support/relay-admin-settings.js';
import { startAdmin } from '../../relay/admin/server.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { launchChromium } from '../support/browser.js';

const base = {
  ...RELAY_SETTINGS,
  admin_port: 0,
};
const WAIT = 15_000;

/** The live stream (/api/events) read as the page's EventSource reads it: `ended` once the server ends it. */
async function openStream(url: string, cookie: string) {
  const res = await fetch(`${url}/api/events`, { headers: { cookie } });
  if (res.status !== 200) throw new Error(`the stream answered ${res.status}`);
  const reader = res.body!.getReader();
  let ended = false;
  const done = (async () => {
    for (;;) if ((await reader.read()).done) return (ended = true);
  })();
  return {
    ended: () => ended,
    /** resolves true once the server ends the stream, false if it is still open after `ms` */
    endsWithin: (ms: number) => Promise.race([done, new Promise<boolean>((r) => setTimeout(() => r(false), ms))]),
    cancel: () => reader.cancel(),
  };
}

t.test('"Sign out" ends the session on the server and the streams opened under it; another site cannot sign out', async (t) => {
  const clock = new ManualClock(Date.now());
  const admin = await startAdmin({
    config: parseRelayConfig({ text: JSON.stringify({ ...base, admin_password: ADMIN_PASSWORD }) }),
    log: () => {},
    clock,
    keepAliveMs: 50,
  });
  const browser = await launchChromium();
  t.teardown(async () => {
    await browser.close();
    await admin.close();
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 640 } });
  await page.goto(admin.url);
  await page.locator('#password').fill(ADMIN_PASSWORD);
  await page.keyboard.press('Enter');
  await page.getByRole('navigation', { name: 'Views' }).waitFor({ timeout: WAIT });
  const [cookie] = await page.context().cookies();
  const session = `${cookie!.name}=${cookie!.value}`;
  const stream = await openStream(admin.url, session);

  const forged = await fetch(`${admin.url}/logout`, { method: 'POST', headers: { cookie: session, origin: 'http://evil.example' }, redirect: 'manual' });
  t.equal(forged.status, 403, "another site's form cannot sign the operator out");
  t.notOk(forged.headers.get('set-cookie'), 'nor clear the cookie');
  t.equal((await fetch(`${admin.url}/api/status`, { headers: { cookie: session } })).status, 200, 'the session is still live');

  const signOut = page.getByRole('button', { name: 'Sign out' });
  await signOut.waitFor({ timeout: WAIT });
  if (process.env.A2A_SCREENSHOTS === '1') await page.screenshot({ path: new URL('../../docs/screenshots/relay-sign-out.png', import.meta.url).pathname });
  await signOut.click();
  await page.waitForURL(/\/login$/, { timeout: WAIT });
  t.pass('signing out leads to the login form');
  t.equal((await fetch(`${admin.url}/api/status`, { headers: { cookie: session } })).status, 401, 'the old cookie is refused: the session ended on the server');
  t.equal(await stream.endsWithin(WAIT), true, 'the live stream opened under the session ended with it');
  await page.goto(admin.url);
  t.match(page.url(), /\/login$/, 'the page asks for the password again');
});

t.test('a session that expires ends its live stream; one opened with HTTP Basic is not tied to a session', async (t) => {
  const clock = new ManualClock(Date.now());
  const admin = await startAdmin({
    config: parseRelayConfig({ text: JSON.stringify({ ...base, admin_password: ADMIN_PASSWORD }) }),
    log: () => {},
    clock,
    keepAliveMs: 50,
  });
  t.teardown(() => admin.close());
  const login = await fetch(`${admin.url}/login`, {
    method: 'POST',
    body: new URLSearchParams({ password: ADMIN_PASSWORD }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    redirect: 'manual',
  });
  const session = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const stream = await openStream(admin.url, session);
  t.equal(await stream.endsWithin(300), false, 'open while the session lives');
  clock.advance(12 * 60 * 60 * 1000 + 1);
  t.equal(await stream.endsWithin(WAIT), true, 'ended once the session expired');
  t.equal((await fetch(`${admin.url}/api/status`, { headers: { cookie: session } })).status, 401);
  t.same(
    await (await fetch(`${admin.url}/api/session`, { headers: { authorization: `Basic ${Buffer.from(`x:${ADMIN_PASSWORD}`).toString('base64')}` } })).json(),
    { password: true },
    'the page learns that a password is set (and so offers to sign out)',
  );
});

t.test('without a password there is no session and no sign-out button', async (t) => {
  const admin = await startAdmin({ config: parseRelayConfig({ text: JSON.stringify(base) }), log: () => {} });
  const browser = await launchChromium();
  t.teardown(async () => {
    await browser.close();
    await admin.close();
  });
  const page = await browser.newPage();
  await page.goto(admin.url);
  await page.getByRole('navigation', { name: 'Views' }).waitFor({ timeout: WAIT });
  t.same(await (await fetch(`${admin.url}/api/session`)).json(), { password: false });
  t.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 0);
});
