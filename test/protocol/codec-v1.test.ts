// The A2A 1.0 codec alone, no server: every 1.0 shape written from the internal model and read back by the official
// SDK 1.x's own proto-JSON types (what a 1.x client parses), every 1.0 call's params read into the internal model and
// written out again unchanged, errors that name the 1.0 field, and the exit sanitizer on 1.0 results and events.
import {
  Message as SdkMessage,
  SendMessageRequest as SdkSendMessageRequest,
  StreamResponse as SdkStreamResponse,
  Task as SdkTask,
  TaskPushNotificationConfig as SdkPushConfig,
  SendMessageResponse as SdkSendMessageResponse,
  ListTasksRequest as SdkListTasksRequest,
} from 'a2a-sdk-v1';
import t from 'tap';
import { codecs, isSupportedVersion, versionAnswersV1 } from '../../src/protocol/codec.js';
import { encodeMessageV1, STATE_V1 } from '../../src/protocol/codec-v1.js';
import { decodeRemoteEventV1, decodeRemoteTaskV1 } from '../../src/protocol/remote-decode-v1.js';
import { RpcError } from '../../src/protocol/errors.js';
import type { TaskEvent } from '../../src/protocol/events.js';
import { INTERNAL_FIELDS, WRITE_ONLY_MASK } from '../../src/protocol/internal-fields.js';
import {
  MAX_EXTENSIONS,
  MAX_FILENAME_LENGTH,
  MAX_REFERENCE_TASK_IDS,
  TaskState,
  type Artifact,
  type Message,
  type Part,
  type Task,
} from '../../src/protocol/model.js';
import { listToken } from '../../src/protocol/list-token.js';
import type { StoredPushConfig } from '../../src/protocol/records.js';
import { taskView } from '../../src/protocol/views.js';
import { toSanitizedJson } from '../../src/runtime/sanitizer.js';

type Obj = Record<string, unknown>;
const V1 = codecs.V1;
const TS0 = new Date(Date.UTC(2026, 0, 1)).toISOString();
const FULL = { results: true, files: true };

/** proto-JSON leaves out empty lists: what the SDK writes back after reading `x` */
const dropEmpty = (x: unknown): unknown => {
  if (Array.isArray(x)) return x.map(dropEmpty);
  if (typeof x !== 'object' || x === null) return x;
  const out: Obj = {};
  for (const [k, v] of Object.entries(x)) {
    if (Array.isArray(v) && v.length === 0) continue;
    if (v === false && (k === 'append' || k === 'lastChunk')) continue;
    out[k] = k === 'metadata' || k === 'data' ? v : dropEmpty(v);
  }
  return out;
};

const PARTS: Array<[string, Part, Obj]> = [
  ['text', { kind: 'text', text: 'hello' }, { text: 'hello' }],
  ['text with metadata', { kind: 'text', text: 'hi', metadata: { lang: 'en' } }, { text: 'hi', metadata: { lang: 'en' } }],
  [
    'raw bytes with media type and file name',
    { kind: 'file', file: { name: 'a.png', mimeType: 'image/png', bytes: 'iVBORw0KGgo=' } },
    { raw: 'iVBORw0KGgo=', mediaType: 'image/png', filename: 'a.png' },
  ],
  [
    'url',
    { kind: 'file', file: { uri: 'https://files.example/a.pdf', mimeType: 'application/pdf' } },
    { url: 'https://files.example/a.pdf', mediaType: 'application/pdf' },
  ],
  ['data', { kind: 'data', data: { n: 1, nested: { ok: true } } }, { data: { n: 1, nested: { ok: true } } }],
  // every 1.0 part may say its media type, not only a file
  ['text with media type', { kind: 'text', text: '# hi', mediaType: 'text/markdown' }, { text: '# hi', mediaType: 'text/markdown' }],
  [
    'data with media type and metadata',
    { kind: 'data', data: { n: 2 }, mediaType: 'application/vnd.example+json', metadata: { m: 1 } },
    { data: { n: 2 }, mediaType: 'application/vnd.example+json', metadata: { m: 1 } },
  ],
  // ... and its file name (a text part read from notes.md, a data part saved as a.json)
  ['text with file name', { kind: 'text', text: '# notes', filename: 'notes.md' }, { text: '# notes', filename: 'notes.md' }],
  [
    'data with media type and file name',
    { kind: 'data', data: { n: 3 }, mediaType: 'application/json', filename: 'a.json' },
    { data: { n: 3 }, mediaType: 'application/json', filename: 'a.json' },
  ],
];

