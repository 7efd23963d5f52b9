// ctx.call from module agents, through the real pool and worker runner, to a stand-in for the connection layer.
import t from 'tap';
import { AgentSpec, type AgentEvent } from '../../src/protocol/agent-events.js';
import type { RemoteEvent, RemoteTask } from '../../src/protocol/connections.js';
import type { Task, TaskState } from '../../src/protocol/model.js';
import { OutboundError } from '../../src/runtime/a2a-client/types.js';
import type { OutboundCall, OutboundCalls } from '../../src/runtime/agents/outbound-calls.js';
import { TurnCancel } from '../../src/runtime/agents/turn-signal.js';
import { createWorkerRunner } from '../../src/runtime/agents/worker-runner.js';
import type { Log } from '../../src/runtime/log.js';
import { createAgentPool } from '../../src/runtime/pool/index.js';
import { fixture, userMessage } from './pool-helpers.js';

const pool = createAgentPool({ minThreads: 1, maxThreads: 2 });
t.teardown(() => pool.destroy());

const WORKSPACE = 'ws-calls';

const remoteTask = (text: string, state: TaskState = 'completed'): RemoteTask => ({
  id: 'remote-1',
  contextId: 'remote-ctx',
  status: { state, timestamp: '2025-01-01T00:00:00.000Z', message: { role: 'agent', messageId: 'rm-1', parts: [{ kind: 'text', text }] } },
  artifacts: [],
});

const textOf = (c: OutboundCall): string => c.message.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');

const WORKING: RemoteEvent = { kind: 'status', taskId: 'remote-1', status: { state: 'working', timestamp: '2025-01-01T00:00:00.000Z' }, final: false };

/**
 * Stands in for the connection layer (the lead builds the real one): records every call. `hold` is held until its
 * signal aborts (a streaming one sends WORKING first), `ping` is answered at once, `after-abort` once the held call's
 * signal aborted; anything else goes to `serve`. `seen` resolves with the held call, `aborted` with its abort reason.
 */
function standIn(serve: (c: OutboundCall) => Promise<RemoteTask> = async () => remoteTask('should not happen')) {
  const calls: OutboundCall[] = [];
  let markSeen: (c: OutboundCall) => void = () => {};
  const seen = new Promise<OutboundCall>((resolve) => {
    markSeen = resolve;
  });
  const aborted = seen.then((c) => new Promise<unknown>((resolve) => c.signal.addEventListener('abort', () => resolve(c.signal.reason), { once: true })));
  const impl: OutboundCalls = {
    call(c) {
      calls.push(c);
      switch (textOf(c)) {
        case 'hold':
          markSeen(c);
          c.onEvent?.(WORKING);
          return new Promise((_, reject) => c.signal.addEventListener('abort', () => reject(new OutboundError('canceled', 'stopped waiting')), { once: true }));
        case 'ping':
          return Promise.resolve(remoteTask('pong'));
        case 'after-abort':
          return aborted.then(() => remoteTask('saw the abort'));
        default:
          return serve(c);
      }
    },
  };
  return { impl, calls, seen, aborted };
}

const taskOf = (agentId: string): Task => ({
  id: 'task-1',
  contextId: 'ctx-1',
  workspaceId: WORKSPACE,
  agentId,
  dialect: 'B',
  status: { state: 'working', timestamp: new Date(0).toISOString() },
  artifacts: [],
  history: [],
  metadata: {},
  createdAt: 0,
  updatedAt: 0,
});

/** One turn of a module agent through the worker runner; `reports` are the data parts the agent yielded. */
async function turn(o: {
  calls?: OutboundCalls;
  entry?: string;
  options?: Record<string, unknown>;
  text?: string;
  timeoutMs?: number;
  signal?: TurnCancel;
  log?: Log;
}) {
  const agent = AgentSpec.parse({
    id: 'caller',
    name: 'caller',
    kind: 'module',
    workspace: WORKSPACE,
    entry: o.entry ?? fixture('caller.js'),
    options: o.options ?? {},
    ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
  });
  const runner = createWorkerRunner({ pool, log: o.log ?? (() => {}), ...(o.calls ? { calls: o.calls } : {}) });
  const events: AgentEvent[] = [];
  const result = await runner.run({
    agent,
    task: taskOf(agent.id),
    message: userMessage(o.text ?? 'hello'),
    signal: o.signal ?? new TurnCancel(),
    onEvent: (ev) => events.push(ev),
  });
  const reports = events.flatMap((e) => (e.type === 'artifact' ? e.artifact.parts.flatMap((p) => (p.kind === 'data' ? [p.data] : [])) : []));
  return { result, reports };
}

