// Client mode against the official @a2a-js/sdk 1.x server in native 1.0 (no compatibility layer): the A2A client reads
// 1.0 from its card and speaks it (send, get, stream); the gateway bridges callers of every dialect to a 1.0 remote and
// to a 0.3 remote (the SDK 0.3 server) from the same gateway.
import t from 'tap';
import { addConnection } from '../../src/runtime/connection-admin.js';
import { parseAllowlist } from '../../src/runtime/net/guard.js';
import type { RemoteEndpoint, RemoteEvent } from '../../src/runtime/a2a-client/types.js';
import { testClient, userMessage } from '../support/a2a-client.js';
import { msgA, msgB, startTestGateway } from '../support/gateway.js';
import { startSdkRemote } from '../support/sdk-remote.js';
import { startSdk1Remote, type Sdk1Remote } from '../support/sdk1-remote.js';

async function remote1(t: { teardown(fn: () => unknown): void }, o: { streaming?: boolean } = {}): Promise<Sdk1Remote> {
  const r = await startSdk1Remote(o);
  t.teardown(() => r.close());
  return r;
}
const open = (url: string): RemoteEndpoint => ({ url, credentials: { kind: 'none' } });

t.test('the A2A client reads 1.0 from the card and speaks it: SendMessage with A2A-Version 1.0, GetTask', async (t) => {
  const r = await remote1(t);
  const c = testClient();
  t.teardown(() => c.close());
  const d = await c.discover(open(r.url));
  t.equal(d.dialect, 'V1', 'the card offers JSON-RPC 1.0 only');
  t.equal(d.card.url, `${r.url}/api/a2a`, "the 1.0 interface's URL");
  const task = await c.send({ endpoint: open(r.url), message: userMessage('hello 1.0 remote') });
  t.equal(task.status.state, 'completed');
  t.same(task.artifacts[0]?.parts, [{ kind: 'text', text: 'hello 1.0 remote' }]);
  t.match(task.status.message, { role: 'agent', parts: [{ kind: 'text', text: 'echoed: hello 1.0 remote' }] });
  const sent = r.calls('SendMessage');
  t.equal(sent.length, 1);
  t.equal(sent[0]!.version, '1.0');
  t.match(sent[0]!.params, { message: { role: 'ROLE_USER', parts: [{ text: 'hello 1.0 remote' }] } });
  t.notOk(JSON.stringify(sent[0]!.params).includes('"kind"'), 'no 0.3 shapes left');
  const got = await c.get({ endpoint: open(r.url), taskId: task.id });
  t.equal(got.status.state, 'completed', 'GetTask reads it back');
  t.equal(r.calls('GetTask').length, 1);
});

t.test('the A2A client streams from a 1.0 remote: the task, working, the artifact, completed (final)', async (t) => {
  const r = await remote1(t);
  const c = testClient();
  t.teardown(() => c.close());
  const events: RemoteEvent[] = [];
  const task = await c.send({ endpoint: open(r.url), message: userMessage('stream me'), stream: true, onEvent: (e) => events.push(e) });
  t.same(
    events.map((e) => (e.kind === 'status' ? `status ${e.status.state}${e.final ? ' final' : ''}` : e.kind)),
    ['task', 'status working', 'artifact', 'status completed final'],
  );
  t.equal(task.status.state, 'completed');
  t.same(task.artifacts[0]?.parts, [{ kind: 'text', text: 'stream me' }]);
  t.equal(r.calls('SendStreamingMessage').length, 1);
});

t.test('one gateway, a 1.0 remote and a 0.3 remote: every caller dialect reaches both, answered in its own', async (t) => {
  const WS = 'ws1';
  const v1 = await remote1(t);
  const v03 = await startSdkRemote();
  t.teardown(() => v03.close());
  const gw = await startTestGateway({
    config: {
      // outbound calls pass the same SSRF guard as webhooks: the remotes listen on loopback
      push: { allowlist: ['127.0.0.1'] },
      agents: [
        { id: 'v1-echo', name: 'v1-echo', kind: 'remote', connection: 'sdk1', workspace: WS },
        { id: 'v03-echo', name: 'v03-echo', kind: 'remote', connection: 'sdk03', workspace: WS },
      ],
    },
  });
  t.teardown(() => gw.close());
  const admin = { connections: gw.gw.store.connections, secret: gw.gw.secret, clock: { now: () => Date.now() }, allowlist: parseAllowlist(['127.0.0.1']) };
  const conn = (name: string, url: string) =>
    addConnection(admin, { workspace: WS, name, url, credentials: { kind: 'none' }, trust: 'admin', dialect: 'auto', agents: [] });
  await conn('sdk1', v1.url);
  await conn('sdk03', v03.url);
  const { key } = await gw.key({ workspace: WS, trust: 'admin' });

  const a = await gw.rpc({ method: 'tasks/send', key, params: msgA('from rev A', { id: 'a-to-v1', metadata: { agentId: 'v1-echo' } }) });
  t.equal(a.json.result.status.state, 'completed', JSON.stringify(a.json));
  t.same(a.json.result.artifacts[0].parts, [{ type: 'text', text: 'from rev A' }], 'a rev A caller gets rev A shapes back from the 1.0 remote');
  const toV1 = v1.calls().filter((c) => c.method === 'SendMessage' || c.method === 'SendStreamingMessage');
  t.ok(toV1.length >= 1 && toV1.every((c) => c.version === '1.0'), 'the remote was spoken to in 1.0');

  const b = await gw.rpc({ method: 'message/send', key, params: msgB('from rev B', { metadata: { agentId: 'v1-echo' } }) });
  t.equal(b.json.result.kind, 'task');
  t.same(b.json.result.artifacts[0].parts, [{ kind: 'text', text: 'from rev B' }], 'rev B to the 1.0 remote');

  const one = await gw.rpc({
    method: 'SendMessage',
    key,
    headers: { 'A2A-Version': '1.0' },
    params: { message: { messageId: 'm-v1', role: 'ROLE_USER', parts: [{ text: 'from 1.0' }], metadata: { agentId: 'v03-echo' } } },
  });
  t.equal(one.json.result.task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(one.json));
  t.same(one.json.result.task.artifacts[0].parts, [{ text: 'from 1.0' }], 'a 1.0 caller reaches the 0.3 remote and reads 1.0');
  const to03 = v03.calls().filter((c) => c.json.method === 'message/send' || c.json.method === 'message/stream');
  t.ok(to03.length >= 1 && to03.every((c) => c.headers['a2a-version'] === '0.3'), 'the 0.3 remote was spoken to in 0.3');
});
