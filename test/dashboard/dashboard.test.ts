// The dashboard in a real headless Chromium against a real gateway: sign-in, keys (create, use, revoke: refused at
// once), connections (add, live state, test), relays (register, agent trust), tasks (live working -> completed),
// webhooks (rotate the secret); and the session rules (CSRF on mutations, read_only keys cannot sign in).
import t from 'tap';
import type { Browser } from 'playwright-core';
import { startTestGateway, msgB, type TestGateway } from '../support/gateway.js';
import { launchChromium, shot, signedIn } from '../support/browser.js';
import { connectRelay, echoTurns } from '../support/tunnel-client.js';
import { startReceiver } from '../support/webhooks.js';
import { until } from '../support/a2a-client.js';

let browser: Browser;
let tg: TestGateway;
let admin: { key: string; id: string };

t.before(async () => {
  browser = await launchChromium();
  tg = await startTestGateway({ config: { push: { allowlist: ['127.0.0.1'] }, connections: { rescanMs: 200 } } });
  admin = await tg.key({ workspace: 'acme', trust: 'admin' });
});
t.teardown(async () => {
  await browser?.close();
  await tg?.close();
});

const send = (key: string, text = 'hi', agentId = 'echo') => tg.rpc({ method: 'message/send', key, params: { ...msgB(text), metadata: { agentId } } });

t.test('sign in, create a key, use it over HTTP, revoke it: the next request is refused', async (t) => {
  const page = await signedIn(browser, { url: tg.url, key: admin.key, hash: '#/keys' });
  t.teardown(() => page.context().close());
  await page.getByText('workspace acme').waitFor();
  const form = page.getByRole('form', { name: 'Create a key' });
  await form.getByLabel('Name').fill('ci-bot');
  await form.getByLabel('Trust level').selectOption('execute');
  await form.getByRole('button', { name: 'Create key' }).click();
  const shown = await page.getByTestId('shown-once').textContent();
  t.match(shown, /^svc_a2a_/, 'the new key is shown once');
  const row = page.locator('tr', { hasText: 'ci-bot' });
  await row.waitFor();
  await shot(page, 'keys');

  const ok = await send(shown!);
  t.equal(ok.status, 200, 'the new key works over HTTP');
  t.equal(ok.json.result.status.state, 'completed');
  await page.reload();
  await page
    .locator('tr', { hasText: 'ci-bot' })
    .locator('td', { hasText: /\d:\d\d/ })
    .nth(1)
    .waitFor();
  t.pass('last used is shown once the key was used');

  await row.getByRole('button', { name: 'Revoke' }).click();
  await row.getByText('revoked').waitFor();
  const refused = await send(shown!);
  t.equal(refused.status, 401, 'the very next request with it is refused');
  t.match(refused.json.error.message, /revoked/);

  // after reload the page remembers nothing of the key: it is shown once
  await page.reload();
  await page.locator('tr', { hasText: 'ci-bot' }).waitFor();
  t.equal(await page.getByTestId('shown-once').count(), 0, 'not shown again');
  t.notOk((await page.content()).includes(shown!), 'nowhere on the page');
});

t.test('add an outbound connection: its actor gets ready, the test reads its card; the secret is never shown', async (t) => {
  const remote = await startTestGateway();
  t.teardown(() => remote.close());
  const remoteKey = await remote.key({ workspace: 'partner', trust: 'admin' });
  const page = await signedIn(browser, { url: tg.url, key: admin.key, hash: '#/connections' });
  t.teardown(() => page.context().close());
  const form = page.getByRole('form', { name: 'Add a connection' });
  await form.getByLabel('Name').fill('partner');
  await form.getByLabel('Agent URL').fill(`${remote.url}/api/a2a/agents/echo`);
  await form.getByLabel('Auth').selectOption('bearer');
  await form.getByLabel('Bearer token').fill(remoteKey.key);
  await form.getByRole('button', { name: 'Add connection' }).click();
  const row = page.locator('tr[data-connection="partner"]');
  await row.waitFor();
  t.match(await row.textContent(), /bearer/, 'the auth kind is shown');
  await row.locator('.badge.ready').waitFor({ timeout: 30_000 });
  t.pass('the live state reads ready');
  await row.getByRole('button', { name: 'Test' }).click();
  await page.getByText('card read').waitFor({ timeout: 30_000 });
  t.notOk((await page.content()).includes(remoteKey.key), 'the token is write-only');

  // edit: a new trust level, the secret left empty (kept)
  await row.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('form', { name: 'Edit partner' });
  await edit.locator('select[name="trust"]').selectOption('admin');
  await edit.getByRole('button', { name: 'Save' }).click();
  await row.getByText('admin').waitFor();
  const edited = await tg.gw.store.connections.get('acme', 'partner');
  t.equal(edited?.trust, 'admin', 'the edit is stored');
  t.equal(edited?.credentialKind, 'bearer', 'the credentials are kept');
  const stored = await tg.gw.store.connections.get('acme', 'partner');
  t.equal(stored?.credentialKind, 'bearer', 'stored through the same module as the CLI');
  await shot(page, 'connections');
});