t.test('a call resolves with the remote final task, and the agent yields it', async (t) => {
  const s = standIn(async (c) => remoteTask(`echo: ${textOf(c)}`));
  const { result, reports } = await turn({ calls: s.impl, text: 'hi there' });
  t.same(result, { ok: true, events: 2 });
  t.same(reports, [{ task: remoteTask('echo: hi there') }]);
  t.equal(s.calls.length, 1);
  const c = s.calls[0]!;
  t.match(c, {
    workspace: WORKSPACE,
    agentId: 'caller',
    connection: 'peer',
    stream: false,
    message: { role: 'user', parts: [{ kind: 'text', text: 'hi there' }] },
  });
  t.type(c.message.messageId, 'string');
  t.ok(c.message.messageId.length > 0, 'the message got an id');
  t.equal(c.onEvent, undefined, 'a call without stream gets no event callback');
  t.same(pool.stats().calls.open, 0, 'nothing left open');
});

t.test('a message given as parts, with metadata, extensions and a remote task to continue, reaches the handler as given', async (t) => {
  const s = standIn(async () => remoteTask('thanks', 'completed'));
  const message = {
    parts: [
      { kind: 'text', text: 'the answer' },
      { kind: 'data', data: { n: 42 } },
    ],
    metadata: { note: 'follow-up' },
    extensions: ['https://ext.example/a2a/trace/v1'],
    taskId: 'remote-1',
    contextId: 'remote-ctx',
  };
  const { reports } = await turn({ calls: s.impl, options: { mode: 'args', args: ['peer', message] } });
  t.same(reports, [{ task: remoteTask('thanks') }]);
  t.match(s.calls[0]?.message, { role: 'user', ...message });
});

t.test('a streaming call yields every event in order, then the final task, then ends', async (t) => {
  const final = remoteTask('done');
  const emitted: RemoteEvent[] = [
    { kind: 'task', task: remoteTask('', 'submitted') },
    { kind: 'status', taskId: 'remote-1', status: { state: 'working', timestamp: '2025-01-01T00:00:01.000Z' }, final: false },
    ...Array.from(
      { length: 20 },
      (_, i): RemoteEvent => ({
        kind: 'artifact',
        taskId: 'remote-1',
        artifact: { artifactId: 'a', index: 0, parts: [{ kind: 'text', text: `chunk ${i}` }], append: i > 0 },
      }),
    ),
    { kind: 'status', taskId: 'remote-1', status: final.status, final: true },
  ];
  const s = standIn(async (c) => {
    t.equal(c.stream, true);
    for (const ev of emitted) c.onEvent?.(ev);
    return final;
  });
  const { result, reports } = await turn({ calls: s.impl, options: { mode: 'args', args: ['peer', 'go', { stream: true }] } });
  t.same(result, { ok: true, events: emitted.length + 2 });
  t.same(
    reports,
    [...emitted, { kind: 'task', task: final }].map((event) => ({ event })),
  );
});

t.test("the handler's error reaches the agent with its code and message", async (t) => {
  const refused = standIn(() => Promise.reject(new OutboundError('not_permitted', "agent 'caller' may not use connection 'peer'")));
  t.same((await turn({ calls: refused.impl })).reports, [
    { error: { name: 'CallError', code: 'not_permitted', message: "agent 'caller' may not use connection 'peer'" } },
  ]);

  const remote = standIn(() => Promise.reject(new OutboundError('remote_error', 'the remote said: Task not found', { remoteCode: -32001 })));
  t.same((await turn({ calls: remote.impl })).reports, [
    { error: { name: 'CallError', code: 'remote_error', message: 'the remote said: Task not found', remoteCode: -32001 } },
  ]);

  // a code the lead's connection layer may add later passes through as it is
  const novel = standIn(() => Promise.reject(Object.assign(new Error('refused for a new reason'), { code: 'some_new_refusal' })));
  t.same((await turn({ calls: novel.impl })).reports, [{ error: { name: 'CallError', code: 'some_new_refusal', message: 'refused for a new reason' } }]);
});