const msg = (parts: Part[], o: Partial<Message> = {}): Message => ({ role: 'agent', parts, messageId: 'm-1', taskId: 'task-1', contextId: 'ctx-1', ...o });

const task = (o: Partial<Task> = {}): Task => ({
  id: 'task-1',
  contextId: 'ctx-1',
  workspaceId: 'ws',
  agentId: 'echo',
  dialect: 'V1',
  status: { state: 'completed', timestamp: TS0 },
  artifacts: [],
  history: [],
  metadata: {},
  createdAt: 0,
  updatedAt: 0,
  ...o,
});

t.test('parts: each 1.0 part kind, written and read back by the SDK', async (t) => {
  for (const [name, internal, wire] of PARTS) {
    const m = encodeMessageV1(msg([internal]));
    t.strictSame(m.parts, [wire], `${name}: the 1.0 part`);
    t.strictSame(SdkMessage.toJSON(SdkMessage.fromJSON(m)), m, `${name}: the SDK reads and writes it unchanged`);
  }
});

t.test('messages: roles as ROLE_*, ids, metadata', async (t) => {
  const agent = encodeMessageV1(msg([{ kind: 'text', text: 'a' }], { metadata: { x: 1 } }));
  t.strictSame(agent, { messageId: 'm-1', contextId: 'ctx-1', taskId: 'task-1', role: 'ROLE_AGENT', parts: [{ text: 'a' }], metadata: { x: 1 } });
  const user = encodeMessageV1({ role: 'user', parts: [{ kind: 'text', text: 'u' }], messageId: 'm-2' });
  t.strictSame(user, { messageId: 'm-2', role: 'ROLE_USER', parts: [{ text: 'u' }] }, 'no ids the message lacks');
  t.notOk(/"kind"/.test(JSON.stringify([agent, user])), 'no kind anywhere');
});

