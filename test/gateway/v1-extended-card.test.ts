// GetExtendedAgentCard (a 1.0 method) answers A2A 1.0's AgentCard: the bearer scheme in 1.0's form, which the SDK 1.x
// reads, and none of 0.3's fields; the 0.3 method keeps the 0.3 card.
import { AgentCard } from 'a2a-sdk-v1';
import t from 'tap';
import { startTestGateway } from '../support/gateway.js';

const ONLY_03 = ['url', 'protocolVersion', 'preferredTransport', 'security', 'authentication', 'supportsAuthenticatedExtendedCard'];

t.test('GetExtendedAgentCard: a 1.0 AgentCard whose security scheme a 1.x client can read', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const r = await gw.rpc({ method: 'GetExtendedAgentCard', params: {}, key, headers: { 'A2A-Version': '1.0' } });
  const raw = r.json.result;
  for (const f of ONLY_03) t.notOk(f in raw, `no 0.3 field ${f}`);
  t.notOk('stateTransitionHistory' in raw.capabilities, 'no 0.3 capability');
  t.equal(raw.capabilities.extendedAgentCard, true);
  t.equal(raw.supportedInterfaces[0].protocolVersion, '1.0');

  const card = AgentCard.fromJSON(raw);
  const bearer = card.securitySchemes.bearer?.scheme;
  t.equal(bearer?.$case, 'httpAuthSecurityScheme', 'the SDK 1.x reads an HTTP auth scheme');
  t.equal(bearer?.$case === 'httpAuthSecurityScheme' ? bearer.value.scheme : undefined, 'Bearer');
  t.same(Object.keys(card.securityRequirements[0]?.schemes ?? {}), ['bearer'], 'and that calls need it');
  t.ok(card.skills.length > 0 && card.skills.every((s) => s.id && s.name), 'the skills');

  const old = await gw.rpc({ method: 'agent/getAuthenticatedExtendedCard', params: {}, key });
  t.equal(old.json.result.url, `${gw.url}/api/a2a`, 'the 0.3 method keeps the 0.3 card');
  t.match(old.json.result.securitySchemes.bearer, { type: 'http', scheme: 'bearer' }, "the 0.3 card keeps 0.3's scheme (1.0's beside it)");
});

t.test('GetExtendedAgentCard: params that are not its request are refused naming them', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  for (const params of ['junk', [1], { tenant: 5 }]) {
    const r = await gw.rpc({ method: 'GetExtendedAgentCard', params, key, headers: { 'A2A-Version': '1.0' } });
    t.equal(r.json.error?.code, -32602, JSON.stringify(params));
    t.match(r.json.error?.data[0].metadata.path, /^params/);
  }
  for (const params of [undefined, {}, { tenant: '' }]) {
    const r = await gw.rpc({ method: 'GetExtendedAgentCard', params, key, headers: { 'A2A-Version': '1.0' } });
    t.type(r.json.result?.name, 'string', `${JSON.stringify(params)}: the card`);
  }
});
