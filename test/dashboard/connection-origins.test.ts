// The dashboard's add and edit forms of an outbound connection carry its allowed origins (one a line or
// comma-separated), in a real headless Chromium against a real gateway: a bad origin is refused with the admin API's
// error naming `allowed_origins` and nothing is stored; good ones are stored, shown on the row, edited and cleared.
// Screenshots go to /tmp/a2a-shots/ (look at them).
import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import t from 'tap';
import { launchChromium, signedIn } from '../support/browser.js';
import { startTestGateway } from '../support/gateway.js';

const SHOTS = '/tmp/a2a-shots';
const ORIGINS_LABEL = 'Allowed origins';

let browser: Browser;
t.before(async () => {
  browser = await launchChromium();
});
t.teardown(() => browser?.close());

t.test('add with allowed origins, a bad one refused naming the field; edit and clear them', async (t) => {
  const tg = await startTestGateway({ config: { push: { allowlist: ['127.0.0.1'] } } });
  t.teardown(() => tg.close());
  const admin = await tg.key({ workspace: 'acme', trust: 'admin' });
  mkdirSync(SHOTS, { recursive: true });
  const page = await signedIn(browser, { url: tg.url, key: admin.key, hash: '#/connections' });
  t.teardown(() => page.context().close());
  page.setDefaultTimeout(10_000);

  const form = page.getByRole('form', { name: 'Add a connection' });
  await form.getByLabel('Name').fill('partner');
  await form.getByLabel('Agent URL').fill('http://127.0.0.1:9/a2a');
  await form.getByLabel('Auth').selectOption('bearer');
  await form.getByLabel('Bearer token').fill('tok-123');
  const origins = form.getByLabel(ORIGINS_LABEL, { exact: false });
  await origins.fill('http://127.0.0.1:9001/path');
  await form.getByRole('button', { name: 'Add connection' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  t.match(await alert.textContent(), /allowed_origins\[0\]/, 'the API’s error names the field');
  t.equal(await tg.gw.store.connections.get('acme', 'partner'), undefined, 'nothing is stored');
  await page.screenshot({ path: `${SHOTS}/connection-origins-refused.png`, fullPage: true });

  await origins.fill('http://127.0.0.1:9001,\nhttp://127.0.0.1:9002\n');
  await form.getByRole('button', { name: 'Add connection' }).click();
  const row = page.locator('tr[data-connection="partner"]');
  await row.waitFor();
  t.same((await tg.gw.store.connections.get('acme', 'partner'))?.allowedOrigins, ['http://127.0.0.1:9001', 'http://127.0.0.1:9002'], 'both stored');
  t.match(await row.getByTestId('allowed-origins').textContent(), 'also http://127.0.0.1:9001, http://127.0.0.1:9002', 'shown on the row');
  await page.screenshot({ path: `${SHOTS}/connection-origins-added.png`, fullPage: true });

  await row.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('form', { name: 'Edit partner' });
  const edited = edit.getByLabel(ORIGINS_LABEL, { exact: false });
  t.equal(await edited.inputValue(), 'http://127.0.0.1:9001\nhttp://127.0.0.1:9002', 'the edit form shows them, one a line');
  await page.screenshot({ path: `${SHOTS}/connection-origins-edit.png`, fullPage: true });
  await edited.fill('https://api.example.com/x');
  await edit.getByRole('button', { name: 'Save' }).click();
  await alert.getByText('allowed_origins').waitFor();
  t.same(
    (await tg.gw.store.connections.get('acme', 'partner'))?.allowedOrigins,
    ['http://127.0.0.1:9001', 'http://127.0.0.1:9002'],
    'a refused edit changes nothing',
  );
  await edited.fill('http://127.0.0.1:9003');
  await edit.getByRole('button', { name: 'Save' }).click();
  await row.getByText('also http://127.0.0.1:9003').waitFor();
  t.same((await tg.gw.store.connections.get('acme', 'partner'))?.allowedOrigins, ['http://127.0.0.1:9003']);
  t.equal((await tg.gw.store.connections.get('acme', 'partner'))?.credentialKind, 'bearer', 'the credentials are kept');

  await row.getByRole('button', { name: 'Edit' }).click();
  await page.getByRole('form', { name: 'Edit partner' }).getByLabel(ORIGINS_LABEL, { exact: false }).fill('');
  await page.getByRole('form', { name: 'Edit partner' }).getByRole('button', { name: 'Save' }).click();
  await row.getByTestId('allowed-origins').waitFor({ state: 'detached' });
  t.same((await tg.gw.store.connections.get('acme', 'partner'))?.allowedOrigins, [], 'an empty field clears them');
});