t.test('tasks: every state as TASK_STATE_*, artifacts, history, status message, read back by the SDK', async (t) => {
  for (const state of TaskState.options) {
    const tk = task({
      status: { state, timestamp: TS0, message: msg([{ kind: 'text', text: `now ${state}` }], { messageId: 's-1' }) },
      artifacts: [{ artifactId: 'art-1', index: 0, name: 'out', description: 'the answer', parts: [{ kind: 'text', text: 'x' }], metadata: { a: 1 } }],
      history: [msg([{ kind: 'text', text: 'q' }], { role: 'user', messageId: 'u-1' })],
      metadata: { topic: 't' },
    });
    const wire = V1.task(taskView(tk, FULL)) as Obj;
    t.equal((wire.status as Obj).state, STATE_V1[state], state);
    t.strictSame(SdkTask.toJSON(SdkTask.fromJSON(wire)), dropEmpty(wire), `${state}: the SDK reads it whole`);
  }
  const bare = V1.task(taskView(task(), { ...FULL, historyLength: 0 })) as Obj;
  t.strictSame(
    bare,
    { id: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED', timestamp: TS0 }, artifacts: [], metadata: {} },
    'historyLength 0: no history field (1.0 3.2.4)',
  );
});

t.test('a task without results.read / results.files: status only; files keep name and type, no content', async (t) => {
  const tk = task({
    status: { state: 'completed', timestamp: TS0, message: msg([{ kind: 'text', text: 'secret' }]) },
    artifacts: [{ artifactId: 'f', index: 0, parts: [{ kind: 'file', file: { name: 'a.png', mimeType: 'image/png', bytes: 'AAAA' } }] }],
  });
  const noResults = V1.task(taskView(tk, { results: false, files: false })) as Obj;
  t.strictSame(noResults.status, { state: 'TASK_STATE_COMPLETED', timestamp: TS0 });
  t.strictSame(noResults.artifacts, []);
  const noFiles = V1.task(taskView(tk, { results: true, files: false })) as Obj;
  t.strictSame((noFiles.artifacts as Obj[])[0]!.parts, [{ mediaType: 'image/png', filename: 'a.png' }]);
});

t.test('results of a send and stream events: {task}, {statusUpdate}, {artifactUpdate}, read back by the SDK', async (t) => {
  const v = taskView(task(), FULL);
  const sent = V1.sendResult(v) as Obj;
  t.strictSame(Object.keys(sent), ['task']);
  t.strictSame(SdkSendMessageResponse.toJSON(SdkSendMessageResponse.fromJSON(sent)), dropEmpty(sent), 'SendMessageResponse');
  const opening = V1.openingEvents(v, true);
  t.strictSame(opening, [sent], 'a stream opens with the task');

  const where = { id: 'task-1', contextId: 'ctx-1' };
  const events: Array<[string, TaskEvent, Obj]> = [
    [
      'status',
      { seq: 1, kind: 'status', status: { state: 'working', timestamp: TS0 }, final: false },
      { statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING', timestamp: TS0 } } },
    ],
    [
      'final status with a message',
      { seq: 2, kind: 'status', status: { state: 'input-required', timestamp: TS0, message: msg([{ kind: 'text', text: 'more?' }]) }, final: true },
      {
        statusUpdate: {
          taskId: 'task-1',
          contextId: 'ctx-1',
          status: { state: 'TASK_STATE_INPUT_REQUIRED', message: encodeMessageV1(msg([{ kind: 'text', text: 'more?' }])), timestamp: TS0 },
        },
      },
    ],
    [
      'artifact chunk',
      { seq: 3, kind: 'artifact', artifact: { artifactId: 'a', index: 0, parts: [{ kind: 'text', text: 'y' }] }, append: true, lastChunk: false },
      { artifactUpdate: { taskId: 'task-1', contextId: 'ctx-1', artifact: { artifactId: 'a', parts: [{ text: 'y' }] }, append: true, lastChunk: false } },
    ],
  ];
  for (const [name, ev, wire] of events) {
    const out = V1.event(where, ev) as Obj;
    t.strictSame(out, wire, name);
    t.strictSame(SdkStreamResponse.toJSON(SdkStreamResponse.fromJSON(out)), dropEmpty(out), `${name}: a StreamResponse the SDK reads`);
  }
});

// What the gateway once dropped: a message's extensions and referenceTaskIds, an artifact's extensions, a text or data
// part's mediaType. Each row: the internal value, its 1.0 form; written, read back by the SDK, read by our decoders.
const EXT = ['https://ext.example/a2a/trace/v1', 'https://ext.example/a2a/cost/v2'];
const KEPT_MESSAGES: Array<[string, Message, Obj]> = [
  [
    'extensions and referenceTaskIds',
    msg([{ kind: 'text', text: 'see those' }], { extensions: EXT, referenceTaskIds: ['task-0', 'task-00'] }),
    {
      messageId: 'm-1',
      contextId: 'ctx-1',
      taskId: 'task-1',
      role: 'ROLE_AGENT',
      parts: [{ text: 'see those' }],
      extensions: EXT,
      referenceTaskIds: ['task-0', 'task-00'],
    },
  ],
  [
    'media types on text and data parts beside a file',
    msg(
      [
        { kind: 'text', text: '<b>x</b>', mediaType: 'text/html' },
        { kind: 'data', data: { a: 1 }, mediaType: 'application/json' },
        { kind: 'file', file: { name: 'a.txt', mimeType: 'text/plain', uri: 'https://f.example/a.txt' } },
      ],
      { extensions: [EXT[0]!] },
    ),
    {
      messageId: 'm-1',
      contextId: 'ctx-1',
      taskId: 'task-1',
      role: 'ROLE_AGENT',
      parts: [
        { text: '<b>x</b>', mediaType: 'text/html' },
        { data: { a: 1 }, mediaType: 'application/json' },
        { url: 'https://f.example/a.txt', mediaType: 'text/plain', filename: 'a.txt' },
      ],
      extensions: [EXT[0]!],
    },
  ],
  [
    'file names on text and data parts',
    msg([
      { kind: 'text', text: '# notes', mediaType: 'text/markdown', filename: 'notes.md' },
      { kind: 'data', data: { a: 1 }, filename: 'a.json' },
    ]),
    {
      messageId: 'm-1',
      contextId: 'ctx-1',
      taskId: 'task-1',
      role: 'ROLE_AGENT',
      parts: [
        { text: '# notes', mediaType: 'text/markdown', filename: 'notes.md' },
        { data: { a: 1 }, filename: 'a.json' },
      ],
    },
  ],
];
const KEPT_ARTIFACT: Artifact = {
  artifactId: 'art-x',
  index: 0,
  name: 'report',
  parts: [{ kind: 'text', text: '# r', mediaType: 'text/markdown', filename: 'r.md' }],
  extensions: EXT,
};

t.test('kept fields: 1.0 messages with extensions, referenceTaskIds and part media types, both ways', async (t) => {
  for (const [name, internal, wire] of KEPT_MESSAGES) {
    const out = encodeMessageV1(internal);
    t.strictSame(out, wire, `${name}: written`);
    t.strictSame(SdkMessage.toJSON(SdkMessage.fromJSON(out)), out, `${name}: the SDK reads and writes it unchanged`);
    // a caller's SendMessage (role user) and a remote's answer ({message}) read back to the same internal message
    const sent = V1.read.send({ message: { ...wire, role: 'ROLE_USER' } });
    t.strictSame(sent.message, { ...internal, role: 'user' }, `${name}: a caller's SendMessage reads it whole`);
    const answered = decodeRemoteTaskV1({ message: wire }, { receivedAt: TS0 });
    t.strictSame(answered.status.message, internal, `${name}: a remote's answer reads it whole`);
  }
});

t.test('kept fields: 1.0 artifacts with extensions, in a task and a stream event, both ways', async (t) => {
  const tk = task({ artifacts: [KEPT_ARTIFACT], history: [KEPT_MESSAGES[0]![1]] });
  const wire = V1.task(taskView(tk, FULL)) as Obj;
  const art = { artifactId: 'art-x', name: 'report', parts: [{ text: '# r', mediaType: 'text/markdown', filename: 'r.md' }], extensions: EXT };
  t.strictSame(wire.artifacts, [art], 'the task writes the artifact whole');
  t.strictSame(wire.history, [KEPT_MESSAGES[0]![2]], 'and its history');
  t.strictSame(SdkTask.toJSON(SdkTask.fromJSON(wire)), dropEmpty(wire), 'the SDK reads the task whole');
  const back = decodeRemoteTaskV1(wire, { receivedAt: TS0 });
  t.strictSame(back.artifacts, [KEPT_ARTIFACT], "a remote's task reads the artifact back");
  t.strictSame(back.history, [KEPT_MESSAGES[0]![1]], '... and the history');
  const ev = V1.event({ id: 'task-1', contextId: 'ctx-1' }, { seq: 1, kind: 'artifact', artifact: KEPT_ARTIFACT, append: false, lastChunk: true }) as Obj;
  t.strictSame((ev.artifactUpdate as Obj).artifact, art, 'an artifact event writes it');
  const decoded = decodeRemoteEventV1(ev, { receivedAt: TS0 });
  t.strictSame(
    decoded.kind === 'artifact' && decoded.artifact,
    { ...KEPT_ARTIFACT, append: false, lastChunk: true },
    "a remote's artifact event reads it back",
  );
});

t.test('kept fields are bounded: too many extensions or referenced tasks, an overlong media type, refused naming the field', async (t) => {
  const base = { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'a' }] };
  const cases: Array<[string, Obj, string]> = [
    [
      'extensions past the limit',
      { ...base, extensions: Array.from({ length: MAX_EXTENSIONS + 1 }, (_, i) => `https://e.example/${i}`) },
      'params.message.extensions',
    ],
    ['an overlong extension URI', { ...base, extensions: [`https://e.example/${'x'.repeat(3000)}`] }, 'params.message.extensions.0'],
    [
      'referenced tasks past the limit',
      { ...base, referenceTaskIds: Array.from({ length: MAX_REFERENCE_TASK_IDS + 1 }, (_, i) => `t-${i}`) },
      'params.message.referenceTaskIds',
    ],
    ['an empty referenced task id', { ...base, referenceTaskIds: [''] }, 'params.message.referenceTaskIds.0'],
    ['an overlong media type on a text part', { ...base, parts: [{ text: 'a', mediaType: `text/${'x'.repeat(300)}` }] }, 'params.message.parts.0.mediaType'],
    [
      'an overlong file name on a data part',
      { ...base, parts: [{ text: 'a' }, { data: {}, filename: `${'x'.repeat(MAX_FILENAME_LENGTH)}.json` }] },
      'params.message.parts.1.filename',
    ],
    [
      'an overlong file name on a file part',
      { ...base, parts: [{ raw: 'AAAA', filename: 'x'.repeat(MAX_FILENAME_LENGTH + 1) }] },
      'params.message.parts.0.filename',
    ],
    [
      'a media type not type/subtype on a file part',
      { ...base, parts: [{ url: 'https://f.example/a', mediaType: 'pdf' }] },
      'params.message.parts.0.mediaType',
    ],
  ];
  for (const [name, message, path] of cases) {
    const e = (() => {
      try {
        V1.read.send({ message });
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    t.ok(e instanceof RpcError, `${name}: refused`);
    t.equal(e instanceof RpcError && e.data?.path, path, `${name}: names ${path}`);
  }
  const atLimit = V1.read.send({ message: { ...base, extensions: Array.from({ length: MAX_EXTENSIONS }, (_, i) => `https://e.example/${i}`) } });
  t.equal(atLimit.message.extensions?.length, MAX_EXTENSIONS, 'the limit itself is accepted');
  const longName = 'x'.repeat(MAX_FILENAME_LENGTH);
  const named = V1.read.send({ message: { ...base, parts: [{ text: 'a', filename: longName }] } });
  t.strictSame(named.message.parts, [{ kind: 'text', text: 'a', filename: longName }], 'a file name at the limit is accepted');
  // a remote's overlong file name on a text part is refused naming it, as a caller's is
  const remote = { message: { messageId: 'r', role: 'ROLE_AGENT', parts: [{ text: 'a', filename: `${longName}.md` }] } };
  t.throws(() => decodeRemoteTaskV1(remote, { receivedAt: TS0 }), /filename/, "a remote's overlong file name is refused naming the field");
  // on a file part too: its filename and mediaType become the file's name and type
  const file = { message: { messageId: 'r', role: 'ROLE_AGENT', parts: [{ url: 'https://f.example/a', filename: `${longName}.md` }] } };
  t.throws(() => decodeRemoteTaskV1(file, { receivedAt: TS0 }), /filename/, "a remote's overlong file name on a file part is refused naming the field");
  const typed = { message: { messageId: 'r', role: 'ROLE_AGENT', parts: [{ raw: 'AAAA', mediaType: `image/${'x'.repeat(300)}` }] } };
  t.throws(() => decodeRemoteTaskV1(typed, { receivedAt: TS0 }), /mediaType/, "a remote's overlong media type on a file part is refused naming the field");
});

t.test('push configs: 1.0 shape, secrets masked, one scheme; a list is {configs}', async (t) => {
  const cfg: StoredPushConfig = {
    id: 'cfg-1',
    taskId: 'ws/task-1',
    url: 'https://hooks.example/a2a',
    token: 'tok-secret',
    authentication: { schemes: ['Bearer'], credentials: 'cred-secret' },
    createdAt: 0,
    disabled: false,
  };
  const wire = V1.pushConfig(cfg, 'task-1');
  t.strictSame(wire, {
    id: 'cfg-1',
    taskId: 'task-1',
    url: 'https://hooks.example/a2a',
    token: WRITE_ONLY_MASK,
    authentication: { scheme: 'Bearer', credentials: WRITE_ONLY_MASK },
  });
  t.strictSame(SdkPushConfig.toJSON(SdkPushConfig.fromJSON(wire)), wire, 'the SDK reads it whole');
  t.strictSame(V1.pushConfigs([cfg], 'task-1', ''), { configs: [wire], nextPageToken: '' });

  const read = V1.read.pushSet(
    SdkPushConfig.toJSON({
      tenant: '',
      id: 'c-2',
      taskId: 't-9',
      url: 'https://h.example/x',
      token: 'tk',
      authentication: { scheme: 'Basic', credentials: 'u:p' },
    }),
  );
  t.strictSame(read, {
    taskId: 't-9',
    config: { id: 'c-2', url: 'https://h.example/x', token: 'tk', authentication: { schemes: ['Basic'], credentials: 'u:p' } },
    urlPath: 'params.url',
  });
});

t.test('a 1.0 send read into the internal model and written back unchanged (SDK-written params)', async (t) => {
  for (const [name, , wirePart] of PARTS) {
    const sdkMsg = SdkMessage.fromJSON({ messageId: 'm-9', contextId: 'ctx-9', taskId: 'task-9', role: 'ROLE_USER', parts: [wirePart], metadata: { k: 'v' } });
    const params = SdkSendMessageRequest.toJSON({
      tenant: '',
      message: sdkMsg,
      configuration: { acceptedOutputModes: ['text/plain'], taskPushNotificationConfig: undefined, historyLength: 2, returnImmediately: true },
      metadata: { agentId: 'echo' },
    });
    const p = V1.read.send(params);
    t.equal(p.configuration?.blocking, false, `${name}: returnImmediately is not blocking`);
    t.equal(p.configuration?.historyLength, 2);
    t.strictSame(p.metadata, { agentId: 'echo' });
    const back = encodeMessageV1({ ...p.message, messageId: p.message.messageId! } as Message);
    t.strictSame(back, SdkMessage.toJSON(sdkMsg), `${name}: the message round-trips`);
  }
  const blocking = V1.read.send({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } });
  t.equal(blocking.configuration, undefined, 'no configuration: blocking, the default');
  const push = V1.read.send({
    message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] },
    configuration: { taskPushNotificationConfig: { url: 'https://h.example/p', token: 't' } },
  });
  t.strictSame(push.configuration?.pushNotificationConfig, { url: 'https://h.example/p', token: 't' });
});

