// A relay turn whose run frame would pass the tunnel's frame bound: a task may hold up to tasks.maxTaskBytes (8 MiB),
// a frame at most MAX_FRAME_BYTES (4 MiB), and a relay closes its tunnel on a larger frame. The turn fails at the
// gateway with a reason that says why, and the tunnel (and every other turn on it) goes on.
import { unpack } from 'msgpackr';
import t from 'tap';
import { MAX_FRAME_BYTES } from '../../src/protocol/tunnel.js';
import { msgB, startTestGateway } from '../support/gateway.js';
import { registerRelay } from '../support/relay-world.js';
import { connectRelay } from '../support/tunnel-client.js';

t.setTimeout(120_000);

t.test('a follow-up whose task is over the frame bound fails with relay_turn_too_large; the tunnel stays', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { relayKey, key } = await registerRelay(gw, { workspace: 'ws1', name: 'home', agents: ['local-big'] });
  const card = { name: 'local-big', description: 'answers at length', skills: [], streaming: true };
  // this end takes frames up to the bound, as the relay does
  const { client, answer } = await connectRelay({ url: gw.url, key: relayKey.key, workspace: 'ws1', agents: [card], maxPayload: MAX_FRAME_BYTES });
  t.match(answer, { t: 'welcome' });
  // 'grow': two artifacts of 2.2 MB each (each event's frame within the bound), then it waits for input
  client.ws.on('message', (data: Buffer) => {
    const f = unpack(data);
    if (f.t !== 'run') return;
    const text = f.message.parts.map((p: { text?: string }) => p.text ?? '').join('');
    if (text === 'grow')
      for (const id of ['a', 'b'])
        client.send({
          t: 'event',
          sid: f.sid,
          event: { type: 'artifact', artifact: { artifactId: id, parts: [{ kind: 'text', text: id.repeat(2_200_000) }] } },
        });
    else client.send({ t: 'event', sid: f.sid, event: { type: 'artifact', artifact: { name: 'echo', parts: [{ kind: 'text', text: `echo: ${text}` }] } } });
    client.send({ t: 'event', sid: f.sid, event: { type: 'status', state: text === 'grow' ? 'input-required' : 'completed' } });
    client.send({ t: 'done', sid: f.sid });
  });
  const send = (text: string, extra: Record<string, unknown> = {}) =>
    gw.rpc({ method: 'message/send', key, params: msgB(text, extra), path: '/api/a2a/agents/local-big' });

  const grown = (await send('grow')).json.result;
  t.equal(grown?.status?.state, 'input-required', 'the task holds its 4.4 MB (within tasks.maxTaskBytes)');

  const more = (await send('more', { taskId: grown.id, contextId: grown.contextId })).json.result;
  t.equal(more?.status?.state, 'failed', 'the follow-up fails');
  t.equal(more?.status?.message?.metadata?.reason, 'relay_turn_too_large', JSON.stringify(more?.status).slice(0, 400));
  t.match(more?.status?.message?.parts?.[0]?.text, /too large for the relay's tunnel/, 'the message says why');
  const other = (await send('still there?')).json.result;
  t.equal(other?.status?.state, 'completed', 'the tunnel serves the next task');
  t.equal(client.ws.readyState, client.ws.OPEN, 'the tunnel is still open');
  client.close();
});
