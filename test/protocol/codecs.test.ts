// The dialect codecs alone, no server: internal Task values written as rev A (A2A 0.1) and rev B (0.2/0.3) tasks and
// stream events, through the caller's view (historyLength, results.read, results.files); no internal field in any
// output; and the lenient inbound side (parts by `type` or `kind`) whose errors name the failing path.
import t from 'tap';
import { methodRow } from '../../src/gateway/methods/table.js';
import { codecs, dialectOfVersionHeader } from '../../src/protocol/codec.js';
import { RpcError } from '../../src/protocol/errors.js';
import { diffTask, type TaskEvent } from '../../src/protocol/events.js';
import { INTERNAL_FIELDS, WRITE_ONLY_MASK } from '../../src/protocol/internal-fields.js';
import type { Artifact, Dialect, Message, Task, TaskDialect } from '../../src/protocol/model.js';
import { parseParams, PushSetParams, SendParams, TaskQueryParams } from '../../src/protocol/params.js';
import type { StoredPushConfig } from '../../src/protocol/records.js';
import { decodeRemoteEvent, decodeRemoteTask } from '../../src/protocol/remote-decode.js';
import { taskView, type TaskViewOptions } from '../../src/protocol/views.js';
import { toSanitizedJson } from '../../src/runtime/sanitizer.js';

const iso = (ms: number) => new Date(ms).toISOString();
const T0 = Date.UTC(2026, 0, 1);
const TS0 = iso(T0);
const TS1 = iso(T0 + 1500);

/** Every internal field name, each with a value that must never be seen out. */
const INTERNAL = Object.fromEntries([...INTERNAL_FIELDS].map((k) => [k, `leak-${k}`]));

// ---------------------------------------------------------------------------------------------------------------
// Internal values
// ---------------------------------------------------------------------------------------------------------------

const userMsg: Message = {
  role: 'user',
  parts: [
    { kind: 'text', text: 'Summarise this' },
    { kind: 'file', file: { name: 'a.pdf', mimeType: 'application/pdf', bytes: 'JVBERi0=' } },
  ],
  messageId: 'm-1',
  taskId: 'task-1',
  contextId: 'ctx-1',
  metadata: { lang: 'en' },
};
const agentMsg = (text: string, messageId: string, metadata?: Record<string, unknown>): Message => ({
  role: 'agent',
  parts: [{ kind: 'text', text }],
  messageId,
  taskId: 'task-1',
  contextId: 'ctx-1',
  ...(metadata && { metadata }),
});