t.test('ListTasks params: SDK-written, every state, paging', async (t) => {
  const q = V1.read.listTasks(
    SdkListTasksRequest.toJSON({
      tenant: '',
      contextId: 'ctx-1',
      status: 3,
      pageSize: 10,
      pageToken: listToken({ time: 1_780_000_000_000, id: 'task-20' }),
      historyLength: 1,
      statusTimestampAfter: TS0,
      includeArtifacts: true,
    }),
  );
  t.strictSame(q, {
    contextId: 'ctx-1',
    states: ['completed'],
    pageSize: 10,
    after: { time: 1_780_000_000_000, id: 'task-20' },
    historyLength: 1,
    includeArtifacts: true,
    statusSince: Date.parse(TS0),
  });
  t.strictSame(V1.read.listTasks({}), { pageSize: 50, includeArtifacts: false }, 'defaults: 50 a page, from the start');
  t.strictSame(V1.read.listTasks(undefined), { pageSize: 50, includeArtifacts: false }, 'params may be left out');
  t.strictSame(V1.read.listTasks({ status: 'TASK_STATE_REJECTED' }).states, [], 'a state the gateway never holds matches nothing');
  for (const [state, v1] of Object.entries(STATE_V1)) t.strictSame(V1.read.listTasks({ status: v1 }).states, [state], v1);
});

