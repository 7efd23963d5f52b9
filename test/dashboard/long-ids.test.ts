// The longest ids the gateway takes (256 characters, one unbroken word: an agent id, a caller-chosen task id) on the
// dashboard's task page and task list, in a real headless Chromium: they wrap inside their card, and nothing runs past
// the card's edge or makes the page scroll sideways. Screenshots go to /tmp/a2a-shots/ (look at them).
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import t from 'tap';
import { launchChromium, signedIn } from '../support/browser.js';
import { startTestGateway } from '../support/gateway.js';

const AGENT = 'echo-'.padEnd(256, 'x');
const TASK = 'task-'.padEnd(256, 'y');
const SHOTS = '/tmp/a2a-shots';

let browser: Browser;
t.before(async () => {
  browser = await launchChromium();
});
t.teardown(() => browser?.close());

/** What sticks out: each card, heading and cell whose content is wider than its box, or past the card it is in. */
const overflows = (page: Page) =>
  page.evaluate(() => {
    const out: string[] = [];
    const main = document.querySelector('main')!;
    if (document.documentElement.scrollWidth > window.innerWidth)
      out.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${window.innerWidth})`);
    for (const card of main.querySelectorAll<HTMLElement>('.card, h2')) {
      if (card.scrollWidth > card.clientWidth) out.push(`${card.tagName}.${card.className}: ${card.scrollWidth} > ${card.clientWidth}`);
      const edge = card.getBoundingClientRect().right;
      for (const el of card.querySelectorAll<HTMLElement>('*')) {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > edge + 1)
          out.push(
            `<${el.tagName.toLowerCase()}> "${(el.textContent ?? '').slice(0, 20)}" ends at ${Math.round(r.right)}, past the card's edge at ${Math.round(edge)}`,
          );
      }
    }
    return out;
  });

t.test('a 256-character agent id and task id stay inside their cards', async (t) => {
  const tg = await startTestGateway({
    config: { agents: [{ id: AGENT, name: 'Long echo', entry: 'echo', default: true }] },
  });
  t.teardown(() => tg.close());
  const admin = await tg.key({ workspace: 'ws1', trust: 'admin' });
  const sent = await tg.rpc({
    method: 'tasks/send',
    key: admin.key,
    params: { id: TASK, message: { role: 'user', parts: [{ type: 'text', text: 'hi' }], metadata: { agentId: AGENT } } },
  });
  t.equal(sent.json.result?.status?.state, 'completed', 'the task ran on the long-named agent');
  mkdirSync(SHOTS, { recursive: true });

  const page = await signedIn(browser, { url: tg.url, key: admin.key, hash: `#/tasks/${TASK}` });
  t.teardown(() => page.context().close());
  await page.getByTestId('task-state').getByText('completed').waitFor();
  await page.getByText(`agent ${AGENT}`, { exact: false }).waitFor();
  await page.screenshot({ path: `${SHOTS}/long-ids-task.png`, fullPage: true });
  t.same(await overflows(page), [], 'the task page: nothing past a card');

  await page.goto(`${tg.url}/dashboard#/tasks`);
  await page.locator('tr[data-task]').first().waitFor();
  await page.screenshot({ path: `${SHOTS}/long-ids-tasks.png`, fullPage: true });
  t.same(await overflows(page), [], 'the task list: nothing past a card');
  const tops = await page.locator('select[aria-label^="Filter by"]').evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().top)));
  t.equal(tops.length, 2, 'both filters are shown');
  t.equal(tops[0], tops[1], 'the state and agent filters sit side by side, not one under the other');
});
