// An agent that streams without end must not make its task grow without bound: past `tasks.maxTaskBytes` its turn is
// stopped and the task fails (`output_too_large`), keeping what came before, and it still reads. Every runner's
// events pass the run driver, so module, remote and relay agents meet the same limit.
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { DEMO_AGENTS } from '../../src/demo-agents.js';
import { msgB, startTestGateway } from '../support/gateway.js';

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