const BAD: Array<[string, string, unknown, string]> = [
  [
    'SendMessage',
    'a part with two contents',
    { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'a', url: 'https://x' }] } },
    'params.message.parts.0',
  ],
  ['SendMessage', 'a part with none', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ mediaType: 'text/plain' }] } }, 'params.message.parts.0'],
  ['SendMessage', 'a 0.3 role', { message: { messageId: 'm', role: 'user', parts: [{ text: 'a' }] } }, 'params.message.role'],
  ['SendMessage', 'no messageId', { message: { role: 'ROLE_USER', parts: [{ text: 'a' }] } }, 'params.message.messageId'],
  ['SendMessage', 'data that is not an object', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: [1, 2] }] } }, 'params.message.parts.0.data'],
  [
    'SendMessage',
    'returnImmediately not a boolean',
    { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'a' }] }, configuration: { returnImmediately: 'yes' } },
    'params.configuration.returnImmediately',
  ],
  ['ListTasks', 'a page size past 100', { pageSize: 101 }, 'params.pageSize'],
  ['ListTasks', 'a page token not given out', { pageToken: 'abc' }, 'params.pageToken'],
  ['ListTasks', 'a 0.3 state name', { status: 'completed' }, 'params.status'],
  ['ListTasks', 'a time that is not one', { statusTimestampAfter: 'yesterday' }, 'params.statusTimestampAfter'],
  ['CreateTaskPushNotificationConfig', 'no taskId', { url: 'https://h.example' }, 'params.taskId'],
  ['GetTaskPushNotificationConfig', 'no config id', { taskId: 't' }, 'params.id'],
];

