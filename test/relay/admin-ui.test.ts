// The relay's admin UI in a real headless Chromium, the relay run as its command runs it between a real gateway and the
// official SDK server: connected with its agents; a task appears live and its detail shows the answer; replay runs the
// turn again and logs it; the gateway stopped shows backing off with a countdown and, restarted, connected again
// without a reload; a local agent stopped shows down. Screenshots of each view go to docs/screenshots with
// A2A_SCREENSHOTS=1 (else to a temp dir).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import t from 'tap';
import { launchChromium } from '../support/browser.js';
import { startRelayStack, type RelayStack } from '../support/relay-stack.js';

t.setTimeout(240_000);
let s: RelayStack;
let browser: Browser;
let page: Page;
let shots: string;
/** the page's script errors and console errors (a CSP violation is one) */
const errors: string[] = [];
/** long enough for a loaded machine; every wait is for a state the page must reach */
const WAIT = 30_000;

t.before(async () => {
  shots =
    process.env.A2A_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url)) : await mkdtemp(join(tmpdir(), 'relay-shots-'));
  s = await startRelayStack({
    names: ['sdk-echo', 'sdk-helper'],
    // backoff waits of about 1.8 s, then 3.6 s (random fixed at 0.9): a countdown to read, and a quick return
    cli: { backoffBaseMs: 2_000, backoffCapMs: 4_000, random: () => 0.9 },
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
});
t.teardown(async () => {
  await browser?.close();
  await s?.close();
});

const shot = (name: string) => page.screenshot({ path: join(shots, `relay-${name}.png`), fullPage: true });

t.test('the page shows the tunnel connected and the agents up', async (t) => {
  await page.goto(s.admin.url);
  await page.getByTestId('connection-state').getByText('connected').waitFor({ timeout: WAIT });
  t.match(await page.locator('.facts').innerText(), /ws1/);
  // keyboard: Tab walks from the brand link to the views' links
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  t.equal(await page.evaluate(() => document.activeElement?.textContent), 'Connection', 'Tab reaches the views');
  await page.evaluate(() => {
    (window as unknown as { marker: string }).marker = 'same page';
  });
  await shot('connection');
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Agents' }).click();
  for (const name of ['sdk-echo', 'sdk-helper']) await page.locator(`[data-agent="${name}"]`).getByText('up', { exact: true }).waitFor({ timeout: WAIT });
  t.pass('both agents show up');
  await shot('agents');
});

let firstTurn = '';
t.test('a task sent to the gateway appears in the log live; its detail shows the answer', async (t) => {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Task log' }).click();
  await page.getByText('No turn yet').waitFor({ timeout: WAIT });
  const sent = await s.send('hello from the browser test');
  t.equal(sent.result.status.state, 'completed');
  const row = page.locator('tr[data-state="completed"]').first();
  await row.waitFor({ timeout: WAIT });
  t.match(await row.innerText(), /sdk-echo/);
  t.match(await row.innerText(), /rev B/);
  await s.send('a second one, to the helper', 'sdk-helper');
  await page.locator('tr[data-state="completed"]').nth(1).waitFor({ timeout: WAIT });
  // the filter by agent keeps only sdk-helper's turn
  await page.locator('#filter-agent').selectOption('sdk-helper');
  t.equal(await page.locator('tbody tr[data-turn]').count(), 1);
  await page.locator('#filter-agent').selectOption('');
  await shot('tasks');
  firstTurn = (await page.locator('tr[data-turn]').last().getAttribute('data-turn')) ?? '';
  // keyboard: the task link is reachable and opens the detail
  await page.locator('tr[data-turn]').last().locator('a.task-link').focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('answer').getByText('hello from the browser test').waitFor({ timeout: WAIT });
  t.match(await page.getByTestId('request').innerText(), /hello from the browser test/);
  t.notOk((await page.content()).includes(s.relayKey), 'the key is never on the page');
});

t.test('replay runs the turn again on the local agent and logs it', async (t) => {
  const calls = s.agents.get('sdk-echo')!.calls().length;
  // from the keyboard: the button takes focus and Enter presses it
  await page.getByTestId('replay').focus();
  await page.keyboard.press('Enter');
  const link = page.locator('.notice a');
  await link.waitFor({ timeout: WAIT });
  const replayId = (await link.innerText()).trim();
  t.not(replayId, firstTurn);
  await shot('task-detail');
  await link.click();
  await page.getByRole('heading', { name: new RegExp(`^Turn ${replayId}\\b`) }).waitFor({ timeout: WAIT });
  await page.getByTestId('detail-state').getByText('completed').waitFor({ timeout: WAIT });
  t.match(await page.getByTestId('answer').innerText(), /hello from the browser test/);
  t.match(await page.locator('.facts').innerText(), new RegExp(`replay of ${firstTurn}`));
  t.equal(s.agents.get('sdk-echo')!.calls().length, calls + 1, 'the local agent ran it again');
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Task log' }).click();
  await page.locator(`tr[data-turn="${replayId}"]`).getByText(`replay of ${firstTurn}`).waitFor({ timeout: WAIT });
});

t.test('the gateway stopped: backing off with a countdown; restarted: connected, without a reload', async (t) => {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Connection' }).click();
  await s.stopGateway();
  await page.getByTestId('connection-state').getByText('backing off').waitFor({ timeout: WAIT });
  const next = page.getByTestId('next-attempt');
  await next.waitFor({ timeout: WAIT });
  t.match(await next.innerText(), /Next attempt (in \d+ s|now)/);
  t.equal((await fetch(`${s.admin.url}/readyz`)).status, 503, 'not ready while the tunnel is down');
  await shot('backing-off');
  await s.startGateway();
  await page.getByTestId('connection-state').getByText('connected').waitFor({ timeout: WAIT });
  t.equal(await page.evaluate(() => (window as unknown as { marker?: string }).marker), 'same page', 'no reload');
  t.equal((await fetch(`${s.admin.url}/readyz`)).status, 200);
  const m = await (await fetch(`${s.admin.url}/metrics`)).text();
  t.match(m, /a2a_relay_tunnel_reconnects_total [1-9]/, 'the reconnects are counted');
});

t.test('a local agent stopped shows down', async (t) => {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Agents' }).click();
  await s.agents.get('sdk-helper')!.close();
  await page.locator('[data-agent="sdk-helper"]').getByText('down', { exact: true }).waitFor({ timeout: WAIT });
  t.match(await page.locator('[data-agent="sdk-echo"]').innerText(), /\bup\b/);
  await shot('agent-down');
});

t.test('no script error and no CSP violation on the page', async (t) => {
  // the admin stream's reconnect while the gateway was away is not an error of ours; anything else is
  t.same(
    errors.filter((e) => !/EventSource|ERR_CONNECTION|net::/.test(e)),
    [],
  );
});
