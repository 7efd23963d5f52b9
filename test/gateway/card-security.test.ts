// Every card the gateway serves tells both kinds of client how it authenticates (an API key as a Bearer token): 0.3's
// `securitySchemes` (`type: "http"`) and `security`, and beside them 1.0's `httpAuthSecurityScheme` and
// `securityRequirements`, which the SDK 1.x reads (before, a 1.x client found no scheme and no requirement).
import { AgentCard } from 'a2a-sdk-v1';
import t from 'tap';
import { startTestGateway } from '../support/gateway.js';

t.test('the well-known, per-agent and 0.3 extended cards name the Bearer scheme in 0.3 and 1.0 form', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const cards: [string, any][] = [];
  for (const path of ['/.well-known/agent-card.json', '/.well-known/agent.json', '/api/a2a/agents/echo/.well-known/agent-card.json']) {
    cards.push([path, await (await fetch(gw.url + path)).json()]);
  }
  cards.push(['agent/getAuthenticatedExtendedCard', (await gw.rpc({ method: 'agent/getAuthenticatedExtendedCard', params: {}, key })).json.result]);

  for (const [what, raw] of cards) {
    t.match(raw.securitySchemes.bearer, { type: 'http', scheme: 'bearer' }, `${what}: 0.3's scheme`);
    t.same(raw.security, [{ bearer: [] }], `${what}: 0.3's requirement`);
    const v1 = AgentCard.fromJSON(raw);
    const bearer = v1.securitySchemes.bearer?.scheme;
    t.equal(bearer?.$case, 'httpAuthSecurityScheme', `${what}: the SDK 1.x reads an HTTP auth scheme`);
    t.equal(bearer?.$case === 'httpAuthSecurityScheme' ? bearer.value.scheme : undefined, 'Bearer', `${what}: Bearer`);
    t.same(
      v1.securityRequirements.map((r) => Object.keys(r.schemes)),
      [['bearer']],
      `${what}: 1.0's requirement names the scheme`,
    );
  }

  // and it is how the gateway authenticates: no Authorization is refused asking for Bearer, a Bearer key is taken
  const none = await gw.rpc({ method: 'GetTask', params: { id: 'x' }, headers: { 'A2A-Version': '1.0' } });
  t.equal(none.status, 401);
  t.equal(none.headers.get('www-authenticate'), 'Bearer');
  const bearer = await gw.rpc({ method: 'GetTask', params: { id: 'x' }, key, headers: { 'A2A-Version': '1.0' } });
  t.equal(bearer.json.error?.code, -32001, 'a Bearer key gets past authentication');
});
