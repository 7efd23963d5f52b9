// A remote's task, context and artifact ids are bounded as a caller's are (MAX_ID_LENGTH, 256 characters), by real node:http
// remotes on loopback, 0.3 and 1.0, plain and streamed: a longer id fails the turn naming the field, and no result is
// stored under it. Before, only the 8 MiB answer limit bounded them: a megabyte id was kept, stored and sent back.
import t from 'tap';
import { MAX_ID_LENGTH } from '../../src/protocol/model.js';
import { type Answer, type Dialect, sseAnswer } from '../support/card-server.js';
import { DIALECT_MATRIX, dialectStage } from '../support/remote-stage.js';

const WS = 'ws1';
let taskId = 't1';
let contextId = 'c1';
/** when set, the task carries one artifact of this id */
let artifactId: string | undefined;
const artifacts = () => (artifactId === undefined ? {} : { artifacts: [{ artifactId, parts: [{ kind: 'text', text: 'a' }] }] });
const artifacts10 = () => (artifactId === undefined ? {} : { artifacts: [{ artifactId, parts: [{ text: 'a' }] }] });

const enc = {
  '0.3': {
    task: () => ({ kind: 'task', id: taskId, contextId, status: { state: 'completed' }, ...artifacts() }),
    sent: (task: unknown) => task,
  },
  '1.0': {
    task: () => ({ id: taskId, contextId, status: { state: 'TASK_STATE_COMPLETED' }, ...artifacts10() }),
    sent: (task: unknown) => ({ task }),
  },
};

function answer(dialect: Dialect, req: { id: unknown; method: string }): Answer {
  const e = enc[dialect];
  if (!/stream/i.test(req.method)) return { status: 200, body: { jsonrpc: '2.0', id: req.id, result: e.sent(e.task()) } };
  return sseAnswer(req.id, [dialect === '0.3' ? e.task() : e.sent(e.task())]);
}

/** where each dialect's answer holds the task */
const REMOTES = DIALECT_MATRIX.map((r) => ({ ...r, at: r.dialect === '0.3' ? 'result' : 'result.task' }));

const stage = dialectStage(t, { workspace: WS, remotes: REMOTES, answer: (r, req) => answer(r.dialect, req), storeResults: true });

t.beforeEach(() => {
  taskId = 't1';
  contextId = 'c1';
  artifactId = undefined;
});

const send = stage.send;
const stored = async (connection: string) => (await stage.results(connection)).map((r) => r.remoteTaskId);

for (const r of REMOTES) {
  const how = r.streaming ? 'streamed' : 'plain';
  t.test(`${r.dialect} ${how}: ids of ${MAX_ID_LENGTH} characters are taken`, async (t) => {
    taskId = 'T'.repeat(MAX_ID_LENGTH);
    contextId = 'C'.repeat(MAX_ID_LENGTH);
    const task = await send(r.name);
    t.equal(task?.status?.state, 'completed', JSON.stringify(task).slice(0, 300));
    t.same(await stored(r.name), [taskId]);
  });

  t.test(`${r.dialect} ${how}: a task id one character longer fails the turn naming the field; nothing is stored`, async (t) => {
    const before = await stored(r.name);
    taskId = 'T'.repeat(MAX_ID_LENGTH + 1);
    const task = await send(r.name);
    t.equal(task?.status?.state, 'failed', JSON.stringify(task).slice(0, 300));
    t.equal(task?.status?.message?.parts?.[0]?.text, `the remote's answer is not a task: ${r.at}.id: at most ${MAX_ID_LENGTH} characters`);
    t.same(await stored(r.name), before, 'no result kept');
  });

  t.test(`${r.dialect} ${how}: a megabyte context id fails the turn naming the field; nothing is stored`, async (t) => {
    const before = await stored(r.name);
    contextId = 'C'.repeat(1 << 20);
    const task = await send(r.name);
    t.equal(task?.status?.state, 'failed', JSON.stringify(task).slice(0, 300));
    t.equal(task?.status?.message?.parts?.[0]?.text, `the remote's answer is not a task: ${r.at}.contextId: at most ${MAX_ID_LENGTH} characters`);
    t.same(await stored(r.name), before, 'no result kept');
  });

  t.test(`${r.dialect} ${how}: an artifact id of ${MAX_ID_LENGTH} characters is taken, one longer fails the turn naming the field`, async (t) => {
    artifactId = 'A'.repeat(MAX_ID_LENGTH);
    const task = await send(r.name);
    t.equal(task?.status?.state, 'completed', JSON.stringify(task).slice(0, 300));
    t.equal(task?.artifacts?.[0]?.artifactId, artifactId);
    const before = await stored(r.name);
    artifactId = 'A'.repeat(MAX_ID_LENGTH + 1);
    const failed = await send(r.name);
    t.equal(failed?.status?.state, 'failed', JSON.stringify(failed).slice(0, 300));
    t.equal(
      failed?.status?.message?.parts?.[0]?.text,
      `the remote's answer is not a task: ${r.at}.artifacts.0.artifactId: at most ${MAX_ID_LENGTH} characters`,
    );
    t.same(await stored(r.name), before, 'no result kept');
  });
}
