// A message's extensions and referenceTaskIds, a part's 1.0 mediaType and filename and an artifact's extensions over
// real HTTP (real server, LMDB in a temp dir): kept in the stored history, shown in the caller's dialect (0.3 has no
// mediaType or filename on text or data parts), handed to the agent on the worker pool, and an agent's own extensions shown back.
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { DEMO_AGENTS } from '../../src/demo-agents.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/agents/${name}`, import.meta.url));
const V1 = { 'A2A-Version': '1.0' };
const EXT = ['https://ext.example/a2a/trace/v1', 'https://ext.example/a2a/cost/v2'];
let n = 0;
const id = () => `m-${++n}`;

let gw: TestGateway;
let key: string;
t.before(async () => {
  gw = await startTestGateway({ config: { agents: [...DEMO_AGENTS, { id: 'mirror', name: 'Mirror', kind: 'module', entry: fixture('mirror.js') }] } });
  key = (await gw.key()).key;
});
t.teardown(() => gw.close());

const rpc = (method: string, params: unknown, headers: Record<string, string> = {}) => gw.rpc({ method, params, key, headers });

t.test('0.3: message/send with extensions and referenceTaskIds; tasks/get shows them in the history', async (t) => {
  const first = await rpc('message/send', {
    message: { kind: 'message', role: 'user', messageId: id(), parts: [{ kind: 'text', text: 'one' }] },
    metadata: { agentId: 'echo' },
  });
  const earlier = first.json.result.id as string;
  const message = { kind: 'message', role: 'user', messageId: id(), parts: [{ kind: 'text', text: 'two' }], extensions: EXT, referenceTaskIds: [earlier] };
  const sent = await rpc('message/send', { message, metadata: { agentId: 'echo' } });
  t.equal(sent.json.result.status.state, 'completed', JSON.stringify(sent.json));
  const got = await rpc('tasks/get', { id: sent.json.result.id }, { 'A2A-Version': '0.3' });
  const h = got.json.result.history[0];
  t.strictSame(h.extensions, EXT, 'the extensions are kept');
  t.strictSame(h.referenceTaskIds, [earlier], 'the referenced task is kept');
  t.strictSame(h.parts, [{ kind: 'text', text: 'two' }]);
  const asV1 = await rpc('GetTask', { id: sent.json.result.id }, V1);
  t.strictSame(asV1.json.result.history[0].extensions, EXT, 'GetTask shows them in 1.0 too');
  t.strictSame(asV1.json.result.history[0].referenceTaskIds, [earlier]);
});

t.test('0.3: a message with too many extensions is refused naming the field, and no task is made', async (t) => {
  const message = {
    kind: 'message',
    role: 'user',
    messageId: id(),
    parts: [{ kind: 'text', text: 'x' }],
    extensions: Array.from({ length: 65 }, (_, i) => `u:${i}`),
  };
  const r = await rpc('message/send', { message });
  t.equal(r.json.error?.code, -32602, JSON.stringify(r.json));
  t.equal(r.json.error?.data?.path, 'params.message.extensions');
});

t.test('1.0: SendMessage with a media type and file name on text and data parts and extensions; GetTask shows them, 0.3 without them', async (t) => {
  const parts = [
    { text: '# title', mediaType: 'text/markdown', filename: 'title.md' },
    { data: { n: 1 }, mediaType: 'application/vnd.example+json', filename: 'n.json' },
  ];
  const sent = await rpc('SendMessage', { message: { messageId: id(), role: 'ROLE_USER', parts, extensions: EXT, metadata: { agentId: 'echo' } } }, V1);
  const task = sent.json.result.task;
  t.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(sent.json));
  t.strictSame(task.artifacts[0].parts, parts, "the echo agent got the media types and file names and gave them back in its artifact's parts");
  const got = await rpc('GetTask', { id: task.id }, V1);
  t.strictSame(got.json.result.history[0].parts, parts, 'the history keeps each part with its media type and file name');
  t.strictSame(got.json.result.history[0].extensions, EXT, '... and the extensions');
  const asB = await rpc('tasks/get', { id: task.id }, { 'A2A-Version': '0.3' });
  t.strictSame(
    asB.json.result.history[0].parts,
    [
      { kind: 'text', text: '# title' },
      { kind: 'data', data: { n: 1 } },
    ],
    '0.3 has no mediaType or filename on text and data parts: none is written',
  );
  t.strictSame(asB.json.result.history[0].extensions, EXT, 'the extensions are 0.3 fields too');
});

t.test('a module agent on the worker pool receives them; its own extensions reach the caller', async (t) => {
  const parts = [
    { text: 'hi', mediaType: 'text/plain' },
    { data: {}, filename: 'empty.json' },
    { url: 'https://f.example/a.png', mediaType: 'image/png' },
  ];
  const sent = await rpc(
    'SendMessage',
    { message: { messageId: id(), role: 'ROLE_USER', parts, extensions: [EXT[0]], referenceTaskIds: ['task-before'], metadata: { agentId: 'mirror' } } },
    V1,
  );
  const task = sent.json.result.task;
  t.equal(task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(sent.json));
  t.strictSame(
    task.artifacts[0].parts[0].data,
    { extensions: [EXT[0]], referenceTaskIds: ['task-before'], mediaTypes: ['text/plain', null, 'image/png'], filenames: [null, 'empty.json', null] },
    'what the agent was given',
  );
  t.equal(task.artifacts[0].parts[0].mediaType, 'application/json', "the agent's data part says its media type");
  t.equal(task.artifacts[0].parts[0].filename, 'seen.json', '... and its file name');
  t.strictSame(task.artifacts[0].extensions, ['https://ext.example/mirror/v1'], "the agent's artifact extensions");
  t.strictSame(task.status.message.extensions, ['https://ext.example/mirror/v1'], "the agent's message extensions");
  const got = await rpc('GetTask', { id: task.id }, V1);
  t.strictSame(got.json.result.history.at(-1).extensions, ['https://ext.example/mirror/v1'], "the agent's message joins the history with them");
});
