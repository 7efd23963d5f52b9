// The client's protocol side alone, no server: a remote card read leniently and its dialect told from protocolVersion,
// send params written in each dialect, and a remote's tasks and events read back from either dialect's shape.
import t from 'tap';
import { CLIENT_CODECS } from '../../src/protocol/client-codec.js';
import type { Message } from '../../src/protocol/model.js';
import { dialectOfCard, jsonRpcUrlOf, parseRemoteCard } from '../../src/protocol/remote-card.js';
import { decodeRemoteEvent, decodeRemoteTask, RemoteDecodeError, RemoteTaskFold } from '../../src/protocol/remote-decode.js';

const ctx = { receivedAt: '2026-01-01T00:00:00.000Z' };

t.test('dialect from the card: protocolVersion 0.2.x/0.3.x is B, none or 0.1 is A, others none', async (t) => {
  t.equal(dialectOfCard({}), 'A');
  t.equal(dialectOfCard({ protocolVersion: '0.1' }), 'A');
  t.equal(dialectOfCard({ protocolVersion: '0.1.0' }), 'A');
  t.equal(dialectOfCard({ protocolVersion: '0.2.5' }), 'B');
  t.equal(dialectOfCard({ protocolVersion: '0.3.0' }), 'B');
  t.equal(dialectOfCard({ protocolVersion: '0.3' }), 'B');
  t.equal(dialectOfCard({ protocolVersion: '1.0' }), undefined);
  t.equal(dialectOfCard({ protocolVersion: '0.30' }), undefined);
});

t.test('a card is read leniently, but what is there must have its type; refusals name the field', async (t) => {
  const minimal = parseRemoteCard({ name: 'x', url: 'http://h/rpc' });
  t.ok(minimal.ok);
  if (minimal.ok) {
    t.equal(minimal.card.description, '');
    t.same(minimal.card.skills, []);
    t.equal(minimal.card.capabilities.streaming, undefined);
  }
  const rich = parseRemoteCard({ name: 'x', url: 'http://h/rpc', extra: { kept: true }, capabilities: { streaming: true, extensions: [] } });
  t.ok(rich.ok && (rich.card as any).extra.kept && rich.card.capabilities.streaming, 'unknown fields are kept');
  t.same(parseRemoteCard({ url: 'http://h' }), { ok: false, message: 'name: Invalid input: expected string, received undefined' });
  const bad = parseRemoteCard({ name: 'x', url: 'http://h', capabilities: { streaming: 'yes' } });
  t.match(bad, { ok: false, message: /^capabilities\.streaming: / });
  t.match(parseRemoteCard({ name: 'x', url: 'http://h', skills: [{ id: 's' }] }), { ok: false, message: /^skills\.0\.name: / });
  t.match(parseRemoteCard('nope'), { ok: false });
});

t.test('the JSON-RPC endpoint: url, unless the card prefers another transport', async (t) => {
  const read = (c: unknown) => {
    const v = parseRemoteCard(c);
    return v.ok ? jsonRpcUrlOf(v.card) : 'invalid';
  };
  t.equal(read({ name: 'x', url: 'http://h/rpc' }), 'http://h/rpc');
  t.equal(read({ name: 'x', url: 'http://h/rpc', preferredTransport: 'JSONRPC' }), 'http://h/rpc');
  t.equal(
    read({ name: 'x', url: 'grpc://h', preferredTransport: 'GRPC', additionalInterfaces: [{ url: 'http://h/jsonrpc', transport: 'JSONRPC' }] }),
    'http://h/jsonrpc',
  );
  t.equal(read({ name: 'x', url: 'grpc://h', preferredTransport: 'GRPC' }), undefined);
});

const msg: Message = {
  role: 'user',
  parts: [
    { kind: 'text', text: 'hi' },
    { kind: 'data', data: { n: 1 } },
  ],
  messageId: 'm-1',
  taskId: 'our-task',
  contextId: 'our-context',
  metadata: { lang: 'en' },
};

t.test('send params in rev A: tasks/send, parts by type, id and sessionId; our own ids never go', async (t) => {
  const a = CLIENT_CODECS.A;
  t.same(a.methods, { send: 'tasks/send', stream: 'tasks/sendSubscribe', get: 'tasks/get', cancel: 'tasks/cancel' });
  t.same(a.sendParams({ message: msg, taskId: 'remote-1', contextId: 'sess-1', blocking: true }), {
    id: 'remote-1',
    sessionId: 'sess-1',
    message: {
      role: 'user',
      parts: [
        { type: 'text', text: 'hi' },
        { type: 'data', data: { n: 1 } },
      ],
      metadata: { lang: 'en' },
    },
  });
  t.ok(a.clientPicksTaskId);
});

