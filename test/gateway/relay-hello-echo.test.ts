// A hostile relay's hello text is not repeated back whole: a hello naming another workspace of a million characters
// (within the frame bound) is refused with an `error` frame and a log line that quote it as one short line. A real
// gateway on port 0, the relay a real WebSocket client.
import t from 'tap';
import { addRelay } from '../../src/runtime/relay-admin.js';
import { startTestGateway } from '../support/gateway.js';
import { connectRelay } from '../support/tunnel-client.js';

t.test('a hello naming a huge other workspace: refused, quoted short in the error frame and the log', async (t) => {
  const logs: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
  const g = await startTestGateway({ log: (msg, fields) => logs.push({ msg, fields }) });
  t.teardown(() => g.close());
  const k = await g.key({ workspace: 'ws1', trust: 'execute' });
  await addRelay({ relays: g.gw.store.relays, keys: g.gw.store.keys, clock: { now: () => Date.now() } }, { workspace: 'ws1', name: 'home', key: k.id });
  const workspace = `ws2\n${'w'.repeat(1_000_000)}`;
  const { client, answer } = await connectRelay({ url: g.url, key: k.key, workspace, agents: [] });
  t.teardown(() => client.close());
  t.equal(answer?.t, 'error', 'refused');
  t.match(answer?.message, /^this key's relay serves workspace ws1, not ws2\uFFFDw+…$/, 'quoting the workspace as one line, cut');
  t.ok(answer.message.length < 200, `the error frame is short (${answer.message.length} characters)`);
  t.match(await client.closed, { code: 1008 });
  const line = logs.find((l) => l.msg === 'relay refused: hello names another workspace');
  t.ok(line, 'logged');
  t.ok(JSON.stringify(line).length < 400, 'in a short line');
});
