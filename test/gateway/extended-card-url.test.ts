// The authenticated extended card describes the interface it was asked on, at the URL callers reach: the service's on
// /api/a2a, the agent's own (its URL, name, skills) on /api/a2a/agents/{id}, as the public card there does; both under
// the configured publicUrl, a trailing slash in it not doubling the path's.
import t from 'tap';
import { startTestGateway } from '../support/gateway.js';

const PUBLIC = 'https://gw.example.com/a2a-gw';
const V1 = { 'A2A-Version': '1.0' };

t.test('extended cards follow publicUrl and the per-agent path they were asked on', async (t) => {
  const gw = await startTestGateway({
    config: {
      publicUrl: `${PUBLIC}/`,
      agents: [
        { id: 'shared', name: 'Shared', entry: 'echo', workspace: '*', default: true, skills: [{ id: 'shared-skill', name: 'S', description: 'everyone' }] },
        {
          id: 'acme-only',
          name: 'Acme',
          description: 'acme agent',
          entry: 'echo',
          workspace: 'acme',
          skills: [{ id: 'acme-skill', name: 'A', description: 'acme' }],
        },
      ],
    },
  });
  t.teardown(() => gw.close());
  const { key: acme } = await gw.key({ workspace: 'acme' });
  const { key: other } = await gw.key({ workspace: 'other' });

  const wellKnown = await (await fetch(`${gw.url}/.well-known/agent-card.json`)).json();
  t.equal(wellKnown.url, `${PUBLIC}/api/a2a`, 'the public card: publicUrl, one slash');
  const sharedPublic = await (await fetch(`${gw.url}/api/a2a/agents/shared/.well-known/agent-card.json`)).json();
  t.equal(sharedPublic.url, `${PUBLIC}/api/a2a/agents/shared`);

  const v1 = (path: string, key: string) => gw.rpc({ method: 'GetExtendedAgentCard', params: {}, key, path, headers: V1 });
  const v03 = (path: string, key: string) => gw.rpc({ method: 'agent/getAuthenticatedExtendedCard', params: {}, key, path });
  const urls = (card: { supportedInterfaces: { url: string }[] }) => [...new Set(card.supportedInterfaces.map((i) => i.url))];
  const skills = (card: { skills: { id: string }[] }) => card.skills.map((s) => s.id).sort();

  const service = (await v1('/api/a2a', acme)).json.result;
  t.same(urls(service), [`${PUBLIC}/api/a2a`], 'the service card: publicUrl');
  t.same(skills(service), ['acme-skill', 'shared-skill'], 'every agent the key reaches');
  t.equal((await v03('/api/a2a', acme)).json.result.url, `${PUBLIC}/api/a2a`);

  const own = (await v1('/api/a2a/agents/acme-only', acme)).json.result;
  t.same(urls(own), [`${PUBLIC}/api/a2a/agents/acme-only`], "on an agent's path: the agent's own URL");
  t.same(skills(own), ['acme-skill'], "and the agent's skills only");
  t.equal(own.name, 'Acme');
  t.equal(own.description, 'acme agent');
  const own03 = (await v03('/api/a2a/agents/acme-only', acme)).json.result;
  t.equal(own03.url, `${PUBLIC}/api/a2a/agents/acme-only`, 'the 0.3 method too');
  t.same(urls(own03), [`${PUBLIC}/api/a2a/agents/acme-only`]);
  t.same(skills(own03), ['acme-skill']);

  const shared = (await v1('/api/a2a/agents/shared', acme)).json.result;
  t.same(urls(shared), urls(sharedPublic), "a shared agent's extended card names the URL its public card names");

  const notMine = await v1('/api/a2a/agents/acme-only', other);
  t.equal(notMine.json.error?.code, -32053, "another workspace's agent is not found (1.0 code)");
  t.equal(notMine.json.error?.data[0].metadata.agentId, 'acme-only');
  t.notOk(JSON.stringify(notMine.json).includes('acme-skill'), 'and nothing of it shows');
  const none = await v03('/api/a2a/agents/nobody', acme);
  t.equal(none.json.error?.code, -32005, 'an unknown agent: not found (0.3 code)');
});