t.test('send params in rev B: message/send, kind, messageId, the remote task and context, configuration.blocking', async (t) => {
  const b = CLIENT_CODECS.B;
  t.same(b.methods, { send: 'message/send', stream: 'message/stream', get: 'tasks/get', cancel: 'tasks/cancel' });
  t.same(b.sendParams({ message: msg, blocking: false }), {
    message: {
      kind: 'message',
      role: 'user',
      parts: [
        { kind: 'text', text: 'hi' },
        { kind: 'data', data: { n: 1 } },
      ],
      messageId: 'm-1',
      metadata: { lang: 'en' },
    },
    configuration: { blocking: false },
  });
  const followUp = b.sendParams({ message: msg, taskId: 'remote-1', contextId: 'ctx-r', blocking: true }) as any;
  t.equal(followUp.message.taskId, 'remote-1');
  t.equal(followUp.message.contextId, 'ctx-r');
  t.notOk(b.clientPicksTaskId);
  t.same(b.getParams({ taskId: 't', historyLength: 0 }), { id: 't', historyLength: 0 });
  t.same(b.cancelParams({ taskId: 't' }), { id: 't' });
});

t.test('a rev A task reads into the internal model: type parts, sessionId, artifacts by index', async (t) => {
  const got = decodeRemoteTask(
    {
      id: 't1',
      sessionId: 's1',
      status: { state: 'completed', message: { role: 'agent', parts: [{ type: 'text', text: 'ok' }] }, timestamp: 'T' },
      artifacts: [{ parts: [{ type: 'file', file: { name: 'f', bytes: 'AA==' } }], index: 0 }],
      metadata: null,
    },
    ctx,
  );
  t.same(got, {
    id: 't1',
    contextId: 's1',
    status: { state: 'completed', message: { role: 'agent', parts: [{ kind: 'text', text: 'ok' }], messageId: '' }, timestamp: 'T' },
    artifacts: [{ artifactId: 'artifact-0', index: 0, parts: [{ kind: 'file', file: { name: 'f', bytes: 'AA==' } }] }],
  });
});

t.test('a rev B task reads into the internal model; 0.3 states without a twin read as the nearest one', async (t) => {
  const got = decodeRemoteTask(
    { kind: 'task', id: 't2', contextId: 'c2', status: { state: 'working' }, artifacts: [{ artifactId: 'x', parts: [{ kind: 'text', text: 'a' }] }] },
    ctx,
  );
  t.equal(got.contextId, 'c2');
  t.equal(got.status.timestamp, ctx.receivedAt, 'a status without time gets the time it was received');
  t.same(got.artifacts, [{ artifactId: 'x', index: 0, parts: [{ kind: 'text', text: 'a' }] }]);
  t.equal(decodeRemoteTask({ id: 'r', status: { state: 'rejected' } }, ctx).status.state, 'failed');
  t.equal(decodeRemoteTask({ id: 'r', status: { state: 'auth-required' } }, ctx).status.state, 'input-required');
  const asMessage = decodeRemoteTask({ kind: 'message', role: 'agent', messageId: 'm9', parts: [{ kind: 'text', text: 'just this' }] }, ctx);
  t.equal(asMessage.status.state, 'completed', 'a bare Message answer is a completed exchange');
  t.equal(asMessage.status.message?.parts[0]?.kind, 'text');
  t.throws(() => decodeRemoteTask({ id: 'r', status: { state: 'sleeping' } }, ctx), RemoteDecodeError);
  t.throws(() => decodeRemoteTask({ id: 'r', status: { state: 'completed' }, artifacts: [{ parts: [{ kind: 'video' }] }] }, ctx), {
    message: /^result\.artifacts\.0\.parts\.0/,
  });
});

t.test('stream events of both dialects, folded into the task', async (t) => {
  const bStatus = decodeRemoteEvent({ kind: 'status-update', taskId: 't', contextId: 'c', status: { state: 'working' }, final: false }, ctx);
  t.match(bStatus, { kind: 'status', taskId: 't', final: false, status: { state: 'working' } });
  const bArt = decodeRemoteEvent({ kind: 'artifact-update', taskId: 't', artifact: { artifactId: 'a', parts: [{ kind: 'text', text: '1' }] } }, ctx);
  const bMore = decodeRemoteEvent(
    { kind: 'artifact-update', taskId: 't', append: true, lastChunk: true, artifact: { artifactId: 'a', parts: [{ kind: 'text', text: '2' }] } },
    ctx,
  );
  const aStatus = decodeRemoteEvent({ id: 't', status: { state: 'completed' }, final: true }, ctx);
  t.match(aStatus, { kind: 'status', taskId: 't', final: true });
  const aArt = decodeRemoteEvent({ id: 't', artifact: { index: 1, parts: [{ type: 'text', text: 'z' }] } }, ctx);
  t.match(aArt, { kind: 'artifact', taskId: 't', artifact: { artifactId: 'artifact-1', parts: [{ kind: 'text', text: 'z' }] } });
  const aTask = decodeRemoteEvent({ id: 't', status: { state: 'submitted' } }, ctx);
  t.equal(aTask.kind, 'task', 'a status without final is a whole task');
  t.equal(decodeRemoteEvent({ id: 't', status: { state: 'failed' } }, ctx).kind, 'task');

  const fold = new RemoteTaskFold(decodeRemoteTask({ id: 't', status: { state: 'submitted' } }, ctx));
  for (const ev of [bStatus, bArt, bMore, aStatus]) fold.apply(ev);
  const task = fold.task;
  t.equal(task.status.state, 'completed');
  t.same(task.artifacts, [
    {
      artifactId: 'a',
      index: 0,
      parts: [
        { kind: 'text', text: '1' },
        { kind: 'text', text: '2' },
      ],
      lastChunk: true,
    },
  ]);
  t.throws(() => decodeRemoteEvent({ kind: 'mystery' }, ctx), { message: /kind 'mystery'/ });
  t.throws(() => decodeRemoteEvent([], ctx), RemoteDecodeError);
});