t.test('bad 1.0 params: INVALID_PARAMS naming the 1.0 field', async (t) => {
  const readers: Record<string, (p: unknown) => unknown> = {
    SendMessage: V1.read.send,
    ListTasks: V1.read.listTasks,
    CreateTaskPushNotificationConfig: V1.read.pushSet,
    GetTaskPushNotificationConfig: V1.read.pushGet,
  };
  for (const [method, name, params, path] of BAD) {
    const e = (() => {
      try {
        readers[method]!(params);
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    t.ok(e instanceof RpcError, `${method}, ${name}: refused`);
    if (!(e instanceof RpcError)) continue;
    t.equal(e.reason, 'INVALID_PARAMS');
    t.equal(e.data?.path, path, `${method}, ${name}: names ${path}`);
  }
});

t.test('the exit sanitizer strips internal fields from 1.0 results and events at any depth', async (t) => {
  const INTERNAL = Object.fromEntries([...INTERNAL_FIELDS].map((k) => [k, `leak-${k}`]));
  const tk = task({
    metadata: { ...INTERNAL, keep: 1 },
    status: { state: 'completed', timestamp: TS0, message: msg([{ kind: 'data', data: { deep: { ...INTERNAL } } }], { metadata: { ...INTERNAL } }) },
    artifacts: [{ artifactId: 'a', index: 0, parts: [{ kind: 'text', text: 'x', metadata: { ...INTERNAL } }], metadata: { ...INTERNAL } }],
    history: [msg([{ kind: 'text', text: 'q' }], { metadata: { nested: { ...INTERNAL } } })],
  });
  const v = taskView(tk, FULL);
  const outs = [
    V1.task(v),
    V1.sendResult(v),
    ...V1.openingEvents(v, true),
    V1.event(tk, { seq: 1, kind: 'status', status: tk.status, final: true }),
    V1.event(tk, { seq: 2, kind: 'artifact', artifact: tk.artifacts[0]!, append: false, lastChunk: true }),
  ];
  for (const out of outs) {
    const json = toSanitizedJson(out);
    for (const f of INTERNAL_FIELDS) t.notOk(json.includes(`leak-${f}`), `${f} stripped: ${json.slice(0, 40)}`);
  }
  t.match(JSON.parse(toSanitizedJson(V1.task(v))).metadata, { keep: 1 }, 'the rest of the metadata stays');
});

t.test('A2A-Version: supported versions, and which errors read as 1.0', async (t) => {
  for (const v of [undefined, '', '0.1', '0.2.5', '0.3', '0.3.0', '1.0', ' 1.0 ', '1', '1.0.2']) t.ok(isSupportedVersion(v), `${JSON.stringify(v)} is spoken`);
  for (const v of ['0.4', '1.1', '2.0', '9.9', 'latest', '1.0-beta']) t.notOk(isSupportedVersion(v), `${v} is not`);
  t.ok(versionAnswersV1('1.0'));
  t.ok(versionAnswersV1('2.0'));
  t.notOk(versionAnswersV1('0.3'));
  t.notOk(versionAnswersV1(undefined));
});

t.test('errors in 1.0 shape: 1.0 codes, ErrorInfo in data; gateway conditions outside 1.0 range', async (t) => {
  const nf = new RpcError('TASK_NOT_FOUND', { message: 'Task not found: x', data: { id: 'x' } }).toErrorObjectV1();
  t.strictSame(nf, {
    code: -32001,
    message: 'Task not found: x',
    data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { id: 'x' } }],
  });
  const codes: Array<[ConstructorParameters<typeof RpcError>[0], number]> = [
    ['UNAUTHORIZED', -32050],
    ['SCOPE_INSUFFICIENT', -32051],
    ['RATE_LIMITED', -32052],
    ['AGENT_NOT_FOUND', -32053],
    ['TASK_NOT_CANCELABLE', -32002],
    ['VERSION_NOT_SUPPORTED', -32009],
    ['INVALID_PARAMS', -32602],
    ['METHOD_NOT_FOUND', -32601],
  ];
  for (const [reason, code] of codes) t.equal(new RpcError(reason).toErrorObjectV1().code, code, reason);
  const issues = new RpcError('INVALID_PARAMS', { data: { path: 'params.x', issues: [{ path: 'params.x' }] } }).toErrorObjectV1();
  t.strictSame(issues.data[0]!.metadata, { path: 'params.x', issues: '[{"path":"params.x"}]' }, 'metadata values are strings');
});
