// Relay frames carry msgpack, which can say more than JSON: a 64-bit integer (another msgpack writer's big int) and
// extension types (a Set, a Date). What the gateway stores of a frame is answered as JSON later, so a big int is read
// as a number and an extension type is a protocol break; neither may leave a task that later reads fail.
import { Packr, unpack } from 'msgpackr';
import t, { type Test } from 'tap';
import { addRelay } from '../../src/runtime/relay-admin.js';
import { msgB, startTestGateway } from '../support/gateway.js';
import { connectRelay, type TunnelClient } from '../support/tunnel-client.js';

t.setTimeout(60_000);

const card = { name: 'local', description: 'a local agent', skills: [], streaming: false };
/** packs what the test's `pack` would refuse to write as JSON-like data: Sets and the like as msgpack extensions */
const extPackr = new Packr({ useRecords: false, moreTypes: true });

async function setup(t: Test) {
  const logs: string[] = [];
  const g = await startTestGateway({ log: (msg, fields) => logs.push(`${msg} ${JSON.stringify(fields ?? {})}`) });
  t.teardown(() => g.close());
  const k = await g.key({ workspace: 'ws1', trust: 'execute' });
  await addRelay({ relays: g.gw.store.relays, keys: g.gw.store.keys, clock: { now: () => Date.now() } }, { workspace: 'ws1', name: 'home', key: k.id });
  const relay = await connectRelay({ url: g.url, key: k.key, workspace: 'ws1', agents: [card] });
  t.teardown(() => relay.client.close());
  const caller = await g.key({ workspace: 'ws1' });
  const call = (method: string, params: unknown) => g.rpc({ key: caller.key, method, params });
  return { g, logs, client: relay.client, call };
}

/** Answers every run with one artifact event (as `bytes` of its own making), then completed and done. */
function answerRuns(c: TunnelClient, artifactFrame: (sid: number) => Uint8Array): void {
  c.ws.on('message', (data: Buffer) => {
    const f = unpack(data);
    if (f.t !== 'run') return;
    c.raw(Buffer.from(artifactFrame(f.sid)));
    c.send({ t: 'event', sid: f.sid, event: { type: 'status', state: 'completed' } });
    c.send({ t: 'done', sid: f.sid });
  });
}

t.test('a 64-bit integer in an event is read as a number: the send and later reads answer, not -32603', async (t) => {
  const s = await setup(t);
  answerRuns(s.client, (sid) =>
    extPackr.pack({
      t: 'event',
      sid,
      event: { type: 'artifact', artifact: { name: 'n', parts: [{ kind: 'data', data: { n: 2n ** 62n } }], metadata: { m: 5n } } },
    }),
  );
  const sent = await s.call('message/send', { ...msgB('hi'), metadata: { agentId: 'local' } });
  t.equal(sent.status, 200, 'the send is answered 200');
  t.equal(sent.json.result?.status?.state, 'completed', `completed: ${JSON.stringify(sent.json).slice(0, 200)}`);
  t.equal(sent.json.result?.artifacts?.[0]?.parts?.[0]?.data?.n, 2 ** 62, 'the big int as a number');
  const got = await s.call('tasks/get', { id: sent.json.result?.id });
  t.equal(got.status, 200, 'and the stored task reads');
  t.equal(got.json.result?.artifacts?.[0]?.metadata?.m, 5);
  t.notOk(
    s.logs.some((l) => /BigInt/.test(l)),
    'no serialization failure was logged',
  );
});

t.test('an extension type in a frame is a protocol break: the relay is disconnected, nothing of it is stored', async (t) => {
  const s = await setup(t);
  answerRuns(s.client, (sid) =>
    extPackr.pack({ t: 'event', sid, event: { type: 'artifact', artifact: { name: 'n', parts: [{ kind: 'data', data: { s: new Set([1, 2]) } }] } } }),
  );
  const sent = await s.call('message/send', { ...msgB('hi'), metadata: { agentId: 'local' } });
  t.equal(sent.status, 200);
  t.equal(sent.json.result?.status?.state, 'failed', 'the turn fails');
  t.same(sent.json.result?.artifacts ?? [], [], 'with no artifact holding the Set');
  t.equal((await s.client.closed).code, 1002, 'the relay is disconnected');
  t.ok(
    s.logs.some((l) => /protocol broken.*frame\.event\.artifact\.parts\.0\.data\.s: a Set, which is not JSON/.test(l)),
    'with a logged reason naming the path',
  );
  const got = await s.call('tasks/get', { id: sent.json.result?.id });
  t.equal(got.status, 200, 'the task reads');
});
