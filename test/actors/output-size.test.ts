// What a task's content weighs, as `tasks.maxTaskBytes` counts it: the UTF-8 bytes of its artifacts (as one JSON array)
// and of each history message, exact at every step of a task's life, although each message and artifact is measured
// once (output-size.ts remembers them); and the room check at the limit's very edge.
import t from 'tap';
import { checkTaskRoom, taskContentBytes } from '../../src/actors/output-size.js';
import { applyAgentEvents, type TaskContext } from '../../src/actors/task-updates.js';
import type { AgentEvent } from '../../src/protocol/agent-events.js';
import type { Message, Task } from '../../src/protocol/model.js';
import { RpcError } from '../../src/protocol/errors.js';
import { sampleTask } from '../support/store-records.js';

const T0 = Date.UTC(2026, 0, 1);
const text = (s: string) => ({ kind: 'text' as const, text: s });
const msg = (id: string, s: string): Message => ({ role: 'user', parts: [text(s)], messageId: id, taskId: 'task-1', contextId: 'ctx-1' });

/** The store's sample task (a status message, artifacts of every part kind), here with one user message unless told. */
const task = (o: Partial<Task> = {}): Task => ({ ...sampleTask({ id: 'task-1' }), artifacts: [], history: [msg('m-1', 'go')], ...o });

/** The measure by its definition: every time in full. */
const exact = (t: Task): number =>
  (t.artifacts.length > 0 ? Buffer.byteLength(JSON.stringify(t.artifacts)) : 0) + t.history.reduce((n, m) => n + Buffer.byteLength(JSON.stringify(m)), 0);

t.test('a task of every shape weighs what its JSON takes, multi-byte text and escapes included', async (t) => {
  const cases: Array<[string, Task]> = [
    ['one message, no artifact', task()],
    ['no message at all', task({ history: [] })],
    ['the sample as stored: artifacts of every part kind, a history', sampleTask({ id: 'task-2' })],
    ['one artifact', task({ artifacts: [{ artifactId: 'a', index: 0, parts: [text('x')] }] })],
    [
      'three artifacts, non-ASCII and escaped text, three messages',
      task({
        artifacts: [
          { artifactId: 'a', index: 0, parts: [text('Grüße, 世界 🌍')] },
          { artifactId: 'b', index: 1, parts: [text('line\nbreak "quoted" \\ \u0001')], name: 'n' },
          { artifactId: 'c', index: 2, parts: [{ kind: 'data', data: { n: 1.5, list: [true, null, 'é'] } }] },
        ],
        history: [msg('m-1', 'go'), msg('m-2', 'ünïcödé'), msg('m-3', '"\t"')],
      }),
    ],
  ];
  for (const [name, tk] of cases) {
    t.equal(taskContentBytes(tk), exact(tk), name);
    t.equal(taskContentBytes(tk), exact(tk), `${name}, measured again`);
  }
});

t.test('measured before and after batches that append to its artifacts and add messages: exact every time', async (t) => {
  let ctx: TaskContext = { task: task({ artifacts: [{ artifactId: 'kept', index: 0, parts: [text('before')] }] }), pendingFinal: undefined };
  const batches: AgentEvent[][] = [
    [{ type: 'artifact', artifact: { artifactId: 'kept', parts: [text(' and after')], append: true } }],
    [
      { type: 'artifact', artifact: { artifactId: 'new', parts: [text('a')] } },
      { type: 'artifact', artifact: { artifactId: 'new', parts: [text('b')], append: true } },
      { type: 'artifact', artifact: { artifactId: 'new', parts: [text('ç')], append: true, lastChunk: true } },
    ],
    [{ type: 'status', state: 'working', message: { parts: [text('thinking')] } }],
    [{ type: 'artifact', artifact: { artifactId: 'kept', parts: [text('replaced whole')] } }],
  ];
  t.equal(taskContentBytes(ctx.task), exact(ctx.task), 'before any batch');
  for (const [i, batch] of batches.entries()) {
    const before = ctx.task;
    const weighed = taskContentBytes(before);
    ctx = applyAgentEvents(ctx, batch, T0 + i + 1);
    t.equal(taskContentBytes(ctx.task), exact(ctx.task), `after batch ${i + 1}`);
    t.equal(taskContentBytes(before), weighed, `the task before batch ${i + 1} still weighs what it did`);
  }
});

t.test('the room check takes a message that fills the task to its limit, and refuses one byte more', async (t) => {
  const tk = task();
  const adding = msg('m-2', 'more');
  const full = exact(tk) + Buffer.byteLength(JSON.stringify(adding));
  t.doesNotThrow(() => checkTaskRoom({ task: tk, adding, maxBytes: full }), 'at the limit');
  const err = (() => {
    try {
      checkTaskRoom({ task: tk, adding, maxBytes: full - 1 });
    } catch (e) {
      return e;
    }
    return undefined;
  })();
  t.ok(err instanceof RpcError, 'one byte past it: refused');
  t.match((err as RpcError).message, new RegExp(`would hold ${full} bytes .* past its limit of ${full - 1} bytes \\(tasks\\.maxTaskBytes\\)`), 'naming both');
  t.doesNotThrow(() => checkTaskRoom({ task: tk, adding, maxBytes: undefined }), 'no limit: no check');
});
