// The public cards show only agents that serve every workspace; a workspace's own agents are on its extended card only.
import t from 'tap';
import { startTestGateway } from '../support/gateway.js';

t.test("workspace-private agents stay off the public cards and on the owning workspace's extended card", async (t) => {
  const gw = await startTestGateway({
    config: {
      agents: [
        { id: 'shared', name: 'Shared', entry: 'echo', workspace: '*', default: true, skills: [{ id: 'shared-skill', name: 'S', description: 'everyone' }] },
        { id: 'acme-only', name: 'Acme', entry: 'echo', workspace: 'acme', skills: [{ id: 'acme-secret-skill', name: 'A', description: 'acme' }] },
      ],
    },
  });
  t.teardown(() => gw.close());
  for (const path of ['/.well-known/agent.json', '/.well-known/agent-card.json']) {
    const card = await (await fetch(gw.url + path)).json();
    t.equal(card.url, `${gw.url}/api/a2a`, `${path}: a 0.3 client reads url`);
    t.equal(card.protocolVersion, '0.3.0');
    t.strictSame(
      card.supportedInterfaces,
      [
        { url: `${gw.url}/api/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${gw.url}/api/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ],
      `${path}: a 1.x client reads supportedInterfaces, 1.0 first`,
    );
    t.strictSame(
      card.skills.map((s: { id: string }) => s.id),
      ['shared-skill'],
      `${path} lists the shared agent only`,
    );
  }
  const privateCard = await fetch(`${gw.url}/api/a2a/agents/acme-only/.well-known/agent-card.json`);
  t.equal(privateCard.status, 404, 'no public per-agent card for a workspace agent');
  const shared = await fetch(`${gw.url}/api/a2a/agents/shared/.well-known/agent-card.json`);
  t.equal(shared.status, 200);
  t.equal((await shared.json()).supportedInterfaces[0].url, `${gw.url}/api/a2a/agents/shared`, "a per-agent card offers the agent's own path");

  const { key: acme } = await gw.key({ workspace: 'acme' });
  const { key: other } = await gw.key({ workspace: 'other' });
  const ext = await gw.rpc({ key: acme, method: 'agent/getAuthenticatedExtendedCard', params: {} });
  t.strictSame(
    ext.json.result.skills.map((s: { id: string }) => s.id).sort(),
    ['acme-secret-skill', 'shared-skill'],
    'acme sees its own agent on the extended card',
  );
  const extOther = await gw.rpc({ key: other, method: 'agent/getAuthenticatedExtendedCard', params: {} });
  t.strictSame(
    extOther.json.result.skills.map((s: { id: string }) => s.id),
    ['shared-skill'],
    'another workspace does not',
  );
});

t.test("a key without results.read sees a task's status only: state and time, no message", async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key: full } = await gw.key({ trust: 'execute' });
  const { key: narrow } = await gw.key({ trust: 'execute', scopes: ['tasks.read', 'tasks.create'] });
  const made = await gw.rpc({
    key: full,
    method: 'message/send',
    params: { message: { kind: 'message', role: 'user', messageId: 'm', parts: [{ kind: 'text', text: 'secret answer' }], metadata: { agentId: 'converse' } } },
  });
  t.equal(made.json.result.status.state, 'input-required');
  t.ok(made.json.result.status.message, "a key with results.read sees the agent's question");
  const seen = await gw.rpc({ key: narrow, method: 'tasks/get', params: { id: made.json.result.id } });
  t.strictSame(Object.keys(seen.json.result.status).sort(), ['state', 'timestamp']);
  t.notOk(JSON.stringify(seen.json).includes('secret answer'), 'nothing of the exchange leaks');
});

t.test('agents/list needs agents.list and shows the reachable agents; agents/get needs agents.read', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key({ trust: 'read_only' });
  const { key: echoOnly } = await gw.key({ trust: 'read_only', agents: ['echo'] });
  const { key: noList } = await gw.key({ trust: 'read_only', scopes: ['tasks.read', 'agents.read'] });
  const list = await gw.rpc({ key, method: 'agents/list', params: {} });
  t.strictSame(
    list.json.result.agents.map((a: { id: string }) => a.id),
    ['echo', 'converse', 'slow'],
  );
  t.notOk(JSON.stringify(list.json).includes('entry'), 'no internals of an agent are shown');
  const narrow = await gw.rpc({ key: echoOnly, method: 'agents/list', params: {} });
  t.strictSame(
    narrow.json.result.agents.map((a: { id: string }) => a.id),
    ['echo'],
    'a key sees only the agents it may reach',
  );
  const denied = await gw.rpc({ key: noList, method: 'agents/list', params: {} });
  t.equal(denied.json.error.code, -32006);
  t.equal(denied.status, 403);
  const one = await gw.rpc({ key: noList, method: 'agents/get', params: { id: 'converse' } });
  t.equal(one.json.result.name, 'Converse');
  t.match(one.json.result.url, /\/api\/a2a\/agents\/converse$/);
  const hidden = await gw.rpc({ key: echoOnly, method: 'agents/get', params: { id: 'converse' } });
  t.equal(hidden.json.error.code, -32005, 'an agent the key may not reach is not found');
});

t.test('a malformed percent-escape in an agent path is not found, and the server keeps serving', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const card = await fetch(`${gw.url}/api/a2a/agents/%zz/.well-known/agent-card.json`);
  t.equal(card.status, 404);
  const rpc = await gw.rpc({
    key,
    path: '/api/a2a/agents/%E0%A4%A',
    method: 'message/send',
    params: { message: { role: 'user', messageId: 'm-esc', parts: [{ kind: 'text', text: 'x' }] } },
  });
  t.equal(rpc.json.error.code, -32005);
  t.equal((await fetch(`${gw.url}/healthz`)).status, 200, 'still up');
});
