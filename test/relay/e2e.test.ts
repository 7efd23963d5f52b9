// The relay end to end over TLS: the gateway serves HTTPS and the tunnel over wss:// with a certificate made in the test
// with openssl, and the relay trusts it through its `ca_file`. A caller's tasks go gateway -> tunnel -> relay -> local
// agent and back (the official SDK server, and a second gateway's demo agents as local A2A endpoints): send, multi-turn
// follow-up, stream and cancel, in both caller dialects (rev A `tasks/*`, rev B `message/*`); then the tunnel cut
// mid-turn and the relay away.
import t from 'tap';
import { RelayConfig } from '../../relay/config.js';
import { startRelay, type Relay } from '../../relay/relay.js';
import { until } from '../support/a2a-client.js';
import { fetchWithCa } from '../support/https-fetch.js';
import { msgA, msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { callerView, makeTlsFiles, registerRelay, type TlsFiles } from '../support/relay-world.js';
import { startSdkRemote, type SdkRemote } from '../support/sdk-remote.js';
import { openSse } from '../support/sse.js';

t.setTimeout(120_000);

const WS = 'ws1';
let tls: TlsFiles;
let gw: TestGateway;
let local: TestGateway;
let sdk: SdkRemote;
let relay: Relay;
let key: string;
let relayKey: string;
let view: ReturnType<typeof callerView>;
const relayLog: string[] = [];

/** a caller's SSE stream from the TLS gateway, trusting the test CA */
const stream = (method: string, params: unknown) => openSse({ url: gw.url, key, method, params, fetch: fetchWithCa(tls.certs.ca.cert) });
const localTasks = async (agentId: string, state: 'completed' | 'working' | 'canceled') =>
  (await local.gw.store.tasks.listByState([state])).filter((x) => x.agentId === agentId);
/** a long local turn of the local gateway's slow agent, as a data part in either dialect */
const SLOW = { ms: 60_000, steps: 60 };

t.before(async () => {
  tls = await makeTlsFiles();
  sdk = await startSdkRemote();
  local = await startTestGateway();
  gw = await startTestGateway({ config: { tls: tls.tls }, ca: tls.certs.ca.cert });
  const localKey = (await local.key({ workspace: 'lw', trust: 'admin' })).key;
  // the local agents' names must not shadow the gateway's own demo agents (echo, converse, slow): such an announcement
  // is refused
  const reg = await registerRelay(gw, { workspace: WS, agents: ['sdk-echo', 'l-converse', 'l-slow'] });
  key = reg.key;
  relayKey = reg.relayKey.key;
  view = callerView({ gw: () => gw, key });
  const bearer = { kind: 'bearer' as const, token: localKey };
  relay = await startRelay({
    config: RelayConfig.parse({
      workspace_id: WS,
      api_key: relayKey,
      gateway_url: gw.url.replace(/^https/, 'wss'),
      ca_file: tls.caFile,
      agents: [
        { name: 'sdk-echo', description: 'the SDK echo', local_url: sdk.url },
        { name: 'l-converse', local_url: `${local.url}/api/a2a/agents/converse`, credentials: bearer },
        { name: 'l-slow', local_url: `${local.url}/api/a2a/agents/slow`, credentials: bearer },
      ],
      local_timeout_seconds: 30,
    }),
    log: (msg, f) => relayLog.push(`${msg} ${JSON.stringify(f ?? {})}`),
  });
  await until(async () => (await view.online('sdk-echo')) && (await view.online('l-converse')) && (await view.online('l-slow')), 'the relay agents are online');
});

t.teardown(async () => {
  await relay.stop();
  await gw.close();
  await local.close();
  await sdk.close();
  await tls.dispose();
});

t.test('the gateway serves TLS; a relay that does not trust its CA gets no tunnel', async (t) => {
  t.match(gw.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  t.match(relay.tunnel(), { state: 'session' });
  const stranger = await startRelay({
    config: RelayConfig.parse({
      workspace_id: WS,
      api_key: relayKey,
      gateway_url: gw.url.replace(/^https/, 'wss'),
      agents: [{ name: 'sdk-echo', local_url: sdk.url }],
      health_check_interval: 3600,
      retry_attempts: 1,
    }),
    log: () => {},
  });
  const end = await stranger.done;
  t.equal(end.code, 1, 'it gives up');
  t.match(end.message, /certificate/i, `the certificate is named: ${end.message}`);
  t.equal(await view.online('sdk-echo'), true, 'the trusting relay is untouched');
});

t.test('send reaches the local SDK server and comes back: rev B message/send, rev A tasks/send', async (t) => {
  const b = await view.send('sdk-echo', 'through the tunnel');
  t.equal(b.result.status.state, 'completed', JSON.stringify(b));
  t.equal(b.result.artifacts[0].parts[0].text, 'through the tunnel');
  const a = await gw.rpc({ method: 'tasks/send', key, params: msgA('rev A through the tunnel', { id: 'relay-a-send', metadata: { agentId: 'sdk-echo' } }) });
  t.equal(a.json.result.status.state, 'completed', JSON.stringify(a.json));
  t.equal(a.json.result.id, 'relay-a-send');
  t.same(a.json.result.artifacts[0].parts[0], { type: 'text', text: 'rev A through the tunnel' }, 'rev A parts');
  t.ok(sdk.calls().length >= 2, 'the local agent was called');
});

t.test('multi-turn to a local gateway agent: the follow-up continues the same local task, in both dialects', async (t) => {
  const before = (await localTasks('converse', 'completed')).length;
  const firstA = await gw.rpc({ method: 'tasks/send', key, params: msgA('hello', { id: 'relay-conv', metadata: { agentId: 'l-converse' } }) });
  t.equal(firstA.json.result.status.state, 'input-required', JSON.stringify(firstA.json));
  t.equal(firstA.json.result.status.message.parts[0].type, 'text');
  const secondA = await gw.rpc({ method: 'tasks/send', key, params: msgA('done', { id: 'relay-conv' }) });
  t.equal(secondA.json.result.status.state, 'completed', JSON.stringify(secondA.json));
  t.equal((await localTasks('converse', 'completed')).length, before + 1, 'rev A: one local task served both turns');

  const firstB = await view.send('l-converse', 'hello');
  t.equal(firstB.result.status.state, 'input-required', JSON.stringify(firstB));
  t.equal(firstB.result.status.message.parts[0].kind, 'text');
  const secondB = await gw.rpc({ method: 'message/send', key, params: msgB('done', { taskId: firstB.result.id }) });
  t.equal(secondB.json.result.status.state, 'completed', JSON.stringify(secondB.json));
  t.equal(secondB.json.result.id, firstB.result.id, 'the same task');
  t.equal((await localTasks('converse', 'completed')).length, before + 2, 'rev B: one local task served both turns');
});

/** The artifact texts of a stream's results: in the task snapshot (a quick local agent) or as artifact updates. */
const artifactTexts = (results: any[]) =>
  results.flatMap((r) => [...(r.artifacts ?? []).map((a: any) => a.parts[0].text), ...(r.artifact ? [r.artifact.parts[0].text] : [])]);

t.test('a streaming caller gets the local events as they come: rev B message/stream, rev A tasks/sendSubscribe', async (t) => {
  const b = (await (await stream('message/stream', msgB('streamed B', { metadata: { agentId: 'sdk-echo' } }))).untilFinal()).map((f) => f.data.result);
  t.equal(b[0].kind, 'task');
  t.same(artifactTexts(b), ['streamed B'], 'the artifact comes exactly once, in the task or as an update');
  t.equal(b.at(-1).status.state, 'completed');

  const a = (await (await stream('tasks/sendSubscribe', msgA('streamed A', { id: 'relay-a-stream', metadata: { agentId: 'sdk-echo' } }))).all()).map(
    (f) => f.data.result,
  );
  t.ok(
    a.every((r) => r.kind === undefined && r.id === 'relay-a-stream'),
    'rev A events, each naming the task',
  );
  t.same(artifactTexts(a), ['streamed A'], 'the artifact comes exactly once');
  t.match(a.at(-1), { final: true, status: { state: 'completed' } });
});

t.test('cancel reaches the local agent: rev B tasks/cancel of a non-blocking send', async (t) => {
  const r = await gw.rpc({
    method: 'message/send',
    key,
    params: {
      message: { kind: 'message', role: 'user', messageId: 'm-relay-slow', parts: [{ kind: 'data', data: SLOW }], metadata: { agentId: 'l-slow' } },
      configuration: { blocking: false },
    },
  });
  const id = r.json.result.id;
  const canceledBefore = (await localTasks('slow', 'canceled')).length;
  await until(async () => (await localTasks('slow', 'working')).length > 0, 'the local task runs');
  const c = await gw.rpc({ method: 'tasks/cancel', key, params: { id } });
  t.equal(c.json.result.status.state, 'canceled');
  await until(async () => (await localTasks('slow', 'canceled')).length > canceledBefore, 'the local task is canceled');
});

t.test('cancel reaches the local agent: rev A tasks/cancel of a tasks/sendSubscribe', async (t) => {
  const canceledBefore = (await localTasks('slow', 'canceled')).length;
  const s = await stream('tasks/sendSubscribe', {
    id: 'relay-a-slow',
    message: { role: 'user', parts: [{ type: 'data', data: SLOW }], metadata: { agentId: 'l-slow' } },
  });
  await until(async () => (await localTasks('slow', 'working')).length > 0, 'the local task runs');
  const c = await gw.rpc({ method: 'tasks/cancel', key, params: { id: 'relay-a-slow' } });
  t.equal(c.json.result.status.state, 'canceled', JSON.stringify(c.json));
  t.equal(c.json.result.id, 'relay-a-slow');
  const last = (await s.all()).at(-1)?.data.result;
  t.match(last, { id: 'relay-a-slow', final: true, status: { state: 'canceled' } }, 'the stream ends canceled');
  await until(async () => (await localTasks('slow', 'canceled')).length > canceledBefore, 'the local task is canceled');
});

t.test('the tunnel cut mid-turn fails the turn with relay_disconnected; the agents go offline and sends are refused at once', async (t) => {
  const r = await gw.rpc({
    method: 'message/send',
    key,
    params: {
      message: { kind: 'message', role: 'user', messageId: 'm-relay-cut', parts: [{ kind: 'data', data: SLOW }], metadata: { agentId: 'l-slow' } },
      configuration: { blocking: false },
    },
  });
  const id = r.json.result.id;
  await until(async () => (await localTasks('slow', 'working')).length > 0, 'the local task runs');
  await relay.stop();
  await until(async () => (await gw.rpc({ method: 'tasks/get', key, params: { id } })).json.result.status.state === 'failed', 'the task fails');
  const got = (await gw.rpc({ method: 'tasks/get', key, params: { id } })).json.result;
  t.match(got.status.message.parts[0].text, /relay/i);
  t.equal(await view.online('l-slow'), false, 'listed offline');
  const refused = await view.send('sdk-echo', 'anyone?');
  t.equal(refused.result.status.state, 'failed');
  t.match(refused.result.status.message.parts[0].text, /offline|not connected|relay/i);
  t.notOk(relayLog.join('\n').includes('svc_a2a_'), 'no key in the relay log');
});
