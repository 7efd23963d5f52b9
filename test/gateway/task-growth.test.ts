// An agent that streams without end must not make its task grow without bound: past `tasks.maxTaskBytes` its turn is
// stopped and the task fails (`output_too_large`), keeping what came before, and it still reads. Every runner's
// events pass the run driver, so module, remote and relay agents meet the same limit.
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { unpack } from 'msgpackr';
import { ConfigError } from '../../src/config/error.js';
import { parseConfig } from '../../src/config/parse.js';
import { DEMO_AGENTS } from '../../src/demo-agents.js';
import { msgB, startTestGateway } from '../support/gateway.js';
import { registerRelay } from '../support/relay-world.js';
import { connectRelay } from '../support/tunnel-client.js';

const endless = fileURLToPath(new URL('../fixtures/agents/endless.js', import.meta.url));
const LIMIT = 64 * 1024;
const CHUNK = 1024;

t.test('a module agent emitting chunks without end fails its task at the limit; the record stays bounded', async (t) => {
  const gw = await startTestGateway({
    config: {
      tasks: { maxTaskBytes: LIMIT },
      // `max` only bounds the fixture so that a gateway without the limit completes (with 4 MiB) instead of hanging
      agents: [...DEMO_AGENTS, { id: 'endless', name: 'Endless', kind: 'module', entry: endless, options: { size: CHUNK, max: 4096 } }],
    },
  });
  t.teardown(() => gw.close());
  const { key } = await gw.key();

  const sent = await gw.rpc({ key, method: 'message/send', params: msgB('go', { metadata: { agentId: 'endless' } }) });
  t.equal(sent.status, 200);
  const task = sent.json.result;
  t.equal(task?.status?.state, 'failed', `the task fails: ${JSON.stringify(sent.json).slice(0, 300)}`);
  t.equal(task?.status?.message?.metadata?.reason, 'output_too_large', 'with the reason');
  t.match(task?.status?.message?.parts?.[0]?.text, /limit of 65536 bytes \(tasks\.maxTaskBytes\)/, 'the message names the limit and the setting');

  const got = await gw.rpc({ key, method: 'tasks/get', params: { id: task.id } });
  t.equal(got.status, 200, 'the task reads');
  t.equal(got.json.result?.status?.state, 'failed');
  const parts = got.json.result?.artifacts?.[0]?.parts ?? [];
  const kept = parts.reduce((n: number, p: { text: string }) => n + p.text.length, 0);
  t.ok(kept > 0, `what came before the limit is kept (${parts.length} chunks)`);
  t.ok(kept <= LIMIT, `the artifact stays within the limit: ${kept} bytes`);

  const stored = await gw.gw.store.tasks.get('ws1', task.id);
  t.ok(stored, 'the record is stored');
  t.ok(Buffer.byteLength(JSON.stringify(stored)) < LIMIT + 16 * 1024, 'the stored record is bounded by the limit');

  const next = await gw.rpc({ key, method: 'message/send', params: msgB('still here') });
  t.equal(next.json.result?.status?.state, 'completed', 'other tasks go on');
});

t.test('a relay agent streaming past the limit: the task fails the same way, the relay is told to cancel, its tunnel stays', async (t) => {
  const gw = await startTestGateway({ config: { tasks: { maxTaskBytes: LIMIT } } });
  t.teardown(() => gw.close());
  const { relayKey, key } = await registerRelay(gw, { workspace: 'ws1', name: 'home', agents: ['local-endless'] });
  const card = { name: 'local-endless', description: 'streams chunks', skills: [], streaming: true };
  const { client, answer } = await connectRelay({ url: gw.url, key: relayKey.key, workspace: 'ws1', agents: [card] });
  t.match(answer, { t: 'welcome' });
  // 256 KiB of chunks, then an end: only a gateway without the bound takes it all
  client.ws.on('message', (data: Buffer) => {
    const f = unpack(data);
    if (f.t !== 'run') return;
    const text = f.message.parts.map((p: { text?: string }) => p.text ?? '').join('');
    for (let i = 0; i < 256; i++) {
      const chunk = text === 'go' ? 'q'.repeat(CHUNK) : `echo: ${text}`;
      client.send({
        t: 'event',
        sid: f.sid,
        event: { type: 'artifact', artifact: { artifactId: 'out', parts: [{ kind: 'text', text: chunk }], append: i > 0 } },
      });
      if (text !== 'go') break;
    }
    client.send({ t: 'event', sid: f.sid, event: { type: 'status', state: 'completed' } });
    client.send({ t: 'done', sid: f.sid });
  });

  const sent = await gw.rpc({ key, method: 'message/send', params: msgB('go'), path: '/api/a2a/agents/local-endless' });
  const task = sent.json.result;
  t.equal(task?.status?.state, 'failed', JSON.stringify(sent.json).slice(0, 300));
  t.equal(task?.status?.message?.metadata?.reason, 'output_too_large', 'the same reason as for a module agent');
  const got = await gw.rpc({ key, method: 'tasks/get', params: { id: task.id } });
  const kept = (got.json.result?.artifacts?.[0]?.parts ?? []).reduce((n: number, p: { text: string }) => n + p.text.length, 0);
  t.ok(kept > 0 && kept <= LIMIT, `the task reads, its output within the limit: ${kept} bytes`);

  const again = await gw.rpc({ key, method: 'message/send', params: msgB('hi'), path: '/api/a2a/agents/local-endless' });
  t.equal(again.json.result?.status?.state, 'completed', 'the tunnel keeps serving the next turn');
  // the cancel went out before the next turn's run frame, which the relay has answered by now
  t.ok(
    client.frames.some((f) => f.t === 'cancel'),
    'the relay was told to cancel the turn',
  );
  client.close();
});

t.test('tasks.maxTaskBytes: 8 MiB by default; a bad value is refused naming the field', async (t) => {
  t.equal(parseConfig({}).tasks.maxTaskBytes, 8 * 1024 * 1024);
  for (const bad of [0, -1, 1.5, '1MB']) {
    t.throws(() => parseConfig({ tasks: { maxTaskBytes: bad } }), { constructor: ConfigError, message: /tasks\.maxTaskBytes: / }, String(bad));
  }
});
