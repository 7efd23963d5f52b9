// A remote artifact's `name` and `description` are words for people, bounded (256 and 2,000 code points) by cutting,
// the last kept code point `…`, as a remote's error message is: the answer stands and the cut text is what our caller
// is answered, a later read shows and the result store keeps. Only the 8 MiB answer limit bounded them before. Real
// node:http remotes on loopback behind a real gateway, 0.3 and 1.0, plain and streamed.
import t from 'tap';
import { ARTIFACT_TEXT } from '../../src/protocol/artifact-text.js';
import { type Answer, type Dialect, sseAnswer } from '../support/card-server.js';
import { DIALECT_MATRIX, dialectStage } from '../support/remote-stage.js';

const WS = 'ws1';
let name = 'report';
let description = 'the report';

const artifact03 = () => ({ artifactId: 'a1', name, description, parts: [{ kind: 'text', text: 'a' }] });
const artifact10 = () => ({ artifactId: 'a1', name, description, parts: [{ text: 'a' }] });

function answer(dialect: Dialect, req: { id: unknown; method: string }): Answer {
  const task =
    dialect === '0.3'
      ? { kind: 'task', id: 't1', contextId: 'c1', status: { state: 'completed' }, artifacts: [artifact03()] }
      : { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [artifact10()] };
  const result = dialect === '0.3' ? task : { task };
  if (!/stream/i.test(req.method)) return { status: 200, body: { jsonrpc: '2.0', id: req.id, result } };
  // a stream brings the artifact as its own event, then the closing status
  const event =
    dialect === '0.3'
      ? [
          { kind: 'artifact-update', taskId: 't1', contextId: 'c1', artifact: artifact03() },
          { kind: 'status-update', taskId: 't1', contextId: 'c1', status: { state: 'completed' }, final: true },
        ]
      : [
          { artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: artifact10() } },
          { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } } },
        ];
  return sseAnswer(req.id, [
    dialect === '0.3'
      ? { kind: 'task', id: 't1', contextId: 'c1', status: { state: 'working' } }
      : { task: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } } },
    ...event,
  ]);
}

const stage = dialectStage(t, { workspace: WS, remotes: DIALECT_MATRIX, answer: (r, req) => answer(r.dialect, req), storeResults: true });

t.beforeEach(() => {
  name = 'report';
  description = 'the report';
});

const codePoints = (x: string | undefined) => [...(x ?? '')].length;

/** the artifact our caller is answered, the one a later tasks/get shows, and the one the result store keeps */
async function artifactsSeen(agentId: string) {
  const before = new Set((await stage.results(agentId)).map((x) => x.id));
  const task = await stage.send(agentId);
  const read = (await stage.ours.rpc({ method: 'tasks/get', key: stage.key, params: { id: task?.id } })).json.result;
  const results = await stage.results(agentId);
  return {
    state: task?.status?.state,
    answered: task?.artifacts?.[0],
    read: read?.artifacts?.[0],
    kept: results.find((x) => !before.has(x.id))?.raw?.artifacts[0],
  };
}

for (const r of DIALECT_MATRIX) {
  const how = `${r.dialect} ${r.streaming ? 'streamed' : 'plain'}`;

  t.test(`${how}: a name and description at their bounds are kept as sent`, async (t) => {
    // astral characters: the bounds count code points, not UTF-16 units
    name = '😀'.repeat(ARTIFACT_TEXT.name);
    description = `${'d'.repeat(ARTIFACT_TEXT.description - 1)}😀`;
    const seen = await artifactsSeen(r.name);
    t.equal(seen.state, 'completed');
    for (const where of ['answered', 'read'] as const) {
      t.equal(seen[where]?.name, name, `${where}: name`);
      t.equal(seen[where]?.description, description, `${where}: description`);
    }
  });

  t.test(`${how}: a longer name and description are cut, the answer stands`, async (t) => {
    name = `${'n'.repeat(ARTIFACT_TEXT.name - 1)}😀${'x'.repeat(100_000)}`;
    description = `${'d'.repeat(ARTIFACT_TEXT.description - 1)}😀${'x'.repeat(1_000_000)}`;
    const seen = await artifactsSeen(r.name);
    t.equal(seen.state, 'completed');
    for (const where of ['answered', 'read'] as const) {
      t.equal(seen[where]?.name, `${'n'.repeat(ARTIFACT_TEXT.name - 1)}…`, `${where}: name`);
      t.equal(seen[where]?.description, `${'d'.repeat(ARTIFACT_TEXT.description - 1)}…`, `${where}: description`);
      t.equal(codePoints(seen[where]?.name), 256);
      t.equal(codePoints(seen[where]?.description), 2000);
    }
    t.equal(seen.kept?.name, seen.answered?.name, 'the stored result keeps the cut name');
    t.equal(seen.kept?.description, seen.answered?.description, 'the stored result keeps the cut description');
  });
}