t.test('register a relay, see its agent when it connects, set the agent trust', async (t) => {
  const relayKey = await tg.key({ workspace: 'acme', trust: 'execute' });
  const page = await signedIn(browser, { url: tg.url, key: admin.key, hash: '#/connections' });
  t.teardown(() => page.context().close());
  const form = page.getByRole('form', { name: 'Add a relay' });
  await form.getByLabel('Relay name').fill('home');
  await form.getByLabel(/key's id/).fill(relayKey.id);
  await form.getByRole('button', { name: 'Add relay' }).click();
  const relay = page.locator('[data-relay="home"]');
  await relay.getByText('disconnected').first().waitFor();

  const { client, answer } = await connectRelay({
    url: tg.url,
    key: relayKey.key,
    workspace: 'acme',
    agents: [{ name: 'local-echo', description: 'an agent on the home network', skills: [], streaming: false }],
  });
  t.teardown(() => client.close());
  t.equal(answer.t, 'welcome');
  echoTurns(client);
  await relay.locator('.badge.connected').waitFor({ timeout: 15_000 });
  const agentRow = relay.locator('tr[data-relay-agent="local-echo"]');
  await agentRow.locator('.badge.up').waitFor({ timeout: 15_000 });
  await agentRow.locator('select[name="trust"]').selectOption('admin');
  await agentRow.getByRole('button', { name: 'Save' }).click();
  await until(async () => (await tg.gw.store.relays.get('acme', 'home'))?.agents['local-echo']?.trust === 'admin', 'the trust is stored');
  t.pass('the agent trust is admin in the store');
  await shot(page, 'relays');
  await page.goto(`${tg.url}/dashboard#/agents`);
  await page.locator('tr[data-agent="local-echo"] .badge.up').waitFor();
  await shot(page, 'agents');
});

t.test('watch a task go from working to completed live; the list filters by state and agent', async (t) => {
  const page = await signedIn(browser, { url: tg.url, key: admin.key, hash: '#/agents' });
  t.teardown(() => page.context().close());
  await page.locator('tr[data-agent="slow"]').waitFor();
  const started = await tg.rpc({
    method: 'message/send',
    key: admin.key,
    params: {
      message: { kind: 'message', role: 'user', messageId: 'm-slow', parts: [{ kind: 'data', data: { ms: 3000, steps: 3 } }], metadata: { agentId: 'slow' } },
      configuration: { blocking: false },
    },
  });
  const id: string = started.json.result.id;
  await page.goto(`${tg.url}/dashboard#/tasks/${id}`);
  const state = page.getByTestId('task-state');
  await state.getByText('working').waitFor({ timeout: 15_000 });
  t.pass('working, live');
  await shot(page, 'task');
  await state.getByText('completed').waitFor({ timeout: 30_000 });
  t.pass('completed, live, without a reload');
  await page.getByTestId('task-view').getByText('"artifacts"').waitFor();

  await page.goto(`${tg.url}/dashboard#/tasks`);
  await page.locator(`tr[data-task="${id}"]`).waitFor();
  await page.getByLabel('Filter by state').selectOption('completed');
  await page.getByLabel('Filter by agent').selectOption('slow');
  await until(async () => (await page.locator('tr[data-task]').count()) === 1, 'only the slow task is listed');
  await shot(page, 'tasks');

  // cancel from the task page: the state follows live
  const long = await tg.rpc({
    method: 'message/send',
    key: admin.key,
    params: {
      message: { kind: 'message', role: 'user', messageId: 'm-long', parts: [{ kind: 'data', data: { ms: 60_000, steps: 1 } }], metadata: { agentId: 'slow' } },
      configuration: { blocking: false },
    },
  });
  const longId: string = long.json.result.id;
  await page.goto(`${tg.url}/dashboard#/tasks/${longId}`);
  await state.getByText('working').waitFor({ timeout: 15_000 });
  await page.getByRole('button', { name: 'Cancel task' }).click();
  await state.getByText('canceled').waitFor({ timeout: 15_000 });
  t.equal((await tg.gw.store.tasks.get('acme', longId))?.status.state, 'canceled', 'canceled from the dashboard');
});

t.test('rotate the webhook signing secret: shown once, and deliveries are signed with it', async (t) => {
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const page = await signedIn(browser, { url: tg.url, key: admin.key, hash: '#/webhooks' });
  t.teardown(() => page.context().close());
  await page.getByRole('button', { name: 'Rotate signing secret' }).click();
  const secret = await page.getByTestId('shown-once').textContent();
  t.match(secret, /^whsec_/);
  t.equal(await tg.gw.push.secrets.current('acme'), secret, 'the stored secret is the one shown');
  await tg.rpc({
    method: 'message/send',
    key: admin.key,
    params: { ...msgB('hook'), metadata: { agentId: 'echo' }, configuration: { pushNotificationConfig: { url: rx.url, token: 't' } } },
  });
  await until(() => rx.deliveries.length > 0, 'a delivery arrived');
  await page.locator('table[aria-label="Recent deliveries"] .badge.delivered').first().waitFor({ timeout: 15_000 });
  t.pass('the delivery is listed with its outcome');
  await shot(page, 'webhooks');
});

t.test('the webhooks page shows the 100 waiting deliveries due soonest and says how many wait in all', async (t) => {
  const T = Date.now() + 3_600_000;
  const job = (i: number) => ({
    id: `wait-${i}`,
    queue: JSON.stringify([`acme/held-${i}`, 'c']),
    seq: 1,
    taskKey: `acme/held-${i}`,
    configId: 'c',
    workspaceId: 'acme',
    body: '{}',
    attempts: 1,
    dueAt: T + i * 1_000,
    createdAt: T,
    lastError: 'HTTP 503',
  });
  await tg.gw.store.pushJobs.enqueue(Array.from({ length: 150 }, (_, i) => job(i)));
  t.teardown(() => tg.gw.store.pushJobs.dropTasks(Array.from({ length: 150 }, (_, i) => `acme/held-${i}`)));
  const page = await signedIn(browser, { url: tg.url, key: admin.key, hash: '#/webhooks' });
  t.teardown(() => page.context().close());
  await page.getByText('The 100 due soonest of 150 waiting.').waitFor();
  const rows = page.locator('tr', { hasText: 'HTTP 503' });
  t.equal(await rows.count(), 100, 'one row per shown delivery');
  t.equal(await rows.first().locator('td').first().textContent(), 'wait-0', 'the soonest first');
  await shot(page, 'webhooks-waiting');
});

t.test('session rules: no mutation without the CSRF token; a read_only key cannot sign in; sign-out ends the session', async (t) => {
  const page = await signedIn(browser, { url: tg.url, key: admin.key, hash: '#/keys' });
  t.teardown(() => page.context().close());
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === 'a2a_session');
  t.ok(session?.httpOnly, 'HttpOnly');
  t.equal(session?.sameSite, 'Strict', 'SameSite=Strict');
  t.equal(await page.evaluate(() => document.cookie), '', 'the page script cannot read it');
  const noToken = await page.evaluate(async () => {
    const r = await fetch('/api/admin/keys', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ trust: 'admin' }) });
    return r.status;
  });
  t.equal(noToken, 403, 'a mutation without the token is refused');
  const wrongToken = await page.evaluate(async () => {
    const r = await fetch('/api/admin/webhooks/secret/rotate', { method: 'POST', headers: { 'X-CSRF-Token': 'guess' } });
    return r.status;
  });
  t.equal(wrongToken, 403, 'a wrong token is refused');
  t.equal((await tg.gw.store.keys.list({ workspaceId: 'acme' })).filter((k) => k.trust === 'admin').length, 1, 'no admin key was made');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Admin API key').waitFor();
  const after = await page.evaluate(async () => (await fetch('/api/admin/keys')).status);
  t.equal(after, 401, 'signed out: the API refuses');

  const reader = await tg.key({ workspace: 'acme', trust: 'read_only' });
  await page.getByLabel('Admin API key').fill(reader.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').getByText('Only an admin key').waitFor();
  t.pass('a read_only key cannot sign in');
  await shot(page, 'signin');

  // the CSP is strict: no inline script, nothing from another origin
  const res = await fetch(`${tg.url}/dashboard`);
  t.match(res.headers.get('content-security-policy'), /script-src 'self';/);
  t.notMatch(await res.text(), /https?:\/\//, 'no external asset');
});

t.test('keyboard only: sign in with Enter, move between pages and press buttons without a mouse', async (t) => {
  const reader = await tg.key({ workspace: 'acme', trust: 'execute', agents: [] });
  const ctx = await browser.newContext();
  t.teardown(() => ctx.close());
  const page = await ctx.newPage();
  page.on('dialog', (d) => void d.accept());
  await page.goto(`${tg.url}/dashboard`);
  // the key field has the focus on load
  await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'key');
  await page.keyboard.type(admin.key);
  await page.keyboard.press('Enter');
  await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
  await page.getByRole('link', { name: 'API keys' }).focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/#\/keys$/);
  const row = page.locator(`tr[data-key="${reader.id}"]`);
  await row.getByRole('button', { name: 'Revoke' }).focus();
  await page.keyboard.press('Enter');
  await row.getByText('revoked').waitFor();
  t.equal((await send(reader.key)).status, 401, 'revoked from the keyboard');
  await page.getByRole('link', { name: 'Tasks' }).focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/#\/tasks$/);
  // the re-render follows the hash change: wait for it rather than read at once
  await page.locator('nav a[aria-current="page"]', { hasText: 'Tasks' }).waitFor();
  t.pass('the current page is announced');
});