t.test('an error part-way through a stream ends the loop with it, after the events before it', async (t) => {
  const working: RemoteEvent = { kind: 'status', taskId: 'r', status: { state: 'working', timestamp: '2025-01-01T00:00:00.000Z' }, final: false };
  const s = standIn(async (c) => {
    c.onEvent?.(working);
    throw new OutboundError('unreachable', 'the remote hung up');
  });
  const { reports } = await turn({ calls: s.impl, options: { mode: 'args', args: ['peer', 'go', { stream: true }] } });
  t.same(reports, [{ event: working }, { error: { name: 'CallError', code: 'unreachable', message: 'the remote hung up' } }]);
});

t.test('an error without a code is logged whole and reaches the agent as call_failed without paths', async (t) => {
  const lines: Array<Record<string, unknown>> = [];
  const s = standIn(() => Promise.reject(new Error('store failed at /srv/gateway/data/results.mdb')));
  const { reports } = await turn({ calls: s.impl, log: (msg, fields) => lines.push({ msg, ...fields }) });
  t.same(reports, [{ error: { name: 'CallError', code: 'call_failed', message: 'store failed at <path>' } }]);
  t.match(lines, [{ msg: 'agent call failed', workspace: WORKSPACE, agentId: 'caller', connection: 'peer', error: /\/srv\/gateway\/data\/results\.mdb/ }]);
});

const CANCELED = { name: 'CallError', code: 'canceled', message: 'the call to peer was canceled by the agent' };

t.test("the agent's signal aborts the handler's signal (a streaming call)", async (t) => {
  const s = standIn();
  const { result, reports } = await turn({ calls: s.impl, options: { mode: 'abort-stream' }, timeoutMs: 60_000 });
  t.same(result, { ok: true, events: 4 }, 'the run ended, so the handler saw the abort');
  t.same(reports, [{ event: WORKING }, { error: CANCELED }, { task: remoteTask('saw the abort') }]);
  t.match(await s.aborted, { message: 'the agent stopped waiting for the call' });
});

t.test('breaking out of a streaming call aborts the handler', async (t) => {
  const s = standIn();
  const { result, reports } = await turn({ calls: s.impl, options: { mode: 'break-stream' }, timeoutMs: 60_000 });
  t.same(result, { ok: true, events: 3 });
  t.same(reports, [{ event: WORKING }, { task: remoteTask('saw the abort') }]);
  t.match(await s.aborted, { message: 'the agent stopped waiting for the call' });
});

t.test("the agent's signal aborts the handler's signal (a call awaited)", async (t) => {
  const s = standIn();
  const { result, reports } = await turn({ calls: s.impl, options: { mode: 'abort-await' }, timeoutMs: 60_000 });
  t.same(result, { ok: true, events: 3 });
  t.same(reports, [{ error: CANCELED }, { task: remoteTask('saw the abort') }]);
  t.match(await s.aborted, { message: 'the agent stopped waiting for the call' });
  t.same(s.calls.map(textOf), ['hold', 'ping', 'after-abort']);
});

t.test('canceling the run aborts its outstanding call', async (t) => {
  const s = standIn();
  const cancel = new TurnCancel();
  const running = turn({ calls: s.impl, options: { mode: 'hold' }, signal: cancel });
  await s.seen;
  t.equal(pool.stats().calls.open, 1);
  cancel.abort();
  t.match((await running).result, { ok: false, error: { reason: 'canceled' } });
  t.match(await s.aborted, { message: /run ended \(canceled\)/ });
  t.equal(pool.stats().calls.open, 0);
});

t.test('a run timing out aborts its outstanding call', async (t) => {
  // The deadline counts from the run's start, and a fresh worker may take seconds to start on a busy machine: when it
  // passed before the agent even made its call, the run is tried again with a longer one.
  for (let timeoutMs = 2_000; ; timeoutMs *= 2) {
    const s = standIn();
    const { result } = await turn({ calls: s.impl, options: { mode: 'hold' }, timeoutMs });
    t.match(result, { ok: false, error: { reason: 'timeout' } });
    if (s.calls.length === 0 && timeoutMs < 30_000) continue;
    t.equal(s.calls.length, 1, 'the call was being served when the deadline passed');
    t.match(await s.aborted, { message: /run ended \(timeout\)/ });
    t.equal(pool.stats().calls.open, 0);
    return;
  }
});

