// Client mode end to end: `remote` agents of one gateway forward their callers' tasks over outbound connections to a
// second gateway (rev A and rev B) and to the official SDK server; dialects bridged, streams relayed, refusals made
// before anything leaves, cancels reaching the remote, results kept as summaries.
import t from 'tap';
import { addConnection } from '../../src/runtime/connection-admin.js';
import { parseAllowlist } from '../../src/runtime/net/guard.js';
import { until } from '../support/a2a-client.js';
import { msgA, msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startSdkRemote, type SdkRemote } from '../support/sdk-remote.js';
import { openSse } from '../support/sse.js';

const WS = 'ws1';

const remoteAgent = (id: string, connection: string) => ({ id, name: id, kind: 'remote' as const, connection, workspace: WS });

let peer: TestGateway;
let sdk: SdkRemote;
let ours: TestGateway;
let key: string;

async function connect(o: {
  name: string;
  url: string;
  token?: string;
  trust?: string;
  dialect?: string;
  agents?: string[];
  allowed?: string[];
  store?: boolean;
}) {
  await addConnection(
    { connections: ours.gw.store.connections, secret: ours.gw.secret, clock: { now: () => Date.now() }, allowlist: parseAllowlist(['127.0.0.1']) },
    {
      workspace: WS,
      name: o.name,
      url: o.url,
      credentials: o.token ? { kind: 'bearer', token: o.token } : { kind: 'none' },
      trust: o.trust ?? 'admin',
      dialect: o.dialect ?? 'auto',
      agents: o.agents ?? [],
      ...(o.allowed && { allowedDataTypes: o.allowed }),
      ...(o.store !== undefined && { storeResults: o.store }),
    },
  );
}

/** Our agent's task as it stands, read through our own endpoint. */
const getTask = async (id: string) => (await ours.rpc({ method: 'tasks/get', key, params: { id } })).json.result;

t.before(async () => {
  peer = await startTestGateway();
  sdk = await startSdkRemote();
  ours = await startTestGateway({
    config: {
      push: { allowlist: ['127.0.0.1'] },
      agents: [
        remoteAgent('peer-echo', 'peer-b'),
        remoteAgent('peer-converse', 'peer-a'),
        remoteAgent('peer-slow', 'peer-slow'),
        remoteAgent('sdk-echo', 'sdk'),
        remoteAgent('text-only', 'sdk-text'),
        remoteAgent('intruder', 'peer-b'),
      ],
    },
  });
  key = (await ours.key({ workspace: WS, trust: 'admin' })).key;
  const peerKey = (await peer.key({ workspace: 'pw', trust: 'admin' })).key;
  await connect({ name: 'peer-b', url: `${peer.url}/api/a2a/agents/echo`, token: peerKey, agents: ['peer-echo'], store: true });
  await connect({ name: 'peer-a', url: `${peer.url}/api/a2a/agents/converse`, token: peerKey, dialect: 'A', trust: 'execute' });
  await connect({ name: 'peer-slow', url: `${peer.url}/api/a2a/agents/slow`, token: peerKey, trust: 'autonomous' });
  await connect({ name: 'sdk', url: sdk.url });
  await connect({ name: 'sdk-text', url: sdk.url, allowed: ['text'] });
});

t.teardown(async () => {
  await ours.close();
  await peer.close();
  await sdk.close();
});

t.test('a rev B caller reaches a remote gateway through a remote agent; the result is kept, raw since the connection says so', async (t) => {
  const r = await ours.rpc({ method: 'message/send', key, params: msgB('hello over there', { metadata: { agentId: 'peer-echo' } }) });
  const task = r.json.result;
  t.equal(task.status.state, 'completed', JSON.stringify(r.json));
  t.equal(task.artifacts[0].parts[0].text, 'hello over there', "the remote echo's artifact comes back");
  t.notOk(JSON.stringify(task).includes('internal_task_id'), 'no internal field reaches the caller');
  const results = await ours.gw.store.results.list({ workspace: WS, connection: 'peer-b' });
  t.equal(results.length, 1);
  t.equal(results[0]!.agentId, 'peer-echo');
  t.equal(results[0]!.state, 'completed');
  t.match(results[0]!.summary, /hello over there/);
  t.equal(results[0]!.raw?.artifacts[0]?.parts[0]?.kind, 'text', 'store_results keeps the raw task');
});

