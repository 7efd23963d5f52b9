// The task page's live view in a real headless Chromium, when the page falls behind: the gateway ends the view with its
// backpressure error event, and the page says so ("Live view stopped: ...", with a reload button) and keeps the last
// summary it showed. Before, the error event was taken for a summary: the view stopped with no word to the user.
// The page is made a slow reader by pausing its JavaScript (the DevTools debugger) during a turn of many updates.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import t from 'tap';
import { until } from '../support/a2a-client.js';
import { launchChromium, shot, signedIn } from '../support/browser.js';
import { msgB, startTestGateway } from '../support/gateway.js';

const chatty = fileURLToPath(new URL('../fixtures/agents/chatty.js', import.meta.url));
// summaries of ~520 bytes (the longest agent id): a turn of 40,000 is ~20 MB, past what the socket buffers, the
// browser's own pipe and the gateway's queue (streaming.maxBufferedBytes) hold for a page that does not read
const AGENT = 'chatty-'.padEnd(256, 'x');

let browser: Browser;
t.before(async () => {
  browser = await launchChromium();
});
t.teardown(() => browser?.close());

t.test('a task page that falls behind says its live view stopped, instead of a silent stop', async (t) => {
  const tg = await startTestGateway({
    config: {
      // one live view per key: a second opens only once the page's view was cut
      dashboard: { enabled: true, maxStreamsPerKey: 1, limits: { perMinute: 1_000_000, perHour: 10_000_000 } },
      streaming: { maxBufferedBytes: 256 * 1024 },
      agents: [{ id: AGENT, name: 'Chatty', kind: 'module', entry: chatty, default: true, options: { events: 40_000 } }],
    },
  });
  t.teardown(() => tg.close());
  const admin = await tg.key({ workspace: 'ws1', trust: 'admin' });
  const first = await tg.rpc({ method: 'message/send', key: admin.key, params: msgB('hi') });
  const taskId: string = first.json.result.id;
  t.equal(first.json.result.status.state, 'input-required', 'the task waits for input: its live view stays open');

  const page = await signedIn(browser, { url: tg.url, key: admin.key, hash: `#/tasks/${taskId}` });
  t.teardown(() => page.context().close());
  await page.getByTestId('task-state').getByText('input-required').waitFor();
  const viewPath = `${tg.url}/api/admin/tasks/${taskId}/events`;
  const headers = { Authorization: `Bearer ${admin.key}` };
  const probe = await fetch(viewPath, { headers });
  t.equal(probe.status, 429, "the page's live view holds the key's one slot");
  await probe.body?.cancel();

  // the page stops reading: its script pauses at the next summary
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Debugger.enable');
  await cdp.send('Debugger.pause');
  const turn = tg.rpc({ method: 'message/send', key: admin.key, params: msgB('go', { taskId }) });
  await until(
    async () => {
      const r = await fetch(viewPath, { headers });
      await r.body?.cancel();
      return r.status === 200;
    },
    "the gateway cut the page's view",
    120_000,
  );
  await cdp.send('Debugger.resume');
  await cdp.send('Debugger.disable');

  const stopped = page.getByTestId('live-stopped');
  await stopped.waitFor({ timeout: 60_000 });
  t.match(await stopped.textContent(), /Live view stopped: this page fell too far behind the task's updates/, 'the page says why its view stopped');
  t.ok(await page.getByRole('button', { name: 'Reload' }).isVisible(), 'and offers a reload');
  t.match(await page.getByTestId('task-state').textContent(), /working|input-required/, 'the last summary shown stays: no blank state');
  mkdirSync('/tmp/a2a-shots', { recursive: true });
  await page.screenshot({ path: '/tmp/a2a-shots/live-view-stopped.png', fullPage: true });
  await shot(page, 'task-live-stopped');
  await turn;
});