t.test("the agent's worker dying aborts its outstanding call", async (t) => {
  const s = standIn();
  const { result } = await turn({ calls: s.impl, options: { mode: 'hold-then-exit' } });
  t.match(result, { ok: false, error: { reason: 'worker_crash' } });
  t.type(await s.aborted, Error);
  t.equal(pool.stats().calls.open, 0);
});

t.test('bad arguments are refused naming the field, and the handler never sees them', async (t) => {
  const s = standIn();
  const cases: Array<{ args: unknown[]; field: RegExp }> = [
    { args: [42, 'hi'], field: /^ctx\.call refused: connection: / },
    { args: ['has spaces', 'hi'], field: /^ctx\.call refused: connection: .*letters, digits/ },
    { args: ['peer', { parts: [] }], field: /^ctx\.call refused: message\.parts: / },
    { args: ['peer', { parts: [{ kind: 'image', url: 'x' }] }], field: /^ctx\.call refused: message\.parts\.0/ },
    { args: ['peer', { parts: [{ kind: 'text', text: 'hi' }], role: 'agent' }], field: /^ctx\.call refused: message: .*role/ },
    { args: ['peer', 7], field: /^ctx\.call refused: message: / },
    { args: ['peer', { parts: [{ kind: 'text', text: 'hi' }], extensions: 'https://e.example/x' }], field: /^ctx\.call refused: message\.extensions: / },
    {
      args: ['peer', { parts: [{ kind: 'text', text: 'hi' }], extensions: Array.from({ length: 65 }, (_, i) => `https://e.example/${i}`) }],
      field: /^ctx\.call refused: message\.extensions: at most 64 extensions/,
    },
    { args: ['peer', 'hi', { stream: 'yes' }], field: /^opts\.stream: must be a boolean/ },
    { args: ['peer', 'hi', { signal: 'stop' }], field: /^opts\.signal: must be an AbortSignal/ },
    { args: ['peer', 'hi', 'fast'], field: /^opts: must be an object/ },
    { args: ['peer', { parts: [{ kind: 'text', text: 'hi' }], metadata: { fn: 'FUNCTION' } }], field: /^message: cannot cross threads/ },
    { args: ['peer', { parts: [{ kind: 'text', text: 'hi' }], metadata: { boom: 'THROWING_GETTER' } }], field: /^message: cannot be read: getter exploded/ },
  ];
  for (const c of cases) {
    const { result, reports } = await turn({ calls: s.impl, options: { mode: 'args', args: c.args } });
    t.same(result, { ok: true, events: 2 }, `${JSON.stringify(c.args)}: the run goes on`);
    t.match(reports, [{ error: { name: 'CallError', code: 'invalid_request', message: c.field } }], JSON.stringify(c.args));
  }
  t.equal(s.calls.length, 0, 'the handler was never called');
});

t.test('a message nested past the depth bound is refused before it crosses threads', async (t) => {
  const s = standIn();
  let data: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < 500; i++) data = { d: data };
  const { reports } = await turn({ calls: s.impl, options: { mode: 'args', args: ['peer', { parts: [{ kind: 'data', data }] }] } });
  t.match(reports, [{ error: { code: 'invalid_request', message: /^message\.parts\.0\.data(\.d)+: nested deeper than \d+ levels/ } }]);
  t.equal(s.calls.length, 0);
});

t.test('without client mode, ctx.call fails with client_mode_off', async (t) => {
  const { result, reports } = await turn({});
  t.same(result, { ok: true, events: 2 });
  t.match(reports, [{ error: { name: 'CallError', code: 'client_mode_off', message: /client mode/ } }]);
});

t.test('calls posted by hand for other runs are refused, and the handler never sees them', async (t) => {
  const s = standIn();
  const { result, reports } = await turn({ calls: s.impl, options: { mode: 'forge', upTo: 200 } });
  t.same(result, { ok: true, events: 2 });
  // the forger's own run is live but the forged calls lack its key; every other id has ended or never existed
  t.same(reports, [{ codes: ['invalid_request', 'run_ended'] }]);
  t.equal(s.calls.length, 0);
});

t.test('a run that never calls opens no channel and never touches the handler', async (t) => {
  const s = standIn();
  const before = pool.stats().calls;
  const { result } = await turn({ calls: s.impl, entry: fixture('well-behaved.js'), options: { prefix: '> ' } });
  t.same(result, { ok: true, events: 3 });
  t.equal(s.calls.length, 0);
  t.same(pool.stats().calls, before, 'no call was opened');
});
