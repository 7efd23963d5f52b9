// A local agent's card is the local agent's to write, and the relay (LOCAL_AGENT_URL: "discovered automatically")
// takes it as it comes: a card of script-like names and megabytes of skills must neither keep the relay off the
// gateway (a hello over the frame bound is never sent, and the relay waits for a welcome forever) nor flood the admin
// UI (every health round sends the agents to each open page), nor run as script in the UI. The relay runs as its
// command runs it, against a real gateway; the page is a real headless Chromium.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import t from 'tap';
import type { Admin } from '../../relay/admin/server.js';
import { runRelayCli } from '../../relay/cli.js';
import { addRelay } from '../../src/runtime/relay-admin.js';
import { until } from '../support/a2a-client.js';
import { launchChromium } from '../support/browser.js';
import { cardServer } from '../support/card-server.js';
import { startTestGateway } from '../support/gateway.js';

t.setTimeout(120_000);

const SCRIPT = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>';

let browser: Browser;
t.before(async () => {
  browser = await launchChromium();
});
t.teardown(() => browser?.close());

t.test("a local agent's hostile, huge card: bounded, the relay comes online, the UI shows it as text", async (t) => {
  const local = await cardServer(t);
  // 150 skills of 50,000-character descriptions (7.5 MB of card, under the client's 8 MB read bound), names of markup
  const card = {
    name: `${SCRIPT} helper`,
    description: `${SCRIPT}${'d'.repeat(100_000)}`,
    url: `${local.url}/rpc`,
    version: '1',
    protocolVersion: '0.3.0',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: Array.from({ length: 150 }, (_, i) => ({
      id: `skill-${i}-${'i'.repeat(1_000)}`,
      name: `${SCRIPT} ${i} ${'n'.repeat(1_000)}`,
      description: 'x'.repeat(50_000),
      tags: [],
    })),
  };
  for (const p of ['/.well-known/agent-card.json', '/.well-known/agent.json']) local.route.set(p, () => ({ status: 200, body: card }));

  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const relayKey = await gw.key({ workspace: 'ws1', trust: 'execute' });
  const key = (await gw.key({ workspace: 'ws1', trust: 'admin' })).key;
  await addRelay(
    { relays: gw.gw.store.relays, keys: gw.gw.store.keys, clock: { now: () => Date.now() } },
    { workspace: 'ws1', name: 'home', key: relayKey.id },
  );
  const dir = await mkdtemp(join(tmpdir(), 'relay-hostile-card-'));
  const file = join(dir, 'relay.json');
  await writeFile(
    file,
    JSON.stringify({
      workspace_id: 'ws1',
      api_key: relayKey.key,
      gateway_url: gw.url.replace(/^http/, 'ws'),
      local_agent_url: `${local.url}/`,
      admin_port: 0,
      health_check_interval: 1,
    }),
  );
  let stop!: () => void;
  const stopWhen = new Promise<void>((r) => (stop = r));
  let admin: Admin | undefined;
  const logs: string[] = [];
  const exit = runRelayCli(['--config', file], {
    env: {},
    stopWhen,
    log: (m, f) => logs.push(`${m} ${JSON.stringify(f ?? {})}`),
    err: (l) => logs.push(l),
    onAdmin: (a) => (admin = a),
  });
  t.teardown(async () => {
    stop();
    await exit;
  });
  await until(() => admin !== undefined, 'the admin UI listens');

  const listed = async () =>
    ((await gw.rpc({ method: 'agents/list', key, params: {} })).json.result.agents as Array<{ id: string; online?: boolean }>).find((a) =>
      a.id.startsWith('img-src-x'),
    );
  await until(async () => (await listed())?.online === true, 'the agent is online at the gateway', 20_000).catch(() => {});
  const agent = await listed();
  t.equal(agent?.online, true, `the relay came online with its card (logs: ${logs.slice(-3).join(' | ').slice(0, 400)})`);
  t.match(agent?.id, /^[A-Za-z0-9._-]+$/, 'its name made an agent id');

  const r = await fetch(`${admin!.url}/api/agents`);
  const text = await r.text();
  t.ok(text.length < 400_000, `the admin API's agents answer is bounded (${text.length} characters)`);
  const name = (JSON.parse(text) as { agents: Array<{ name: string }> }).agents[0]!.name;
  type Card = { skills: Array<{ id: string; name: string; description: string }> };
  const shown = ((await (await fetch(`${admin!.url}/api/agents/${encodeURIComponent(name)}`)).json()) as { card?: Card }).card;
  t.ok((shown?.skills.length ?? 0) <= 100, 'at most 100 skills');
  t.ok(
    shown?.skills.every((s) => s.id.length <= 256 && s.name.length <= 256 && s.description.length <= 2_000),
    'each skill bounded',
  );

  const page = await browser.newPage();
  t.teardown(() => page.close());
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${admin!.url}/#/agents`);
  await page.locator('[data-agent]').first().waitFor();
  await page.locator('[data-agent] summary').first().click();
  await page
    .getByText(/onerror/)
    .first()
    .waitFor();
  t.equal(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined, "the card's markup ran nothing");
  t.equal(await page.locator('[data-agent] img[src="x"], [data-agent] script').count(), 0, 'and made no element');
  t.same(errors, [], 'no script error');
});
