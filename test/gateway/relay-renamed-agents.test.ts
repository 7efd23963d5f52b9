// A relay whose agents change between connections (renamed, removed from its config): the agents it no longer
// announces are gone, also after the gateway restarts on its data, and its stored record does not keep every card it
// ever announced (a relay renaming its agents at each reconnect must not grow it without bound). Settings an operator
// made for an agent are kept.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { registerRelay } from '../support/relay-world.js';
import { connectRelay } from '../support/tunnel-client.js';

t.setTimeout(120_000);

const card = (name: string) => ({ name, description: `local ${name}`, skills: [], streaming: true });

t.test('agents a relay no longer announces stay gone after a restart; the record keeps only the last announcement', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'a2a-relay-renamed-'));
  let gw: TestGateway = await startTestGateway({ dataDir });
  t.teardown(() => gw.close());
  // 'kept' has settings of its own (admin trust): they outlive its announcements
  const { relayKey, key } = await registerRelay(gw, { workspace: 'ws1', name: 'home', agents: ['kept'] });
  const listed = async () =>
    ((await gw.rpc({ method: 'agents/list', key, params: {} })).json.result.agents as Array<{ id: string; kind?: string }>)
      .filter((a) => a.kind === 'relay')
      .map((a) => a.id)
      .sort();

  for (let round = 0; round < 3; round++) {
    const { client, answer } = await connectRelay({
      url: gw.url,
      key: relayKey.key,
      workspace: 'ws1',
      agents: [card(`agent-${round}`), card(`helper-${round}`), ...(round === 0 ? [card('kept')] : [])],
    });
    t.match(answer, { t: 'welcome' });
    client.close();
    await client.closed;
  }
  t.same(await listed(), ['agent-2', 'helper-2'], 'the live registry lists the last announcement');

  const rec = await gw.gw.store.relays.get('ws1', 'home');
  t.same(Object.keys(rec!.agents).sort(), ['agent-2', 'helper-2', 'kept'], 'the record holds the last announcement and the agent with settings');
  t.equal(rec!.agents.kept?.card, undefined, 'no longer announced: its card is dropped');
  t.equal(rec!.agents.kept?.trust, 'admin', 'its settings are kept');

  await gw.close();
  gw = await startTestGateway({ dataDir });
  t.same(await listed(), ['agent-2', 'helper-2'], 'after a restart: only the agents last announced, offline');
  // the settings still apply when it comes back
  const { client, answer } = await connectRelay({ url: gw.url, key: relayKey.key, workspace: 'ws1', agents: [card('kept')] });
  t.match(answer, { t: 'welcome', agents: [{ name: 'kept', trust: 'admin' }] }, 'back again with the trust set for it');
  t.same(await listed(), ['kept']);
  client.close();
});
