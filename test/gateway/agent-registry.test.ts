// The agent registry over real HTTP: agents added, updated and removed while the server runs, per workspace, each
// with its runner; cards and agents/list follow, and no agent id ever shadows another.
import t from 'tap';
import type { AgentSpec } from '../../src/protocol/agent-events.js';
import { AgentShadowError, type AgentRunner } from '../../src/runtime/agents/registry.js';
import { msgB, startTestGateway } from '../support/gateway.js';

const spec = (o: Partial<AgentSpec> & { id: string }): AgentSpec => ({
  name: o.id,
  description: '',
  kind: 'builtin',
  workspace: '*',
  listed: true,
  default: false,
  skills: [],
  timeoutMs: 30_000,
  options: {},
  ...o,
});

/** A runner that is not the worker pool (as client mode's and the relay's will be): it answers with the text reversed. */
const reverser: AgentRunner = {
  async run({ message, onEvent }) {
    const text = message.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
    onEvent({ type: 'artifact', artifact: { name: 'reversed', parts: [{ kind: 'text', text: [...text].reverse().join('') }] } });
    onEvent({ type: 'status', state: 'completed' });
    return { ok: true, events: 2 };
  },
};

t.test('agents come and go while the server runs; lists, cards and sends follow', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const ws1 = await gw.key({ workspace: 'ws1' });
  const ws2 = await gw.key({ workspace: 'ws2' });
  const ids = async (key: string) =>
    ((await gw.rpc({ method: 'agents/list', key, params: {} })).json.result.agents as Array<{ id: string }>).map((a) => a.id).sort();
  const workers = gw.gw.agents.find('ws1', 'echo')!.runner;

  t.same(await ids(ws1.key), ['converse', 'echo', 'slow'], 'the configured agents to begin with');

  gw.gw.agents.add({
    spec: spec({ id: 'echo2', name: 'Echo two', workspace: 'ws1', skills: [{ id: 'echo2-skill', name: 'Echo two', description: 'echoes' }], entry: 'echo' }),
    runner: workers,
  });
  gw.gw.agents.add({ spec: spec({ id: 'rev', workspace: 'ws1' }), runner: reverser });
  t.same(await ids(ws1.key), ['converse', 'echo', 'echo2', 'rev', 'slow'], 'added agents are listed at once');
  t.same(await ids(ws2.key), ['converse', 'echo', 'slow'], "another workspace does not see ws1's agents");

  const card = await gw.rpc({ method: 'agent/getAuthenticatedExtendedCard', key: ws1.key, params: {} });
  t.ok(
    (card.json.result.skills as Array<{ id: string }>).some((s) => s.id === 'echo2-skill'),
    'the extended card shows the new skill',
  );
  const pub = await (await fetch(`${gw.url}/.well-known/agent-card.json`)).json();
  t.notOk(
    (pub.skills as Array<{ id: string }>).some((s) => s.id === 'echo2-skill'),
    'the public card does not show a workspace agent',
  );

  const viaWorkers = await gw.rpc({ method: 'message/send', key: ws1.key, params: msgB('hello', { metadata: { agentId: 'echo2' } }) });
  t.equal(viaWorkers.json.result.status.state, 'completed', 'a send to an added worker agent runs on the pool');
  t.same(viaWorkers.json.result.artifacts[0].parts, [{ kind: 'text', text: 'hello' }]);
  const viaOther = await gw.rpc({ method: 'message/send', key: ws1.key, params: msgB('hello', { metadata: { agentId: 'rev' } }) });
  t.equal(viaOther.json.result.status.state, 'completed', 'a runner of another kind plugs in through the same port');
  t.same(viaOther.json.result.artifacts[0].parts, [{ kind: 'text', text: 'olleh' }]);

  const denied = await gw.rpc({ method: 'message/send', key: ws2.key, params: msgB('hello', { metadata: { agentId: 'rev' } }) });
  t.equal(denied.json.error?.code, -32005, "ws2 cannot reach ws1's agent");

  t.ok(gw.gw.agents.update({ spec: spec({ id: 'echo2', name: 'Echo renamed', workspace: 'ws1', entry: 'echo' }), runner: workers }));
  const got = await gw.rpc({ method: 'agents/get', key: ws1.key, params: { id: 'echo2' } });
  t.equal(got.json.result.name, 'Echo renamed', 'an update shows at once');

  t.ok(gw.gw.agents.remove('ws1', 'echo2'));
  t.same(await ids(ws1.key), ['converse', 'echo', 'rev', 'slow'], 'a removed agent is no longer listed');
  const gone = await gw.rpc({ method: 'message/send', key: ws1.key, params: msgB('hello', { metadata: { agentId: 'echo2' } }) });
  t.equal(gone.json.error?.code, -32005, 'a send to a removed agent: agent not found');
  const kept = await gw.rpc({ method: 'tasks/get', key: ws1.key, params: { id: viaWorkers.json.result.id } });
  t.equal(kept.json.result.status.state, 'completed', 'its tasks stay readable');
});

t.test('a turn of a task whose agent was removed meanwhile fails with agent_not_found; no id shadows another', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key({ workspace: 'ws1' });
  gw.gw.agents.add({ spec: spec({ id: 'talk', workspace: 'ws1', entry: 'converse' }), runner: gw.gw.agents.find('ws1', 'converse')!.runner });
  const first = await gw.rpc({ method: 'message/send', key, params: msgB('hi', { metadata: { agentId: 'talk' } }) });
  t.equal(first.json.result.status.state, 'input-required');
  gw.gw.agents.remove('ws1', 'talk');
  const next = await gw.rpc({ method: 'message/send', key, params: msgB('more', { taskId: first.json.result.id }) });
  t.equal(next.json.result?.status.state, 'failed', 'the follow-up turn fails');
  t.match(JSON.stringify(next.json.result.status.message), /no longer configured/);

  const workers = gw.gw.agents.find('ws1', 'echo')!.runner;
  t.throws(
    () => gw.gw.agents.add({ spec: spec({ id: 'echo', workspace: 'ws1' }), runner: workers }),
    AgentShadowError,
    'a workspace agent cannot hide a shared one',
  );
  gw.gw.agents.add({ spec: spec({ id: 'mine', workspace: 'ws1' }), runner: workers });
  t.throws(() => gw.gw.agents.add({ spec: spec({ id: 'mine' }), runner: workers }), AgentShadowError, 'a shared agent cannot hide a workspace one');
  t.throws(() => gw.gw.agents.add({ spec: spec({ id: 'mine', workspace: 'ws1' }), runner: workers }), AgentShadowError, 'the same id twice in a workspace');
  gw.gw.agents.add({ spec: spec({ id: 'mine', workspace: 'ws2' }), runner: workers });
  t.ok(gw.gw.agents.find('ws2', 'mine'), 'two workspaces may each have an agent of the same id');
});
