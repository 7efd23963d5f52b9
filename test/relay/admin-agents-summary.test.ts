// The relay admin UI's live stream with a relay near its bounds (100 agents of 100 skills: about 3.5 MB of cards, near
// what one hello can carry; 2,000-character skill descriptions would be 20 MB, see hello-bound.test.ts) over real HTTP: a stream opens with every agent's summary and
// descriptions in small events, never the cards; one agent's card is read on its own; and in a real headless Chromium
// the agents view still shows each agent's description and, opened, its skills. Screenshot with A2A_SCREENSHOTS=1 to
// docs/screenshots (else a temp dir).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { startAdmin } from '../../relay/admin/server.js';
import { parseRelayConfig } from '../../relay/config.js';
import { startRelay } from '../../relay/relay.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { until } from '../support/a2a-client.js';
import { launchChromium } from '../support/browser.js';
import { startSdkRemote } from '../support/sdk-remote.js';

t.setTimeout(180_000);

const AGENTS = 100;
const SKILLS = 100;

t.test('100 agents of 100 skills: the stream opens small, a card is read alone, the page shows them all', async (t) => {
  const sdk = await startSdkRemote();
  t.teardown(() => sdk.close());
  const clock = new ManualClock(Date.now());
  const skills = Array.from({ length: SKILLS }, (_, i) => ({ id: `s${i}`, name: `skill ${i}`, description: `${'d'.repeat(300)} end of ${i}` }));
  const agents = Array.from({ length: AGENTS }, (_, i) => ({
    name: `agent-${i}`,
    description: `Agent number ${i}, ${'é'.repeat(500)}`,
    local_url: sdk.url,
    skills,
  }));
  const config = parseRelayConfig({
    text: JSON.stringify({ workspace_id: 'ws1', api_key: 'relay-key-Ls9dQ2vB', gateway_url: 'ws://127.0.0.1:9', admin_port: 0, agents }),
  });
  const admin = await startAdmin({ config, log: () => {}, clock });
  const relay = await startRelay({ config, log: () => {}, clock, timers: clock, random: () => 0.5, observer: admin.observer });
  admin.attach(relay);
  t.teardown(async () => {
    await relay.stop();
    await admin.close();
  });
  await until(() => relay.health.rounds() >= 1, 'the first health round');

  // the stream's opening: the status, the summaries, then one event per agent with its description
  const ctl = new AbortController();
  const res = await fetch(`${admin.url}/api/events`, { signal: ctl.signal });
  const reader = res.body!.getReader();
  let text = '';
  const described = () => (text.match(/^event: agent\ndata: \{"name":"agent-\d+","description":/gm) ?? []).length;
  // read to the last description, or (a stream that sends the cards whole) to far past any bound worth the name
  while (described() < AGENTS && text.length < 2_000_000) {
    const r = await reader.read();
    if (r.done) break;
    text += new TextDecoder().decode(r.value, { stream: true });
  }
  ctl.abort();
  t.equal(described(), AGENTS, 'every description came');
  const bytes = Buffer.byteLength(text);
  t.ok(bytes < 400_000, `the opening is ${bytes} bytes, not the 3.5 MB of the cards`);
  t.notOk(text.includes('"skills"'), 'no card in it');
  const events = [...text.matchAll(/event: (\w+)\ndata: (.*)\n\n/g)].map((m) => ({ type: m[1]!, data: JSON.parse(m[2]!), size: m[0].length }));
  const largest = Math.max(...events.map((e) => e.size));
  t.ok(largest < 64 * 1024, `no event is large (the largest: ${largest} bytes)`);
  const snapshot = events.find((e) => e.type === 'agents')!.data as Array<Record<string, unknown>>;
  t.equal(snapshot.length, AGENTS, 'the snapshot names every agent');
  t.match(
    snapshot[7],
    { name: 'agent-7', health: 'up', skillCount: SKILLS, streaming: true, served: 0, failed: 0, url: sdk.url },
    'with its health and counts',
  );

  // one agent's card, whole
  const one = await fetch(`${admin.url}/api/agents/agent-7`);
  t.equal(one.status, 200);
  const card = ((await one.json()) as { card: { description: string; skills: Array<{ description: string }> } }).card;
  t.equal(card.skills.length, SKILLS, "an agent's card is read whole on its own");
  t.equal(card.skills[3]?.description, skills[3]!.description);
  t.equal(card.description, agents[7]!.description);
  for (const path of ['/api/agents/nobody', '/api/agents/%E0%A4%A', `/api/agents/${'a'.repeat(5000)}`]) {
    const r = await fetch(`${admin.url}${path}`);
    const body = (await r.json()) as { error: { code: string; message: string } };
    t.equal(r.status, 404, `${path.slice(0, 40)}: not found`);
    t.equal(body.error.code, 'not_found');
    t.ok(body.error.message.length < 200, 'the name is not repeated back whole');
  }

  // the page: every agent with its description; a card opened shows its skills
  const shots =
    process.env.A2A_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url)) : await mkdtemp(join(tmpdir(), 'relay-shots-'));
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`${admin.url}/#/agents`);
  const last = page.locator(`[data-agent="agent-${AGENTS - 1}"]`);
  await last.getByText(`Agent number ${AGENTS - 1},`).waitFor({ timeout: 30_000 });
  t.equal(await page.locator('[data-agent]').count(), AGENTS, 'every agent is listed');
  t.equal(
    await page
      .locator('[data-agent] summary')
      .filter({ hasText: `Card: ${SKILLS} skills` })
      .count(),
    AGENTS,
    'each with its skill count',
  );
  t.match(await last.innerText(), /\bup\b/, 'and its health');
  const seven = page.locator('[data-agent="agent-7"]');
  await seven.locator('summary').click();
  await seven
    .locator('ul.skills li')
    .nth(SKILLS - 1)
    .waitFor({ timeout: 30_000 });
  t.equal(await seven.locator('ul.skills li').count(), SKILLS, 'opened, the card lists its skills');
  t.match(await seven.locator('ul.skills li').nth(3).innerText(), /skill 3 s3 — d+ end of 3/);
  t.equal(await page.locator('[data-agent="agent-8"] ul.skills').count(), 0, 'the cards not opened were not read');
  await seven.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, 'relay-agents-many.png') });

  // a health round moves only the summaries: the open card stays
  clock.advance(30_000);
  await until(() => relay.health.rounds() >= 2, 'the next round');
  t.equal(await seven.locator('ul.skills li').count(), SKILLS, 'the open card stays through a round');
  t.same(errors, [], 'no script error on the page');
});