function task(o: Pick<Task, 'status'> & Partial<Task>): Task {
  return {
    id: 'task-1',
    contextId: 'ctx-1',
    workspaceId: 'ws-1',
    agentId: 'echo',
    dialect: 'B',
    artifacts: [],
    history: [userMsg],
    metadata: { ...INTERNAL, source: 'sdk' },
    createdAt: T0,
    updatedAt: T0 + 1500,
    owner: 'gw-1',
    seq: 4,
    ...o,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Their expected wire forms, written out by hand
// ---------------------------------------------------------------------------------------------------------------

const userA = {
  role: 'user',
  parts: [
    { type: 'text', text: 'Summarise this' },
    { type: 'file', file: { name: 'a.pdf', mimeType: 'application/pdf', bytes: 'JVBERi0=' } },
  ],
  metadata: { lang: 'en' },
};
const userB = {
  kind: 'message',
  role: 'user',
  parts: [
    { kind: 'text', text: 'Summarise this' },
    { kind: 'file', file: { name: 'a.pdf', mimeType: 'application/pdf', bytes: 'JVBERi0=' } },
  ],
  messageId: 'm-1',
  taskId: 'task-1',
  contextId: 'ctx-1',
  metadata: { lang: 'en' },
};
const agentA = (text: string, metadata?: Record<string, unknown>) => ({ role: 'agent', parts: [{ type: 'text', text }], ...(metadata && { metadata }) });
const agentB = (text: string, messageId: string, metadata?: Record<string, unknown>) => ({
  kind: 'message',
  role: 'agent',
  parts: [{ kind: 'text', text }],
  messageId,
  taskId: 'task-1',
  contextId: 'ctx-1',
  ...(metadata && { metadata }),
});

interface Case {
  name: string;
  task: Task;
  A: unknown;
  B: unknown;
}

const CASES: Case[] = [
  {
    name: 'submitted with history',
    task: task({ status: { state: 'submitted', timestamp: TS0 } }),
    A: { id: 'task-1', sessionId: 'ctx-1', status: { state: 'submitted', timestamp: TS0 }, artifacts: [], history: [userA], metadata: { source: 'sdk' } },
    B: {
      kind: 'task',
      id: 'task-1',
      contextId: 'ctx-1',
      status: { state: 'submitted', timestamp: TS0 },
      artifacts: [],
      history: [userB],
      metadata: { source: 'sdk' },
    },
  },
  {
    name: 'completed with text, file and data artifacts',
    task: task({
      status: { state: 'completed', message: agentMsg('Done', 'm-3'), timestamp: TS1 },
      history: [userMsg, agentMsg('Done', 'm-3')],
      artifacts: [
        {
          artifactId: 'task-1-artifact-0',
          index: 0,
          name: 'summary',
          description: 'short summary',
          parts: [{ kind: 'text', text: 'It is short.' }],
          lastChunk: true,
        },
        {
          artifactId: 'report',
          index: 1,
          name: 'report.pdf',
          parts: [{ kind: 'file', file: { name: 'report.pdf', mimeType: 'application/pdf', uri: 'https://files.example/r.pdf' } }],
          append: false,
        },
        { artifactId: 'stats', index: 2, parts: [{ kind: 'data', data: { words: 3, kind: 'stats', type: 'payload' } }], metadata: { unit: 'words' } },
      ],
      metadata: { ...INTERNAL, cost_breakdown: { worker_ms: 12, turns: 1 }, source: 'sdk' },
    }),
    A: {
      id: 'task-1',
      sessionId: 'ctx-1',
      status: { state: 'completed', message: agentA('Done'), timestamp: TS1 },
      artifacts: [
        { name: 'summary', description: 'short summary', parts: [{ type: 'text', text: 'It is short.' }], index: 0, lastChunk: true },
        {
          name: 'report.pdf',
          parts: [{ type: 'file', file: { name: 'report.pdf', mimeType: 'application/pdf', uri: 'https://files.example/r.pdf' } }],
          index: 1,
          append: false,
        },
        { parts: [{ type: 'data', data: { words: 3, kind: 'stats', type: 'payload' } }], index: 2, metadata: { unit: 'words' } },
      ],
      history: [userA, agentA('Done')],
      metadata: { source: 'sdk' },
    },
    B: {
      kind: 'task',
      id: 'task-1',
      contextId: 'ctx-1',
      status: { state: 'completed', message: agentB('Done', 'm-3'), timestamp: TS1 },
      artifacts: [
        { artifactId: 'task-1-artifact-0', name: 'summary', description: 'short summary', parts: [{ kind: 'text', text: 'It is short.' }] },
        {
          artifactId: 'report',
          name: 'report.pdf',
          parts: [{ kind: 'file', file: { name: 'report.pdf', mimeType: 'application/pdf', uri: 'https://files.example/r.pdf' } }],
        },
        { artifactId: 'stats', parts: [{ kind: 'data', data: { words: 3, kind: 'stats', type: 'payload' } }], metadata: { unit: 'words' } },
      ],
      history: [userB, agentB('Done', 'm-3')],
      metadata: { source: 'sdk' },
    },
  },
  {
    name: 'failed with a status message',
    task: task({ status: { state: 'failed', message: agentMsg('The agent ran past its deadline', 'm-4', { reason: 'timeout' }), timestamp: TS1 } }),
    A: {
      id: 'task-1',
      sessionId: 'ctx-1',
      status: { state: 'failed', message: agentA('The agent ran past its deadline', { reason: 'timeout' }), timestamp: TS1 },
      artifacts: [],
      history: [userA],
      metadata: { source: 'sdk' },
    },
    B: {
      kind: 'task',
      id: 'task-1',
      contextId: 'ctx-1',
      status: { state: 'failed', message: agentB('The agent ran past its deadline', 'm-4', { reason: 'timeout' }), timestamp: TS1 },
      artifacts: [],
      history: [userB],
      metadata: { source: 'sdk' },
    },
  },
  {
    name: 'input-required',
    task: task({
      status: { state: 'input-required', message: agentMsg('Which city?', 'm-5'), timestamp: TS1 },
      history: [userMsg, agentMsg('Which city?', 'm-5')],
    }),
    A: {
      id: 'task-1',
      sessionId: 'ctx-1',
      status: { state: 'input-required', message: agentA('Which city?'), timestamp: TS1 },
      artifacts: [],
      history: [userA, agentA('Which city?')],
      metadata: { source: 'sdk' },
    },
    B: {
      kind: 'task',
      id: 'task-1',
      contextId: 'ctx-1',
      status: { state: 'input-required', message: agentB('Which city?', 'm-5'), timestamp: TS1 },
      artifacts: [],
      history: [userB, agentB('Which city?', 'm-5')],
      metadata: { source: 'sdk' },
    },
  },
  {
    name: 'canceled with a half-streamed artifact',
    task: task({
      status: { state: 'canceled', timestamp: TS1 },
      artifacts: [
        {
          artifactId: 'draft',
          index: 0,
          parts: [
            { kind: 'text', text: 'Once upon' },
            { kind: 'text', text: ' a time' },
          ],
          append: true,
          lastChunk: false,
        },
      ],
    }),
    A: {
      id: 'task-1',
      sessionId: 'ctx-1',
      status: { state: 'canceled', timestamp: TS1 },
      artifacts: [
        {
          parts: [
            { type: 'text', text: 'Once upon' },
            { type: 'text', text: ' a time' },
          ],
          index: 0,
          append: true,
          lastChunk: false,
        },
      ],
      history: [userA],
      metadata: { source: 'sdk' },
    },
    B: {
      kind: 'task',
      id: 'task-1',
      contextId: 'ctx-1',
      status: { state: 'canceled', timestamp: TS1 },
      artifacts: [
        {
          artifactId: 'draft',
          parts: [
            { kind: 'text', text: 'Once upon' },
            { kind: 'text', text: ' a time' },
          ],
        },
      ],
      history: [userB],
      metadata: { source: 'sdk' },
    },
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Checks over any output
// ---------------------------------------------------------------------------------------------------------------

type Obj = Record<string, any>;

/** Paths (and values) of internal fields anywhere in `v`: keys named like one, or a value of one seen under another key. */
function leaks(v: unknown, path = '$'): string[] {
  if (typeof v === 'string') return v.startsWith('leak-') ? [`${path} = ${v}`] : [];
  if (typeof v !== 'object' || v === null) return [];
  const out: string[] = [];
  for (const [k, x] of Object.entries(v)) {
    if (INTERNAL_FIELDS.has(k)) out.push(`${path}.${k}`);
    out.push(...leaks(x, `${path}.${k}`));
  }
  return out;
}

/** What breaks the rev A shapes: `kind` on a task, status, message, part or artifact; a part without `type`; B-only names. */
function shapeProblemsA(out: Obj): string[] {
  const bad: string[] = [];
  const part = (p: Obj, at: string) => {
    if ('kind' in p) bad.push(`${at}.kind`);
    if (!['text', 'file', 'data'].includes(p.type)) bad.push(`${at}.type = ${p.type}`);
  };
  const message = (m: Obj, at: string) => {
    for (const k of ['kind', 'messageId', 'taskId', 'contextId']) if (k in m) bad.push(`${at}.${k}`);
    m.parts.forEach((p: Obj, i: number) => {
      part(p, `${at}.parts.${i}`);
    });
  };
  for (const k of ['kind', 'contextId']) if (k in out) bad.push(k);
  if (typeof out.sessionId !== 'string') bad.push('sessionId missing');
  if ('kind' in out.status) bad.push('status.kind');
  if (out.status.message) message(out.status.message, 'status.message');
  (out.history ?? []).forEach((m: Obj, i: number) => {
    message(m, `history.${i}`);
  });
  out.artifacts.forEach((a: Obj, i: number) => {
    for (const k of ['kind', 'artifactId']) if (k in a) bad.push(`artifacts.${i}.${k}`);
    if (!Number.isInteger(a.index)) bad.push(`artifacts.${i}.index missing`);
    a.parts.forEach((p: Obj, j: number) => {
      part(p, `artifacts.${i}.parts.${j}`);
    });
  });
  return bad;
}

/** What breaks the rev B shapes: a task, message or part without its `kind`, a message without messageId, A-only names. */
function shapeProblemsB(out: Obj): string[] {
  const bad: string[] = [];
  const part = (p: Obj, at: string) => {
    if ('type' in p) bad.push(`${at}.type`);
    if (!['text', 'file', 'data'].includes(p.kind)) bad.push(`${at}.kind = ${p.kind}`);
  };
  const message = (m: Obj, at: string) => {
    if (m.kind !== 'message') bad.push(`${at}.kind = ${m.kind}`);
    if (typeof m.messageId !== 'string') bad.push(`${at}.messageId missing`);
    m.parts.forEach((p: Obj, i: number) => {
      part(p, `${at}.parts.${i}`);
    });
  };
  if (out.kind !== 'task') bad.push(`kind = ${out.kind}`);
  if ('sessionId' in out) bad.push('sessionId');
  if (typeof out.contextId !== 'string') bad.push('contextId missing');
  if (out.status.message) message(out.status.message, 'status.message');
  (out.history ?? []).forEach((m: Obj, i: number) => {
    message(m, `history.${i}`);
  });
  out.artifacts.forEach((a: Obj, i: number) => {
    if (typeof a.artifactId !== 'string') bad.push(`artifacts.${i}.artifactId missing`);
    for (const k of ['index', 'append', 'lastChunk', 'type']) if (k in a) bad.push(`artifacts.${i}.${k}`);
    a.parts.forEach((p: Obj, j: number) => {
      part(p, `artifacts.${i}.parts.${j}`);
    });
  });
  return bad;
}

const FULL: TaskViewOptions = { results: true, files: true };
const VIEWS: Array<[string, TaskViewOptions]> = [
  ['full', FULL],
  ['historyLength 0', { ...FULL, historyLength: 0 }],
  ['historyLength 1', { ...FULL, historyLength: 1 }],
  ['without results.read', { results: false, files: true }],
  ['without results.files', { results: true, files: false }],
];
const DIALECTS: Dialect[] = ['A', 'B'];
const encode = (d: TaskDialect, tk: Task, view: TaskViewOptions = FULL): Obj => codecs[d].task(taskView(tk, view)) as Obj;
const encodeEvent = (d: TaskDialect, where: Pick<Task, 'id' | 'contextId'>, ev: TaskEvent) => codecs[d].event(where, ev);
/** the dialect a method name fixes (undefined: a shared name), as the gateway's method table says */
const dialectOfMethod = (m: string) => methodRow(m)?.dialect;

// ---------------------------------------------------------------------------------------------------------------
// Tasks
// ---------------------------------------------------------------------------------------------------------------

for (const c of CASES) {
  t.test(`task ${c.name}: the whole rev A and rev B forms`, async (t) => {
    t.strictSame(encode('A', c.task), c.A, 'rev A');
    t.strictSame(encode('B', c.task), c.B, 'rev B');
  });

  t.test(`task ${c.name}: dialect shapes and no internal field, in every view`, async (t) => {
    for (const [vname, view] of VIEWS) {
      const a = encode('A', c.task, view);
      const b = encode('B', c.task, view);
      t.same(shapeProblemsA(a), [], `rev A shapes (${vname})`);
      t.same(shapeProblemsB(b), [], `rev B shapes (${vname})`);
      t.same(leaks(a), [], `no internal field from the codec, rev A (${vname})`);
      t.same(leaks(b), [], `no internal field from the codec, rev B (${vname})`);
    }
    t.strictSame(
      Object.keys(c.task.metadata)
        .filter((k) => INTERNAL_FIELDS.has(k))
        .sort(),
      [...INTERNAL_FIELDS].sort(),
      'the input did carry every internal field',
    );
  });

  t.test(`task ${c.name}: the view decides history, results and files`, async (t) => {
    for (const d of DIALECTS) {
      const full = encode(d, c.task);
      // 1.0 leaves the empty list out (3.2.4); the revisions write it
      t.strictSame(encode(d, c.task, { ...FULL, historyLength: 0 }).history, d === 'V1' ? undefined : [], `${d}: historyLength 0 shows no history`);
      t.strictSame(encode(d, c.task, { ...FULL, historyLength: 1 }).history, full.history.slice(-1), `${d}: historyLength 1 shows the last message`);
      t.strictSame(encode(d, c.task, { ...FULL, historyLength: 99 }).history, full.history, `${d}: historyLength past the end shows all`);

      const hidden = encode(d, c.task, { results: false, files: true });
      t.notOk('history' in hidden, `${d}: no results.read, no history`);
      t.strictSame(hidden.artifacts, [], `${d}: no results.read, no artifacts`);
      t.strictSame(hidden.status, { state: c.task.status.state, timestamp: c.task.status.timestamp }, `${d}: no results.read, a bare status`);

      const noFiles = encode(d, c.task, { results: true, files: false });
      const files = JSON.stringify(noFiles).match(/"file":\{[^}]*\}/g) ?? [];
      t.ok(files.length > 0, `${d}: the task has file parts to gate`);
      t.same(
        files.filter((f) => f.includes('"bytes"') || f.includes('"uri"')),
        [],
        `${d}: without results.files, file parts keep only name and mimeType`,
      );
      t.equal(files.filter((f) => f.includes('"name"')).length, files.length, `${d}: ... and still say their name`);
    }
  });
}

t.test('internal names in caller data: the codec leaves them to the exit filter, which strips them at any depth', async (t) => {
  const tk = task({
    status: { state: 'completed', message: agentMsg('ok', 'm-9', { api_key_id: 'leak-nested', lang: 'fr' }), timestamp: TS1 },
    history: [{ ...userMsg, metadata: { user_id: 'leak-user', lang: 'en' } }],
    artifacts: [
      { artifactId: 'x', index: 0, parts: [{ kind: 'data', data: { rows: [{ workspace_id: 'leak-ws', n: 1 }] } }], metadata: { system_prompt: 'leak-prompt' } },
    ],
    metadata: { ...INTERNAL, deep: { memory_document: 'leak-memory' }, source: 'sdk' },
  });
  for (const d of DIALECTS) {
    const out = encode(d, tk);
    t.same(
      Object.keys(out.metadata).filter((k) => INTERNAL_FIELDS.has(k)),
      [],
      `${d}: the task's own internal metadata is left out by the codec`,
    );
    const wire = JSON.parse(toSanitizedJson(out));
    t.same(leaks(wire), [], `${d}: nothing internal at any depth once it leaves`);
    t.equal(wire.status.message.metadata.lang, 'fr', `${d}: the public neighbours stay`);
    t.strictSame(wire.artifacts[0].parts[0].data, { rows: [{ n: 1 }] }, `${d}: inside data parts too`);
    t.strictSame(wire.metadata, { deep: {}, source: 'sdk' }, `${d}: and in nested metadata`);
  }
});

// ---------------------------------------------------------------------------------------------------------------
// Kept fields: what the revisions define beside parts (0.3's extensions and referenceTaskIds), and 1.0's mediaType
// and filename on text and data parts, which 0.1-0.3 have no field for
// ---------------------------------------------------------------------------------------------------------------

const EXT = ['https://ext.example/a2a/trace/v1'];
interface KeptCase {
  name: string;
  message: Message;
  artifact: Artifact;
  /** the message and artifact as rev B writes them, and as rev A does */
  B: { message: Obj; artifact: Obj };
  A: { message: Obj; artifact: Obj };
  /** what a rev B reader (a caller's message/send, a remote's answer) gets back from the rev B form */
  readB: { message: Message; artifact: Artifact };
}
const KEPT: KeptCase[] = [
  {
    name: 'extensions and referenceTaskIds',
    message: { ...agentMsg('see task-0', 'm-5'), extensions: EXT, referenceTaskIds: ['task-0'] },
    artifact: { artifactId: 'a-1', index: 0, parts: [{ kind: 'text', text: 'r' }], extensions: EXT },
    B: {
      message: { ...agentB('see task-0', 'm-5'), extensions: EXT, referenceTaskIds: ['task-0'] },
      artifact: { artifactId: 'a-1', parts: [{ kind: 'text', text: 'r' }], extensions: EXT },
    },
    A: { message: agentA('see task-0'), artifact: { parts: [{ type: 'text', text: 'r' }], index: 0 } },
    readB: {
      message: { ...agentMsg('see task-0', 'm-5'), extensions: EXT, referenceTaskIds: ['task-0'] },
      artifact: { artifactId: 'a-1', index: 0, parts: [{ kind: 'text', text: 'r' }], extensions: EXT },
    },
  },
  {
    name: "a 1.0 media type and file name on text and data parts: not written (0.x parts have no field for them), a file's mimeType and name are",
    message: {
      ...agentMsg('x', 'm-6'),
      parts: [
        { kind: 'text', text: '<b>x</b>', mediaType: 'text/html', filename: 'x.html' },
        { kind: 'data', data: { a: 1 }, mediaType: 'application/json', filename: 'a.json', metadata: { m: 1 } },
        { kind: 'file', file: { name: 'a.txt', mimeType: 'text/plain', uri: 'https://f.example/a' } },
      ],
    },
    artifact: { artifactId: 'a-2', index: 0, parts: [{ kind: 'text', text: '# r', mediaType: 'text/markdown', filename: 'r.md' }] },
    B: {
      message: {
        ...agentB('x', 'm-6'),
        parts: [
          { kind: 'text', text: '<b>x</b>' },
          { kind: 'data', data: { a: 1 }, metadata: { m: 1 } },
          { kind: 'file', file: { name: 'a.txt', mimeType: 'text/plain', uri: 'https://f.example/a' } },
        ],
      },
      artifact: { artifactId: 'a-2', parts: [{ kind: 'text', text: '# r' }] },
    },
    A: {
      message: {
        role: 'agent',
        parts: [
          { type: 'text', text: '<b>x</b>' },
          { type: 'data', data: { a: 1 }, metadata: { m: 1 } },
          { type: 'file', file: { name: 'a.txt', mimeType: 'text/plain', uri: 'https://f.example/a' } },
        ],
      },
      artifact: { parts: [{ type: 'text', text: '# r' }], index: 0 },
    },
    readB: {
      message: {
        ...agentMsg('x', 'm-6'),
        parts: [
          { kind: 'text', text: '<b>x</b>' },
          { kind: 'data', data: { a: 1 }, metadata: { m: 1 } },
          { kind: 'file', file: { name: 'a.txt', mimeType: 'text/plain', uri: 'https://f.example/a' } },
        ],
      },
      artifact: { artifactId: 'a-2', index: 0, parts: [{ kind: 'text', text: '# r' }] },
    },
  },
];

for (const c of KEPT) {
  t.test(`kept fields, ${c.name}: written by rev A and rev B, read back by rev B readers`, async (t) => {
    const tk = task({ status: { state: 'completed', message: c.message, timestamp: TS1 }, history: [c.message], artifacts: [c.artifact] });
    for (const [d, want] of [
      ['A', c.A],
      ['B', c.B],
    ] as const) {
      const out = JSON.parse(toSanitizedJson(encode(d, tk)));
      t.strictSame(out.history, [want.message], `${d}: the history, past the exit sanitizer`);
      t.strictSame(out.status.message, want.message, `${d}: the status message`);
      t.strictSame(out.artifacts, [want.artifact], `${d}: the artifact`);
    }
    const wireB = encode('B', tk);
    const remote = decodeRemoteTask(wireB, { receivedAt: TS0 });
    t.strictSame(remote.history, [c.readB.message], "a rev B remote's task: its history read back");
    t.strictSame(remote.status.message, c.readB.message, '... its status message');
    t.strictSame(remote.artifacts, [c.readB.artifact], '... its artifacts');
    const ev = decodeRemoteEvent(encodeEvent('B', where, { seq: 1, kind: 'artifact', artifact: c.artifact, append: false, lastChunk: true }), {
      receivedAt: TS0,
    });
    t.strictSame(ev.kind === 'artifact' && ev.artifact, { ...c.readB.artifact, append: false, lastChunk: true }, "a rev B remote's artifact event");
    // a caller's message/send of the same message (as a user's): what the gateway stores
    const { taskId: _t, contextId: _c, ...sent }: Obj = { ...c.B.message, role: 'user' };
    const { taskId: _t2, contextId: _c2, ...kept } = { ...c.readB.message, role: 'user' as const };
    t.strictSame(parseParams(SendParams, { message: sent }).message, { kind: 'message', ...kept }, "a caller's message/send reads it whole");
  });
}

t.test("a remote's file part: a name past 1,024 characters or a type past 256 is refused naming the field; its odd type is read as it is", async (t) => {
  const answer = (file: Obj) => ({
    kind: 'task',
    id: 'r-1',
    contextId: 'c-1',
    status: { state: 'completed', timestamp: TS1 },
    artifacts: [{ artifactId: 'a', parts: [{ kind: 'file', file: { uri: 'https://f.example/a', ...file } }] }],
  });
  t.throws(() => decodeRemoteTask(answer({ name: 'n'.repeat(1025) }), { receivedAt: TS0 }), /artifacts\.0\.parts\.0\.file\.name/);
  t.throws(() => decodeRemoteTask(answer({ mimeType: `text/${'x'.repeat(300)}` }), { receivedAt: TS0 }), /file\.mimeType/);
  const odd = decodeRemoteTask(answer({ name: 'n'.repeat(1024), mimeType: 'pdf' }), { receivedAt: TS0 });
  t.strictSame(odd.artifacts[0]?.parts[0], { kind: 'file', file: { uri: 'https://f.example/a', name: 'n'.repeat(1024), mimeType: 'pdf' } });
});

t.test("kept fields: a rev B caller's text or data part saying a mediaType or filename (not 0.3 fields) is read without them", async (t) => {
  const p = parseParams(SendParams, {
    message: {
      role: 'user',
      messageId: 'm',
      parts: [
        { kind: 'text', text: 'x', mediaType: 'text/html', filename: 'x.html' },
        { kind: 'data', data: {}, mediaType: 'a/b', filename: 'a.json' },
      ],
    },
  });
  t.strictSame(p.message.parts, [
    { kind: 'text', text: 'x' },
    { kind: 'data', data: {} },
  ]);
});

t.test('kept fields are bounded in rev B too: too many extensions or referenced tasks are refused naming the field', async (t) => {
  const base = { role: 'user', messageId: 'm', parts: [text('x')] };
  /** the path a refusal names (undefined: accepted) */
  const refusedAt = (message: Obj): unknown => {
    try {
      parseParams(SendParams, { message });
    } catch (e) {
      return e instanceof RpcError ? e.data?.path : e;
    }
    return undefined;
  };
  const many = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i));
  t.equal(refusedAt({ ...base, extensions: many(65, (i) => `https://e.example/${i}`) }), 'params.message.extensions');
  t.equal(refusedAt({ ...base, referenceTaskIds: many(65, (i) => `t-${i}`) }), 'params.message.referenceTaskIds');
  t.equal(refusedAt({ ...base, referenceTaskIds: ['x'.repeat(257)] }), 'params.message.referenceTaskIds.0');
  t.equal(refusedAt({ ...base, extensions: many(64, (i) => `u:${i}`), referenceTaskIds: many(64, (i) => `t-${i}`) }), undefined, 'the limits themselves pass');
});

// ---------------------------------------------------------------------------------------------------------------
// Stream events
// ---------------------------------------------------------------------------------------------------------------

interface EventCase {
  name: string;
  ev: TaskEvent;
  A: unknown;
  B: unknown;
}
const where = { id: 'task-1', contextId: 'ctx-1' };

const EVENT_CASES: EventCase[] = [
  {
    name: 'status working, not final',
    ev: { seq: 2, kind: 'status', status: { state: 'working', timestamp: TS0 }, final: false },
    A: { id: 'task-1', status: { state: 'working', timestamp: TS0 }, final: false },
    B: { kind: 'status-update', taskId: 'task-1', contextId: 'ctx-1', status: { state: 'working', timestamp: TS0 }, final: false },
  },
  {
    name: 'status input-required with the question, final',
    ev: { seq: 3, kind: 'status', status: { state: 'input-required', message: agentMsg('Which city?', 'm-5'), timestamp: TS1 }, final: true },
    A: { id: 'task-1', status: { state: 'input-required', message: agentA('Which city?'), timestamp: TS1 }, final: true },
    B: {
      kind: 'status-update',
      taskId: 'task-1',
      contextId: 'ctx-1',
      status: { state: 'input-required', message: agentB('Which city?', 'm-5'), timestamp: TS1 },
      final: true,
    },
  },
  {
    name: 'status failed with its reason, final',
    ev: { seq: 4, kind: 'status', status: { state: 'failed', message: agentMsg('Too slow', 'm-6', { reason: 'timeout' }), timestamp: TS1 }, final: true },
    A: { id: 'task-1', status: { state: 'failed', message: agentA('Too slow', { reason: 'timeout' }), timestamp: TS1 }, final: true },
    B: {
      kind: 'status-update',
      taskId: 'task-1',
      contextId: 'ctx-1',
      status: { state: 'failed', message: agentB('Too slow', 'm-6', { reason: 'timeout' }), timestamp: TS1 },
      final: true,
    },
  },
  {
    name: 'status completed, final',
    ev: { seq: 5, kind: 'status', status: { state: 'completed', timestamp: TS1 }, final: true },
    A: { id: 'task-1', status: { state: 'completed', timestamp: TS1 }, final: true },
    B: { kind: 'status-update', taskId: 'task-1', contextId: 'ctx-1', status: { state: 'completed', timestamp: TS1 }, final: true },
  },
  {
    name: 'a whole artifact (last chunk)',
    ev: {
      seq: 6,
      kind: 'artifact',
      artifact: { artifactId: 'sum', index: 0, name: 'summary', parts: [{ kind: 'text', text: 'short' }], lastChunk: true },
      append: false,
      lastChunk: true,
    },
    A: { id: 'task-1', artifact: { name: 'summary', parts: [{ type: 'text', text: 'short' }], index: 0, append: false, lastChunk: true } },
    B: {
      kind: 'artifact-update',
      taskId: 'task-1',
      contextId: 'ctx-1',
      artifact: { artifactId: 'sum', name: 'summary', parts: [{ kind: 'text', text: 'short' }] },
      append: false,
      lastChunk: true,
    },
  },
  {
    name: 'an appended file chunk, more to come',
    ev: {
      seq: 7,
      kind: 'artifact',
      // the event's flags win over what the chunk itself says
      artifact: { artifactId: 'img', index: 2, parts: [{ kind: 'file', file: { mimeType: 'image/png', bytes: 'iVBO' } }], append: false, lastChunk: true },
      append: true,
      lastChunk: false,
    },
    A: { id: 'task-1', artifact: { parts: [{ type: 'file', file: { mimeType: 'image/png', bytes: 'iVBO' } }], index: 2, append: true, lastChunk: false } },
    B: {
      kind: 'artifact-update',
      taskId: 'task-1',
      contextId: 'ctx-1',
      artifact: { artifactId: 'img', parts: [{ kind: 'file', file: { mimeType: 'image/png', bytes: 'iVBO' } }] },
      append: true,
      lastChunk: false,
    },
  },
];

for (const c of EVENT_CASES) {
  t.test(`stream event: ${c.name}`, async (t) => {
    const a = encodeEvent('A', where, c.ev);
    const b = encodeEvent('B', where, c.ev);
    t.strictSame(a, c.A, 'rev A');
    t.strictSame(b, c.B, 'rev B');
    t.notOk(/"kind":/.test(JSON.stringify(a)), 'rev A: no kind anywhere');
    t.notOk(/"type":/.test(JSON.stringify(b)), 'rev B: no type anywhere');
  });
}

t.test('stream events from a task change: artifacts first, then the status, final only when settled', async (t) => {
  const before = task({
    status: { state: 'working', timestamp: TS0 },
    artifacts: [{ artifactId: 'a', index: 0, parts: [{ kind: 'text', text: 'x' }], lastChunk: false }],
  });
  const grown = { ...before.artifacts[0]!, parts: [...before.artifacts[0]!.parts, { kind: 'text' as const, text: 'y' }], lastChunk: true };
  const after: Task = { ...before, artifacts: [grown], status: { state: 'completed', timestamp: TS1 } };
  const evs = diffTask(before, after).map((e, i) => ({ ...e, seq: i + 1 }) as TaskEvent);
  t.strictSame(
    evs.map((e) => encodeEvent('B', where, e)),
    [
      {
        kind: 'artifact-update',
        taskId: 'task-1',
        contextId: 'ctx-1',
        artifact: { artifactId: 'a', parts: [{ kind: 'text', text: 'y' }] },
        append: true,
        lastChunk: true,
      },
      { kind: 'status-update', taskId: 'task-1', contextId: 'ctx-1', status: { state: 'completed', timestamp: TS1 }, final: true },
    ],
    'rev B: only the new part, appended, then the final status',
  );
  t.strictSame(
    evs.map((e) => encodeEvent('A', where, e)),
    [
      { id: 'task-1', artifact: { parts: [{ type: 'text', text: 'y' }], index: 0, append: true, lastChunk: true } },
      { id: 'task-1', status: { state: 'completed', timestamp: TS1 }, final: true },
    ],
    'rev A: the same two',
  );
  const working = diffTask(after, { ...after, status: { state: 'working', timestamp: TS1 } });
  t.strictSame(
    working.map((e) => e.kind === 'status' && e.final),
    [false],
    'a working status is not final',
  );
});

t.test('rev A opening: an artifact says the lastChunk its live event said (a whole artifact with none is the last chunk)', async (t) => {
  const done: Task = task({
    status: { state: 'completed', timestamp: TS1 },
    artifacts: [
      { artifactId: 'whole', index: 0, parts: [{ kind: 'text', text: 'echo' }] },
      { artifactId: 'cut', index: 1, parts: [{ kind: 'text', text: 'part' }], lastChunk: false },
    ],
  });
  const live = diffTask(undefined, done)
    .filter((e) => e.kind === 'artifact')
    .map((e, i) => encodeEvent('A', where, { ...e, seq: i + 1 } as TaskEvent) as { artifact: { lastChunk?: boolean } });
  const opening = codecs.A.openingEvents(taskView(done, FULL), true).slice(0, 2) as { artifact: { lastChunk?: boolean } }[];
  t.strictSame(
    opening.map((e) => e.artifact.lastChunk),
    live.map((e) => e.artifact.lastChunk),
    'the same lastChunk as the live events',
  );
  t.strictSame(
    opening.map((e) => e.artifact.lastChunk),
    [true, false],
  );
});

// ---------------------------------------------------------------------------------------------------------------
// Push configs and dialect choice
// ---------------------------------------------------------------------------------------------------------------

t.test('push configs: per dialect, secrets masked', async (t) => {
  const cfg: StoredPushConfig = {
    id: 'cfg-1',
    taskId: 'task-1',
    url: 'https://hooks.example/a2a',
    token: 'tok-secret',
    authentication: { schemes: ['Bearer'], credentials: 'cred-secret' },
    keyId: 'key-1',
    createdAt: T0,
    disabled: false,
  };
  t.strictSame(codecs.A.pushConfig(cfg, 'task-1'), {
    id: 'task-1',
    pushNotificationConfig: { url: 'https://hooks.example/a2a', token: WRITE_ONLY_MASK, authentication: { schemes: ['Bearer'], credentials: WRITE_ONLY_MASK } },
  });
  t.strictSame(codecs.B.pushConfig(cfg, 'task-1'), {
    taskId: 'task-1',
    pushNotificationConfig: {
      id: 'cfg-1',
      url: 'https://hooks.example/a2a',
      token: WRITE_ONLY_MASK,
      authentication: { schemes: ['Bearer'], credentials: WRITE_ONLY_MASK },
    },
  });
  const bare = { id: 'cfg-2', taskId: 'task-1', url: 'https://hooks.example/b', createdAt: T0, disabled: false };
  t.strictSame(
    (codecs.B.pushConfig(bare, 'task-1') as Obj).pushNotificationConfig,
    { id: 'cfg-2', url: 'https://hooks.example/b' },
    'nothing masked when nothing is set',
  );
});

t.test('dialect by method name and by A2A-Version header', async (t) => {
  const methods: Array<[string, Dialect | undefined]> = [
    ['tasks/send', 'A'],
    ['tasks/sendSubscribe', 'A'],
    ['message/send', 'B'],
    ['message/sendStream', 'B'],
    ['message/stream', 'B'],
    ['tasks/pushNotificationConfig/set', 'B'],
    ['tasks/pushNotificationConfig/list', 'B'],
    ['tasks/get', undefined],
    ['tasks/cancel', undefined],
    ['tasks/resubscribe', undefined],
    ['tasks/pushNotification/set', undefined],
  ];
  for (const [m, d] of methods) t.equal(dialectOfMethod(m), d, m);
  const headers: Array<[string | undefined, Dialect | undefined]> = [
    ['0.1', 'A'],
    ['0.1.0', 'A'],
    [' 0.2.5 ', 'B'],
    ['0.3', 'B'],
    ['1.0', undefined],
    ['', undefined],
    [undefined, undefined],
  ];
  for (const [h, d] of headers) t.equal(dialectOfVersionHeader(h), d, `A2A-Version ${JSON.stringify(h)}`);
});

// ---------------------------------------------------------------------------------------------------------------
// Inbound: lenient parts, errors that name the path
// ---------------------------------------------------------------------------------------------------------------

const text = (s: string) => ({ kind: 'text', text: s });
const send = (message: unknown, extra: Obj = {}) => ({ message, ...extra });

interface InCase {
  name: string;
  schema: Parameters<typeof parseParams>[0];
  params: unknown;
  /** what parses out */
  ok?: unknown;
  /** or the path the error names */
  path?: string;
  /** what its message says (the path, unless given) */
  says?: string;
}

const IN_CASES: InCase[] = [
  {
    name: 'a rev A part (type)',
    schema: SendParams,
    params: send({ role: 'user', parts: [{ type: 'text', text: 'hi' }] }),
    ok: send({ role: 'user', parts: [text('hi')] }),
  },
  {
    name: 'a rev B part (kind)',
    schema: SendParams,
    params: send({ role: 'user', parts: [{ kind: 'text', text: 'hi' }] }),
    ok: send({ role: 'user', parts: [text('hi')] }),
  },
  {
    name: 'both type and kind: kind wins, type is dropped',
    schema: SendParams,
    params: send({ role: 'user', parts: [{ kind: 'text', type: 'data', text: 'hi' }] }),
    ok: send({ role: 'user', parts: [text('hi')] }),
  },
  {
    name: 'file and data parts by type, unknown part keys dropped',
    schema: SendParams,
    params: send({
      role: 'user',
      parts: [
        { type: 'file', file: { uri: 'https://x.example/f', mimeType: 'text/plain' }, extra: 1 },
        { type: 'data', data: { type: 'kept', kind: 'kept' } },
      ],
    }),
    ok: send({
      role: 'user',
      parts: [
        { kind: 'file', file: { uri: 'https://x.example/f', mimeType: 'text/plain' } },
        { kind: 'data', data: { type: 'kept', kind: 'kept' } },
      ],
    }),
  },
  {
    name: 'a rev B message with its ids and configuration',
    schema: SendParams,
    params: send(
      { kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'more' }], messageId: 'm-7', taskId: 'task-1', contextId: 'ctx-1' },
      { configuration: { blocking: false, historyLength: 0 } },
    ),
    ok: send(
      { kind: 'message', role: 'user', parts: [text('more')], messageId: 'm-7', taskId: 'task-1', contextId: 'ctx-1' },
      { configuration: { blocking: false, historyLength: 0 } },
    ),
  },
  {
    name: 'a rev A send with its id and sessionId',
    schema: SendParams,
    params: send({ role: 'user', parts: [{ type: 'text', text: 'x' }] }, { id: 'task-a', sessionId: 's-1', historyLength: 2 }),
    ok: send({ role: 'user', parts: [text('x')] }, { id: 'task-a', sessionId: 's-1', historyLength: 2 }),
  },
  { name: 'tasks/get', schema: TaskQueryParams, params: { id: 'task-1', historyLength: 0 }, ok: { id: 'task-1', historyLength: 0 } },

  { name: 'empty parts', schema: SendParams, params: send({ role: 'user', parts: [] }), path: 'params.message.parts' },
  { name: 'parts not a list', schema: SendParams, params: send({ role: 'user', parts: text('x') }), path: 'params.message.parts' },
  {
    name: 'unknown part type, said with type',
    schema: SendParams,
    params: send({ role: 'user', parts: [{ type: 'image', text: 'x' }] }),
    path: 'params.message.parts.0.type',
  },
  {
    name: 'unknown part type, said with kind',
    schema: SendParams,
    params: send({ role: 'user', parts: [{ kind: 'image', text: 'x' }] }),
    path: 'params.message.parts.0.kind',
  },
  { name: 'a part with no type at all', schema: SendParams, params: send({ role: 'user', parts: [{ text: 'x' }] }), path: 'params.message.parts.0.kind' },
  { name: 'a text part without text', schema: SendParams, params: send({ role: 'user', parts: [{ type: 'text' }] }), path: 'params.message.parts.0.text' },
  {
    name: 'the second part is bad',
    schema: SendParams,
    params: send({ role: 'user', parts: [{ type: 'text', text: 'a' }, { type: 'file' }] }),
    path: 'params.message.parts.1.file',
  },
  { name: 'missing role', schema: SendParams, params: send({ parts: [text('x')] }), path: 'params.message.role' },
  { name: 'unknown role', schema: SendParams, params: send({ role: 'system', parts: [text('x')] }), path: 'params.message.role' },
  { name: 'missing message', schema: SendParams, params: { id: 'task-1' }, path: 'params.message' },
  {
    name: 'negative historyLength (rev A)',
    schema: SendParams,
    params: send({ role: 'user', parts: [text('x')] }, { historyLength: -1 }),
    path: 'params.historyLength',
  },
  {
    name: 'negative configuration.historyLength (rev B)',
    schema: SendParams,
    params: send({ role: 'user', parts: [text('x')] }, { configuration: { historyLength: -1 } }),
    path: 'params.configuration.historyLength',
  },
  {
    name: 'fractional historyLength',
    schema: SendParams,
    params: send({ role: 'user', parts: [text('x')] }, { historyLength: 1.5 }),
    path: 'params.historyLength',
  },
  { name: 'negative historyLength on tasks/get', schema: TaskQueryParams, params: { id: 'task-1', historyLength: -3 }, path: 'params.historyLength' },
  {
    name: 'an empty key',
    schema: SendParams,
    params: { '': 1, message: { role: 'user', parts: [text('x')] } },
    path: 'params.""',
    says: 'params has an empty key',
  },
  { name: 'params not an object', schema: TaskQueryParams, params: ['task-1'], path: 'params' },
  { name: 'push set without a task id', schema: PushSetParams, params: { pushNotificationConfig: { url: 'https://h.example' } }, path: 'params.id' },
];

for (const c of IN_CASES) {
  t.test(`inbound: ${c.name}`, async (t) => {
    if (c.path === undefined) {
      t.strictSame(parseParams(c.schema, c.params), c.ok);
      return;
    }
    let caught: unknown;
    try {
      parseParams(c.schema, c.params);
    } catch (e) {
      caught = e;
    }
    t.ok(caught instanceof RpcError, 'an RpcError');
    const e = caught as RpcError;
    t.equal(e.code, -32602, 'INVALID_PARAMS');
    t.equal(e.data?.path, c.path, 'data.path names the failing field');
    t.ok(e.message.includes(c.says ?? c.path), `the message says ${c.says ?? 'it'} too: ${e.message}`);
    t.equal(e.toErrorObject().data?.reason, 'INVALID_PARAMS');
  });
}

t.test('the method table: names inherited by every object name no method', async (t) => {
  for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) t.equal(dialectOfMethod(name), undefined, name);
  t.equal(dialectOfMethod('tasks/send'), 'A');
  t.equal(dialectOfMethod('message/send'), 'B');
});
