// A relay's frame nested past the bound (an event whose data nests a thousand levels: a few KB to send) is a
// protocol break like any undecodable frame: the relay is disconnected with a logged reason and the turn fails with a
// clear reason, instead of the deep data reaching the task store. A real gateway on port 0, the relay a real
// WebSocket client.
import { unpack } from 'msgpackr';
import t from 'tap';
import { addRelay } from '../../src/runtime/relay-admin.js';
import { msgB, startTestGateway } from '../support/gateway.js';
import { connectRelay } from '../support/tunnel-client.js';

t.test('an event nested deeper than the bound: the relay disconnected, the turn failed, the gateway serving', async (t) => {
  const logs: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
  const g = await startTestGateway({ log: (msg, fields) => logs.push({ msg, fields }) });
  t.teardown(() => g.close());
  const k = await g.key({ workspace: 'ws1', trust: 'execute' });
  await addRelay({ relays: g.gw.store.relays, keys: g.gw.store.keys, clock: { now: () => Date.now() } }, { workspace: 'ws1', name: 'home', key: k.id });
  const { client, answer } = await connectRelay({
    url: g.url,
    key: k.key,
    workspace: 'ws1',
    agents: [{ name: 'deep', description: '', skills: [], streaming: false }],
  });
  t.teardown(() => client.close());
  t.equal(answer?.t, 'welcome');
  let deep: Record<string, unknown> = { end: true };
  for (let i = 0; i < 1_000; i++) deep = { d: deep };
  client.ws.on('message', (data: Buffer) => {
    const f = unpack(data);
    if (f.t !== 'run') return;
    client.send({ t: 'event', sid: f.sid, event: { type: 'artifact', artifact: { name: 'deep', parts: [{ kind: 'data', data: deep }] } } });
    client.send({ t: 'done', sid: f.sid });
  });
  const caller = await g.key({ workspace: 'ws1' });
  const sent = await g.rpc({ method: 'message/send', key: caller.key, params: msgB('go deep'), path: '/api/a2a/agents/deep' });
  t.equal(sent.json.error, undefined, `no RPC error (${JSON.stringify(sent.json.error)?.slice(0, 200)})`);
  t.equal(sent.json.result?.status?.state, 'failed', 'the task failed');
  t.match(JSON.stringify(sent.json.result?.status), /relay_disconnected|disconnected/i, 'saying its relay was disconnected');
  t.equal((await client.closed).code, 1002, 'the relay disconnected as a protocol break');
  t.ok(
    logs.some((l) => l.msg === 'relay disconnected: protocol broken' && /nested deeper than 72 levels/.test(String(l.fields?.why))),
    'with a logged reason',
  );
  const again = await g.rpc({ method: 'tasks/get', key: caller.key, params: { id: sent.json.result?.id } });
  t.equal(again.json.result?.status?.state, 'failed', 'the task reads back');
});
