// A card's `version` is the agent's own (A2A's AgentCard.version: a client refreshes its cached card when it changes),
// not the protocol's: the setting card.version, else the gateway's release version. `protocolVersion` stays 0.3's.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { parseConfig } from '../../src/config.js';
import { startTestGateway } from '../support/gateway.js';

const release = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const CARD_PATHS = ['/.well-known/agent-card.json', '/.well-known/agent.json', '/api/a2a/agents/echo/.well-known/agent-card.json'];

t.test("no card.version: the cards carry the gateway's release version", async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  t.not(release, '0.3.0', 'the release differs from the protocol version (else this test tells nothing)');
  for (const path of CARD_PATHS) {
    const card = await (await fetch(gw.url + path)).json();
    t.equal(card.version, release, `${path}: the gateway's version`);
    t.equal(card.protocolVersion, '0.3.0', `${path}: the protocol's version stays in protocolVersion`);
  }
});

t.test('card.version set: every card, the extended ones included, carries it', async (t) => {
  const gw = await startTestGateway({ config: { card: { version: '2.4.1' } } });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  for (const path of CARD_PATHS) {
    const card = await (await fetch(gw.url + path)).json();
    t.equal(card.version, '2.4.1', path);
    t.equal(card.protocolVersion, '0.3.0', path);
  }
  const extended = await gw.rpc({ method: 'agent/getAuthenticatedExtendedCard', params: {}, key });
  t.equal(extended.json.result?.version, '2.4.1', "0.3's extended card");
  const v1 = await gw.rpc({ method: 'GetExtendedAgentCard', params: {}, key, headers: { 'A2A-Version': '1.0' } });
  t.equal(v1.json.result?.version, '2.4.1', "1.0's extended card");
});

t.test('a card.version that is empty, too long or not one line is refused naming the setting', async (t) => {
  for (const version of ['', 'v'.repeat(65), '1.0\n2.0']) {
    t.throws(() => parseConfig({ card: { version } }), { message: /card\.version/ }, JSON.stringify(version.slice(0, 10)));
  }
});