t.test('1.0 cards: supportedInterfaces name the dialect and the endpoint; 1.0 preferred when offered', async (t) => {
  const both = parseRemoteCard({
    name: 'g',
    url: 'https://g.example/a2a',
    protocolVersion: '0.3.0',
    supportedInterfaces: [
      { url: 'https://g.example/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://g.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
  });
  if (!both.ok) throw new Error(both.message);
  t.equal(dialectOfCard(both.card), 'V1');
  t.equal(jsonRpcUrlOf(both.card, 'V1'), 'https://g.example/v1');
  t.equal(jsonRpcUrlOf(both.card, 'B'), 'https://g.example/a2a', 'a forced 0.3 uses the 0.3 endpoint');
  const only1 = parseRemoteCard({ name: 'sdk1', supportedInterfaces: [{ url: 'https://s.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] });
  if (!only1.ok) throw new Error(only1.message);
  t.equal(dialectOfCard(only1.card), 'V1', 'a 1.0-only card: no url, no protocolVersion');
  t.equal(jsonRpcUrlOf(only1.card, 'V1'), 'https://s.example/rpc');
  const grpc1 = parseRemoteCard({ name: 'x', supportedInterfaces: [{ url: 'https://s.example/g', protocolBinding: 'GRPC', protocolVersion: '1.0' }] });
  t.ok(grpc1.ok);
  if (grpc1.ok) t.equal(jsonRpcUrlOf(grpc1.card, dialectOfCard(grpc1.card)), undefined, 'a 1.0 card without JSON-RPC offers no endpoint');
  t.match(parseRemoteCard({ name: 'none' }), { ok: false, message: /url/ }, 'neither url nor interfaces: refused');
});

t.test('the 1.0 client codec: PascalCase methods, 1.0 params, {task} and stream events read back', async (t) => {
  const v1 = CLIENT_CODECS.V1;
  t.same(v1.methods, { send: 'SendMessage', stream: 'SendStreamingMessage', get: 'GetTask', cancel: 'CancelTask' });
  t.equal(v1.version, '1.0');
  const p = v1.sendParams({
    message: { role: 'user', parts: [{ kind: 'text', text: 'hi' }], messageId: 'm1', taskId: 'ours', contextId: 'ours-ctx' },
    taskId: 'remote-t',
    contextId: 'remote-c',
    blocking: false,
  });
  t.same(p, {
    message: { messageId: 'm1', contextId: 'remote-c', taskId: 'remote-t', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
    configuration: { returnImmediately: true },
  });
  const ctx = { receivedAt: '2026-01-01T00:00:00.000Z' };
  const task = v1.decodeTask(
    {
      task: {
        id: 't',
        contextId: 'c',
        status: { state: 'TASK_STATE_AUTH_REQUIRED' },
        artifacts: [{ artifactId: 'a', parts: [{ data: [1, 2] }, { url: 'https://f', mediaType: 'image/png', filename: 'f.png' }] }],
      },
    },
    ctx,
  );
  t.equal(task.status.state, 'input-required', 'auth-required waits for the caller like input-required');
  t.same(task.artifacts[0]!.parts, [
    { kind: 'data', data: { value: [1, 2] } },
    { kind: 'file', file: { name: 'f.png', mimeType: 'image/png', uri: 'https://f' } },
  ]);
  t.equal(v1.decodeTask({ id: 't', status: { state: 'TASK_STATE_REJECTED' } }, ctx).status.state, 'failed', 'a bare Task; rejected is failed');
  const msg = v1.decodeTask({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'just this' }] } }, ctx);
  t.equal(msg.status.state, 'completed', 'a Message answer is a completed exchange');
  const st = v1.decodeEvent({ statusUpdate: { taskId: 't', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } }, ctx);
  t.match(st, { kind: 'status', taskId: 't', final: true }, 'an interrupted state ends the stream (1.0 has no final)');
  const art = v1.decodeEvent({ artifactUpdate: { taskId: 't', artifact: { artifactId: 'a', parts: [{ text: 'x' }] }, append: true } }, ctx);
  t.match(art, { kind: 'artifact', artifact: { artifactId: 'a', append: true } });
  t.throws(() => v1.decodeEvent({ statusUpdate: { status: { state: 'TASK_STATE_BOGUS' } } }, ctx), /statusUpdate\.status\.state/);
  t.throws(() => v1.decodeEvent({ kind: 'task' }, ctx), /not a 1\.0/);
});