t.test('a rev A caller uses a remote spoken to in rev A: a multi-turn task continues the same remote task', async (t) => {
  const first = await ours.rpc({ method: 'tasks/send', key, params: msgA('hi', { id: 'conv-1', metadata: { agentId: 'peer-converse' } }) });
  t.equal(first.json.result.status.state, 'input-required', JSON.stringify(first.json));
  t.equal(first.json.result.status.message.parts[0].type, 'text', 'the caller reads rev A shapes');
  t.notOk(JSON.stringify(first.json).includes('internal_task_id'));
  const second = await ours.rpc({ method: 'tasks/send', key, params: msgA('done', { id: 'conv-1' }) });
  t.equal(second.json.result.status.state, 'completed', JSON.stringify(second.json));
  const results = await ours.gw.store.results.list({ workspace: WS, connection: 'peer-a' });
  t.equal(results.length, 2);
  t.equal(results[0]!.remoteTaskId, results[1]!.remoteTaskId, 'the follow-up went to the same remote task');
  t.notOk(results[0]!.raw, 'without store_results only the summary is kept');
  const remote = await peer.gw.store.tasks.get('pw', results[0]!.remoteTaskId);
  t.equal(remote?.dialect, 'A', 'the remote saw rev A requests');
  t.equal(remote?.status.state, 'completed');
});

t.test('a remote agent streams to an SSE caller: the remote stream is relayed as it comes', async (t) => {
  const s = await openSse({ url: ours.url, key, method: 'message/stream', params: msgB('stream me', { metadata: { agentId: 'sdk-echo' } }) });
  const frames = await s.untilFinal();
  const results = frames.map((f) => f.data?.result);
  t.equal(results[0].kind, 'task');
  // a quick remote may have produced its artifact (and ended) before the stream's first frame: then the task carries it
  const texts = results.flatMap((r) =>
    r.kind === 'task' ? (r.artifacts ?? []).map((a: any) => a.parts[0].text) : r.kind === 'artifact-update' ? [r.artifact.parts[0].text] : [],
  );
  t.same(texts, ['stream me'], 'the artifact comes exactly once, in the task or as an update');
  const last = results[results.length - 1];
  t.equal(last.status.state, 'completed');
  if (last.kind === 'status-update') t.equal(last.final, true);
  else t.equal(results.length, 1, 'a stream that opens on a finished task is that task alone');
  t.ok(sdk.calls('message/stream').length >= 1, 'the remote was asked to stream');
});

t.test('a part of a category the connection does not allow: the task fails and the remote sees no request', async (t) => {
  const before = sdk.calls().length;
  const r = await ours.rpc({
    method: 'message/send',
    key,
    params: {
      message: {
        kind: 'message',
        role: 'user',
        messageId: 'm-data',
        parts: [
          { kind: 'text', text: 'here' },
          { kind: 'data', data: { secret: 1 } },
        ],
        metadata: { agentId: 'text-only' },
      },
    },
  });
  const task = r.json.result;
  t.equal(task.status.state, 'failed');
  t.match(task.status.message.parts[0].text, /message\.parts\.1: a data part may not be sent/);
  t.equal(sdk.calls().length, before, 'nothing left for the remote');
});

t.test('an agent the connection does not name is refused; the remote sees nothing', async (t) => {
  const before = (await peer.gw.store.tasks.listByState(['completed'])).length;
  const r = await ours.rpc({ method: 'message/send', key, params: msgB('let me in', { metadata: { agentId: 'intruder' } }) });
  t.equal(r.json.result.status.state, 'failed');
  t.match(r.json.result.status.message.parts[0].text, /agent 'intruder' may not use connection 'peer-b'/);
  t.equal((await peer.gw.store.tasks.listByState(['completed'])).length, before);
});

t.test('cancelling our task cancels the remote one (a connection whose trust allows cancel)', async (t) => {
  const r = await ours.rpc({
    method: 'message/send',
    key,
    params: {
      message: {
        kind: 'message',
        role: 'user',
        messageId: 'm-slow',
        parts: [{ kind: 'data', data: { ms: 60_000, steps: 60 } }],
        metadata: { agentId: 'peer-slow' },
      },
      configuration: { blocking: false },
    },
  });
  const id = r.json.result.id;
  await until(async () => (await peer.gw.store.tasks.listByState(['working'])).some((x) => x.agentId === 'slow'), 'the remote task runs');
  const c = await ours.rpc({ method: 'tasks/cancel', key, params: { id } });
  t.equal(c.json.result.status.state, 'canceled');
  await until(async () => (await peer.gw.store.tasks.listByState(['canceled'])).some((x) => x.agentId === 'slow'), 'the remote task is canceled');
  t.equal((await getTask(id)).status.state, 'canceled');
});

t.test('the connection statuses are stored for `connections status` to read', async (t) => {
  await until(async () => (await ours.gw.store.connections.getStatus(WS, 'peer-b'))?.state === 'ready', 'peer-b ready');
  const s = await ours.gw.store.connections.getStatus(WS, 'peer-b');
  t.equal(s?.dialect, 'B');
  t.equal(s?.failures, 0);
  const a = await ours.gw.store.connections.getStatus(WS, 'peer-a');
  t.equal(a?.dialect, 'A', 'a forced dialect');
});
