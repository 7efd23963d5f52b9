// The relay end to end: a caller's tasks go gateway -> tunnel -> relay -> local agent and back (the official SDK server,
// and a second gateway's demo agents as local A2A endpoints): send in both caller dialects, multi-turn, stream, cancel;
// then the tunnel cut mid-turn and the relay away.
import t from 'tap';
import { setRelayAgent, addRelay } from '../../src/runtime/relay-admin.js';
import { startRelay, type Relay } from '../../relay/relay.js';
import { RelayConfig } from '../../relay/config.js';
import { until } from '../support/a2a-client.js';
import { msgA, msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startSdkRemote, type SdkRemote } from '../support/sdk-remote.js';
import { openSse } from '../support/sse.js';

const WS = 'ws1';
let gw: TestGateway;
let local: TestGateway;
let sdk: SdkRemote;
let relay: Relay;
let key: string;
const relayLog: string[] = [];

const agentsList = async () => (await gw.rpc({ method: 'agents/list', key, params: {} })).json.result.agents as Array<{ id: string; online?: boolean }>;
const online = async (id: string) => (await agentsList()).find((a) => a.id === id)?.online === true;

t.before(async () => {
  sdk = await startSdkRemote();
  local = await startTestGateway();
  gw = await startTestGateway();
  const localKey = (await local.key({ workspace: 'lw', trust: 'admin' })).key;
  const relayKey = await gw.key({ workspace: WS, trust: 'execute' });
  key = (await gw.key({ workspace: WS, trust: 'admin' })).key;
  const deps = { relays: gw.gw.store.relays, keys: gw.gw.store.keys, clock: { now: () => Date.now() } };
  await addRelay(deps, { workspace: WS, name: 'office', key: relayKey.id });
  // streaming and cancel need more than the default trust (execute): set before the relay says hello. The local agents'
  // names must not shadow the gateway's own demo agents (echo, converse, slow): such an announcement is refused
  for (const agent of ['sdk-echo', 'l-converse', 'l-slow']) await setRelayAgent(deps, { workspace: WS, name: 'office', agent, trust: 'admin' });
  const bearer = { kind: 'bearer' as const, token: localKey };
  relay = await startRelay({
    config: RelayConfig.parse({
      workspace_id: WS,
      api_key: relayKey.key,
      gateway_url: gw.url.replace(/^http/, 'ws'),
      agents: [
        { name: 'sdk-echo', description: 'the SDK echo', local_url: sdk.url },
        { name: 'l-converse', local_url: `${local.url}/api/a2a/agents/converse`, credentials: bearer },
        { name: 'l-slow', local_url: `${local.url}/api/a2a/agents/slow`, credentials: bearer },
      ],
      local_timeout_seconds: 30,
    }),
    log: (msg, f) => relayLog.push(`${msg} ${JSON.stringify(f ?? {})}`),
  });
  await until(async () => (await online('sdk-echo')) && (await online('l-converse')) && (await online('l-slow')), 'the relay agents are online');
});

t.teardown(async () => {
  await relay.stop();
  await gw.close();
  await local.close();
  await sdk.close();
});

t.test('a rev B send to a relay agent reaches the local SDK server and comes back', async (t) => {
  const r = await gw.rpc({ method: 'message/send', key, params: msgB('through the tunnel', { metadata: { agentId: 'sdk-echo' } }) });
  t.equal(r.json.result.status.state, 'completed', JSON.stringify(r.json));
  t.equal(r.json.result.artifacts[0].parts[0].text, 'through the tunnel');
  t.ok(sdk.calls().length >= 1, 'the local agent was called');
});

t.test('a rev A caller, multi-turn, to a local gateway agent: the follow-up continues the same local task', async (t) => {
  const first = await gw.rpc({ method: 'tasks/send', key, params: msgA('hello', { id: 'relay-conv', metadata: { agentId: 'l-converse' } }) });
  t.equal(first.json.result.status.state, 'input-required', JSON.stringify(first.json));
  t.equal(first.json.result.status.message.parts[0].type, 'text');
  const second = await gw.rpc({ method: 'tasks/send', key, params: msgA('done', { id: 'relay-conv' }) });
  t.equal(second.json.result.status.state, 'completed', JSON.stringify(second.json));
  const localTasks = (await local.gw.store.tasks.listByState(['completed'])).filter((x) => x.agentId === 'converse');
  t.equal(localTasks.length, 1, 'one local task served both turns');
});

t.test('an SSE caller gets the local events as they come', async (t) => {
  const s = await openSse({ url: gw.url, key, method: 'message/stream', params: msgB('streamed', { metadata: { agentId: 'sdk-echo' } }) });
  const frames = await s.untilFinal();
  const results = frames.map((f) => f.data.result);
  t.equal(results[0].kind, 'task');
  // a quick local agent may have produced its artifact before the stream's first frame: then the task carries it
  const texts = results.flatMap((r) =>
    r.kind === 'task' ? (r.artifacts ?? []).map((a: any) => a.parts[0].text) : r.kind === 'artifact-update' ? [r.artifact.parts[0].text] : [],
  );
  t.same(texts, ['streamed'], 'the artifact comes exactly once, in the task or as an update');
  t.equal(results[results.length - 1].status.state, 'completed');
});

t.test('cancel reaches the local agent', async (t) => {
  const r = await gw.rpc({
    method: 'message/send',
    key,
    params: {
      message: {
        kind: 'message',
        role: 'user',
        messageId: 'm-relay-slow',
        parts: [{ kind: 'data', data: { ms: 60_000, steps: 60 } }],
        metadata: { agentId: 'l-slow' },
      },
      configuration: { blocking: false },
    },
  });
  const id = r.json.result.id;
  await until(async () => (await local.gw.store.tasks.listByState(['working'])).some((x) => x.agentId === 'slow'), 'the local task runs');
  const c = await gw.rpc({ method: 'tasks/cancel', key, params: { id } });
  t.equal(c.json.result.status.state, 'canceled');
  await until(async () => (await local.gw.store.tasks.listByState(['canceled'])).some((x) => x.agentId === 'slow'), 'the local task is canceled');
});

t.test('the tunnel cut mid-turn fails the turn with relay_disconnected; the agents go offline and sends are refused at once', async (t) => {
  const r = await gw.rpc({
    method: 'message/send',
    key,
    params: {
      message: {
        kind: 'message',
        role: 'user',
        messageId: 'm-relay-cut',
        parts: [{ kind: 'data', data: { ms: 60_000, steps: 60 } }],
        metadata: { agentId: 'l-slow' },
      },
      configuration: { blocking: false },
    },
  });
  const id = r.json.result.id;
  await until(async () => (await local.gw.store.tasks.listByState(['working'])).some((x) => x.agentId === 'slow'), 'the local task runs');
  await relay.stop();
  await until(async () => (await gw.rpc({ method: 'tasks/get', key, params: { id } })).json.result.status.state === 'failed', 'the task fails');
  const got = (await gw.rpc({ method: 'tasks/get', key, params: { id } })).json.result;
  t.match(got.status.message.parts[0].text, /relay/i);
  t.equal(await online('l-slow'), false, 'listed offline');
  const refused = await gw.rpc({ method: 'message/send', key, params: msgB('anyone?', { metadata: { agentId: 'sdk-echo' } }) });
  t.equal(refused.json.result.status.state, 'failed');
  t.match(refused.json.result.status.message.parts[0].text, /offline|not connected|relay/i);
  t.notOk(relayLog.join('\n').includes('svc_a2a_'), 'no key in the relay log');
});
