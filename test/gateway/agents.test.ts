// Agents over real HTTP: which agent a request reaches, the Agent Cards, health, and agents that hog or crash their worker.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import type { ConfigInput } from '../../src/config/schema.js';
import { createKeyCli, rpcAt, startChildServer, waitFor, type ChildServer } from '../support/child-server.js';
import { msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { waitForState } from '../support/tasks.js';

// several server and CLI child processes, each a fresh Node start: more than the default per-file budget on a busy machine
t.setTimeout(300_000);

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/agents/${name}`, import.meta.url));

async function gateway(t: Test, config?: ConfigInput): Promise<TestGateway> {
  const gw = await startTestGateway({ config });
  t.teardown(() => gw.close());
  return gw;
}

const send = (gw: TestGateway, key: string, params: unknown, path?: string) => gw.rpc({ method: 'message/send', key, params, path });

/** Which builtin demo agent answered: echo completes with an `echo` artifact, converse asks for input. */
function whoAnswered(result: { status: { state: string }; artifacts: Array<{ name?: string }> }): string {
  if (result.status.state === 'completed' && result.artifacts[0]?.name === 'echo') return 'echo';
  if (result.status.state === 'input-required') return 'converse';
  return `unknown (${result.status.state})`;
}

t.test('agent choice with the demo agents', async (t) => {
  const gw = await gateway(t);
  const { key } = await gw.key();

  const dflt = await send(gw, key, msgB('hello'));
  t.equal(whoAnswered(dflt.json.result), 'echo', 'no hint: the default agent');
  t.same(dflt.json.result.artifacts[0].parts, [{ kind: 'text', text: 'hello' }]);

  const byUrl = await send(gw, key, msgB('hello'), '/api/a2a/agents/converse');
  t.equal(whoAnswered(byUrl.json.result), 'converse', 'the URL names the agent');

  const byMessageMeta = await send(gw, key, msgB('hello', { metadata: { agentId: 'converse' } }));
  t.equal(whoAnswered(byMessageMeta.json.result), 'converse', 'message.metadata.agentId');

  const byParamsMeta = await send(gw, key, { ...msgB('hello'), metadata: { agentId: 'converse' } });
  t.equal(whoAnswered(byParamsMeta.json.result), 'converse', 'params.metadata.agentId');

  const bySkill = await send(gw, key, msgB('hello', { metadata: { skillId: 'converse' } }));
  t.equal(whoAnswered(bySkill.json.result), 'converse', 'metadata.skillId');

  const urlWins = await send(gw, key, msgB('hello', { metadata: { agentId: 'echo' } }), '/api/a2a/agents/converse');
  t.equal(whoAnswered(urlWins.json.result), 'converse', 'the URL wins over metadata');

  for (const [what, params, path] of [
    ['unknown agentId', msgB('x', { metadata: { agentId: 'nope' } }), undefined],
    ['unknown skillId', msgB('x', { metadata: { skillId: 'nope' } }), undefined],
    ['unknown agent in the URL', msgB('x'), '/api/a2a/agents/nope'],
  ] as const) {
    const r = await send(gw, key, params, path);
    t.equal(r.status, 200, `${what}: HTTP 200`);
    t.equal(r.json.error?.code, -32005, `${what}: AGENT_NOT_FOUND`);
    t.equal(r.json.result, undefined);
  }

  // an agent's URL sees only that agent's tasks
  const convId: string = byUrl.json.result.id;
  const viaOther = await gw.rpc({ method: 'tasks/get', key, params: { id: convId }, path: '/api/a2a/agents/echo' });
  t.equal(viaOther.json.error?.code, -32001, "another agent's URL does not see the task");
  const viaOwn = await gw.rpc({ method: 'tasks/get', key, params: { id: convId }, path: '/api/a2a/agents/converse' });
  t.equal(viaOwn.json.result?.id, convId);
  const viaRoot = await gw.rpc({ method: 'tasks/get', key, params: { id: convId } });
  t.equal(viaRoot.json.result?.id, convId, 'the root endpoint sees every task of the workspace');

  // a follow-up goes to the task's own agent, whatever the default is
  const followUp = await send(gw, key, msgB('done', { taskId: convId }));
  t.equal(followUp.json.result.status.state, 'completed');
  t.equal(followUp.json.result.artifacts[0].name, 'summary');
});

t.test('a key limited to some agents reaches only those', async (t) => {
  const gw = await gateway(t);
  const { key: all } = await gw.key();
  const { key: onlyConverse } = await gw.key({ agents: ['converse'] });

  const r = await send(gw, onlyConverse, msgB('hi'));
  t.equal(whoAnswered(r.json.result), 'converse', 'no hint: the only agent the key reaches');
  const echo = await send(gw, onlyConverse, msgB('hi', { metadata: { agentId: 'echo' } }));
  t.equal(echo.json.error?.code, -32005, 'an agent the key may not reach is not found');
  const echoUrl = await send(gw, onlyConverse, msgB('hi'), '/api/a2a/agents/echo');
  t.equal(echoUrl.json.error?.code, -32005);

  const echoTask = await send(gw, all, msgB('hi'));
  const hidden = await gw.rpc({ method: 'tasks/get', key: onlyConverse, params: { id: echoTask.json.result.id } });
  t.equal(hidden.json.error?.code, -32001, "a task of an agent the key may not reach is not found (its existence doesn't leak)");
});

t.test('two agents and no default: a request must say which', async (t) => {
  const gw = await gateway(t, {
    agents: [
      { id: 'alpha', name: 'Alpha', entry: 'echo', skills: [{ id: 'shout', name: 'Shout', description: 'echoes' }] },
      { id: 'beta', name: 'Beta', entry: 'converse', skills: [{ id: 'chat', name: 'Chat', description: 'converses' }] },
    ],
  });
  const { key } = await gw.key();
  const r = await send(gw, key, msgB('hi'));
  t.equal(r.json.error?.code, -32005, 'no hint, no default: AGENT_NOT_FOUND');
  t.match(r.json.error?.message, /agentId|skillId/, 'the message says how to name one');
  t.equal(whoAnswered((await send(gw, key, msgB('hi', { metadata: { agentId: 'beta' } }))).json.result), 'converse');
  t.equal(whoAnswered((await send(gw, key, msgB('hi', { metadata: { skillId: 'shout' } }))).json.result), 'echo');
  t.equal(whoAnswered((await send(gw, key, msgB('hi'), '/api/a2a/agents/alpha')).json.result), 'echo');
});

t.test('an agent of another workspace is not reachable', async (t) => {
  const gw = await gateway(t, {
    agents: [
      { id: 'shared', name: 'Shared', entry: 'echo', default: true },
      { id: 'private', name: 'Private', entry: 'converse', workspace: 'ws2' },
    ],
  });
  const { key: ws1 } = await gw.key({ workspace: 'ws1' });
  const { key: ws2 } = await gw.key({ workspace: 'ws2' });
  t.equal((await send(gw, ws1, msgB('hi', { metadata: { agentId: 'private' } }))).json.error?.code, -32005);
  t.equal(whoAnswered((await send(gw, ws2, msgB('hi', { metadata: { agentId: 'private' } }))).json.result), 'converse');
  t.equal(whoAnswered((await send(gw, ws1, msgB('hi'))).json.result), 'echo');
});

t.test('Agent Cards: service and per-agent, listed agents only, no secrets', async (t) => {
  const gw = await gateway(t, {
    card: { name: 'Test Gateway', description: 'A gateway under test.' },
    agents: [
      {
        id: 'echo',
        name: 'Echo',
        description: 'Echoes.',
        entry: 'echo',
        default: true,
        skills: [{ id: 'echo', name: 'Echo', description: 'Echoes parts.', tags: ['demo'] }],
      },
      {
        id: 'converse',
        name: 'Converse',
        description: 'Talks.',
        entry: 'converse',
        skills: [{ id: 'converse', name: 'Converse', description: 'Multi-turn.' }],
      },
      {
        id: 'hidden',
        name: 'Hidden',
        description: 'Not in any card.',
        entry: 'echo',
        listed: false,
        skills: [{ id: 'hidden-skill', name: 'Hidden skill', description: 'unlisted' }],
        options: { apiToken: 'sekrit-token-0123' },
      },
      {
        id: 'mod',
        name: 'Module',
        kind: 'module',
        entry: fixture('well-behaved.js'),
        skills: [{ id: 'shout', name: 'Shout', description: 'Upper-cases.' }],
        options: { prefix: 'sekrit-prefix-4567' },
      },
    ],
  });
  const { key } = await gw.key();

  const paths = ['/.well-known/agent.json', '/.well-known/agent-card.json'];
  const texts: string[] = [];
  for (const path of paths) {
    const res = await fetch(gw.url + path);
    t.equal(res.status, 200, `${path} is served`);
    t.match(res.headers.get('content-type'), /application\/json/);
    texts.push(await res.text());
  }
  t.equal(texts[0], texts[1], 'both card paths serve the same card');
  const card = JSON.parse(texts[0]!);
  t.equal(card.name, 'Test Gateway');
  t.equal(card.description, 'A gateway under test.');
  t.equal(card.url, `${gw.url}/api/a2a`, 'url is the JSON-RPC endpoint as the caller reached it');
  t.type(card.version, 'string');
  t.ok(card.version.length > 0);
  // extendedAgentCard is 1.0's name for supportsAuthenticatedExtendedCard (the card offers 1.0 too)
  t.same(Object.keys(card.capabilities).sort(), ['extendedAgentCard', 'pushNotifications', 'stateTransitionHistory', 'streaming']);
  for (const f of ['streaming', 'pushNotifications', 'stateTransitionHistory', 'extendedAgentCard']) {
    t.type(card.capabilities[f], 'boolean', `capabilities.${f} is a boolean`);
  }
  // what the card says of streaming is what message/stream does
  const stream = await fetch(`${gw.url}/api/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', Authorization: `Bearer ${key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 's1', method: 'message/stream', params: msgB('streamed?') }),
  });
  const streamed = (stream.headers.get('content-type') ?? '').startsWith('text/event-stream');
  await stream.body?.cancel();
  t.equal(card.capabilities.streaming, streamed, `capabilities.streaming (${card.capabilities.streaming}) matches message/stream`);
  t.same(card.authentication.schemes, ['bearer']);
  for (const f of ['defaultInputModes', 'defaultOutputModes']) {
    t.ok(Array.isArray(card[f]) && card[f].length > 0 && card[f].every((m: unknown) => typeof m === 'string'), `${f} is a non-empty list of strings`);
  }
  t.same(card.skills.map((s: { id: string }) => s.id).sort(), ['converse', 'echo', 'shout'], 'skills of listed agents only');
  for (const s of card.skills) {
    t.type(s.name, 'string');
    t.type(s.description, 'string');
  }
  for (const text of texts) {
    t.notMatch(text, /sekrit|hidden|well-behaved|fixtures|apiToken|options|entry/, 'no unlisted agent, option, or module path in the card');
    t.notMatch(text, key, 'no key');
    t.notMatch(text, gw.gw.secret.toString('utf8'), 'no server secret');
  }

  // per-agent cards
  const conv = await fetch(`${gw.url}/api/a2a/agents/converse/.well-known/agent-card.json`);
  t.equal(conv.status, 200);
  const convCard = await conv.json();
  t.equal(convCard.name, 'Converse');
  t.equal(convCard.description, 'Talks.');
  t.equal(convCard.url, `${gw.url}/api/a2a/agents/converse`);
  t.same(
    convCard.skills.map((s: { id: string }) => s.id),
    ['converse'],
    "only the agent's own skills",
  );
  t.same(convCard.authentication.schemes, ['bearer']);
  t.same(convCard.capabilities, card.capabilities, 'the same capabilities as the service');
  const convRevA = await fetch(`${gw.url}/api/a2a/agents/converse/.well-known/agent.json`);
  t.same(await convRevA.json(), convCard, 'the rev A path serves the same per-agent card');

  // the per-agent card's url is where that agent answers
  const viaCardUrl = await fetch(convCard.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: msgB('hi') }),
  });
  t.equal(whoAnswered((await viaCardUrl.json()).result), 'converse');

  for (const id of ['hidden', 'nope']) {
    const r = await fetch(`${gw.url}/api/a2a/agents/${id}/.well-known/agent-card.json`);
    t.equal(r.status, 404, `no card for ${id}`);
    const body = await r.text();
    t.notMatch(body, /sekrit/);
  }

  // an unlisted agent is absent from the cards but callable
  const hidden = await send(gw, key, msgB('psst', { metadata: { agentId: 'hidden' } }));
  t.equal(hidden.json.result?.status?.state, 'completed', 'callable by metadata.agentId');
  t.same(hidden.json.result.artifacts[0].parts, [{ kind: 'text', text: 'psst' }]);
  const hiddenUrl = await send(gw, key, msgB('psst'), '/api/a2a/agents/hidden');
  t.equal(hiddenUrl.json.result?.status?.state, 'completed', 'callable by its URL');
  const hiddenSkill = await send(gw, key, msgB('psst', { metadata: { skillId: 'hidden-skill' } }));
  t.equal(hiddenSkill.json.result?.status?.state, 'completed', 'callable by its skill');

  // the authenticated extended card lists what the key reaches, still without options
  const ext = await gw.rpc({ method: 'agent/getAuthenticatedExtendedCard', key, params: {} });
  t.equal(ext.json.result?.url, `${gw.url}/api/a2a`);
  t.notMatch(JSON.stringify(ext.json), /sekrit/);
});

t.test('health and readiness', async (t) => {
  const gw = await gateway(t);
  for (const path of ['/healthz', '/readyz']) {
    const res = await fetch(gw.url + path);
    t.equal(res.status, 200, path);
    t.same(await res.json(), { ok: true });
  }
  const none = await fetch(`${gw.url}/nope`);
  t.equal(none.status, 404);
});

/** The times of `n` sequential tasks/get calls, in ms, sorted. */
async function getTimes(get: () => Promise<{ json: { result?: unknown } }>, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await get();
    times.push(performance.now() - t0);
    if (!r.json.result) throw new Error(`tasks/get failed: ${JSON.stringify(r.json)}`);
  }
  return times.sort((a, b) => a - b);
}

/**
 * A behaviour check, not a benchmark. An agent spinning on the gateway's own thread would stall every
 * request for a whole busy step (4 s for the slow agent, forever for the looping module); on a worker
 * thread, gets stay in the low milliseconds. The bounds leave room for a heavily loaded test machine
 * (other suites run alongside) while still catching a stall.
 */
function assertPrompt(t: Test, sorted: number[], what: string): void {
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const slowest = sorted[sorted.length - 1]!;
  t.ok(median < 50, `${what}: median ${median.toFixed(1)} ms of ${sorted.length} (bound 50 ms)`);
  t.ok(slowest < 1000, `${what}: slowest ${slowest.toFixed(1)} ms of ${sorted.length} (bound 1000 ms; a stalled loop would take 4000 or more)`);
}

t.test('a busy-looping slow task (cpu mode) does not slow tasks/get for others, and can be canceled', async (t) => {
  const gw = await gateway(t);
  const { key } = await gw.key();
  const other = await send(gw, key, msgB('bystander'));
  const otherId: string = other.json.result.id;

  // 20 steps of 4 s of busy loop each; wait until the first step is done, so the loop is surely spinning
  const busy = await send(gw, key, {
    message: {
      kind: 'message',
      role: 'user',
      messageId: 'busy-1',
      parts: [{ kind: 'data', data: { ms: 80_000, steps: 20, mode: 'cpu' } }],
      metadata: { agentId: 'slow' },
    },
    configuration: { blocking: false },
  });
  const busyId: string = busy.json.result.id;
  const spinning = await waitFor(
    'the first busy step',
    async () => {
      const r = await gw.rpc({ method: 'tasks/get', key, params: { id: busyId, historyLength: 0 } });
      return r.json.result?.status?.message?.parts?.[0]?.text === 'step 1/20' ? r.json.result : undefined;
    },
    { timeoutMs: 60_000 },
  );
  t.equal(spinning.status.state, 'working');

  const others = await getTimes(() => gw.rpc({ method: 'tasks/get', key, params: { id: otherId } }), 50);
  assertPrompt(t, others, 'tasks/get of another task');
  const own = await getTimes(() => gw.rpc({ method: 'tasks/get', key, params: { id: busyId } }), 20);
  assertPrompt(t, own, 'tasks/get of the busy task itself');
  const echoT0 = performance.now();
  const echo = await send(gw, key, msgB('still here'));
  t.equal(echo.json.result.status.state, 'completed', 'other agents still run');
  // generous: the pool may have to start a thread for it; one queued behind the loop would wait 80 s
  t.ok(performance.now() - echoT0 < 15_000, 'while the loop spins');

  const during = await gw.rpc({ method: 'tasks/get', key, params: { id: busyId, historyLength: 0 } });
  t.equal(during.json.result.status.state, 'working', 'the loop was still running through the measurements');

  const c0 = performance.now();
  const canceled = await gw.rpc({ method: 'tasks/cancel', key, params: { id: busyId } });
  t.equal(canceled.json.result?.status?.state, 'canceled', 'a cancel stops a task stuck in a busy loop');
  t.ok(performance.now() - c0 < 3000, 'without waiting for the loop to end its 4 s step');
  const after = await gw.rpc({ method: 'tasks/get', key, params: { id: busyId } });
  t.equal(after.json.result.status.state, 'canceled', 'and it stays canceled');
  const again = await gw.rpc({ method: 'tasks/cancel', key, params: { id: busyId } });
  t.equal(again.json.error?.code, -32002, 'a second cancel is refused');
  const next = await send(gw, key, msgB('after the cancel'));
  t.equal(next.json.result.status.state, 'completed', 'the pool serves the next task');
});

t.test('a sleeping slow task completes with progress and its chunked artifact', async (t) => {
  const gw = await gateway(t);
  const { key } = await gw.key();
  const r = await send(gw, key, {
    message: {
      kind: 'message',
      role: 'user',
      messageId: 'sleepy',
      parts: [{ kind: 'data', data: { ms: 60, steps: 3, mode: 'sleep' } }],
      metadata: { agentId: 'slow' },
    },
  });
  t.equal(r.json.result.status.state, 'completed');
  t.equal(r.json.result.artifacts.length, 1, 'chunks are appended to one artifact');
  t.same(
    r.json.result.artifacts[0].parts.map((p: { text: string }) => p.text),
    ['chunk 1/3\n', 'chunk 2/3\n', 'chunk 3/3\n'],
  );
  const nb = await send(gw, key, {
    message: {
      kind: 'message',
      role: 'user',
      messageId: 'sleepy-2',
      parts: [{ kind: 'data', data: { ms: 30_000, steps: 30 } }],
      metadata: { agentId: 'slow' },
    },
    configuration: { blocking: false },
  });
  await waitForState(gw, { key, id: nb.json.result.id, states: ['working'] });
  const c = await gw.rpc({ method: 'tasks/cancel', key, params: { id: nb.json.result.id } });
  t.equal(c.json.result?.status?.state, 'canceled');
});

t.test('module agents configured through a JSON config file (server as a child process)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-agents-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const configFile = join(dir, 'config.json');
  await writeFile(
    configFile,
    JSON.stringify({
      agents: [
        { id: 'echo', name: 'Echo', entry: 'echo', default: true },
        { id: 'good', name: 'Good', kind: 'module', entry: fixture('well-behaved.js'), options: { prefix: '>> ' } },
        { id: 'crash', name: 'Crash', kind: 'module', entry: fixture('crashes-worker.js') },
        { id: 'throws', name: 'Throws', kind: 'module', entry: fixture('throws.js') },
        { id: 'invalid', name: 'Invalid', kind: 'module', entry: fixture('invalid-event.js') },
        { id: 'loop', name: 'Loop', kind: 'module', entry: fixture('busy-loop.js') },
        { id: 'loop-timeout', name: 'Loop with a deadline', kind: 'module', entry: fixture('busy-loop.js'), timeoutMs: 1000 },
        { id: 'missing', name: 'Broken', kind: 'module', entry: fixture('broken-import.js') },
      ],
    }),
  );
  const server: ChildServer = await startChildServer({ dataDir: join(dir, 'data'), args: ['--config', configFile] });
  t.teardown(() => server.kill('SIGKILL'));
  const { key } = await createKeyCli(join(dir, 'data'), { extra: ['--per-minute', '100000', '--per-hour', '1000000'] });
  const call = (method: string, params: unknown) => rpcAt(server.url, { key, method, params });
  const sendTo = (agentId: string, text: string, extra: Record<string, unknown> = {}) => call('message/send', msgB(text, { metadata: { agentId, ...extra } }));
  const echoWorks = async (t: Test, why: string) => {
    const r = await call('message/send', msgB(`echo ${why}`));
    t.equal(r.json.result?.status?.state, 'completed', `the next echo works ${why}`);
    t.same(r.json.result?.artifacts?.[0]?.parts, [{ kind: 'text', text: `echo ${why}` }]);
  };

  t.test('a well-behaved module agent completes, with its options', async (t) => {
    const r = await sendTo('good', 'hello world');
    t.equal(r.json.result?.status?.state, 'completed');
    t.same(r.json.result.artifacts[0].parts, [{ kind: 'text', text: '>> HELLO WORLD' }]);
    t.equal(r.json.result.artifacts[0].name, 'shout');
  });

  t.test('a module agent that crashes its worker fails its task; the server keeps serving', async (t) => {
    for (const [how, extra] of [
      ['a throw from a timer', {}],
      ['process.exit in the worker', { exit: true }],
    ] as const) {
      const r = await sendTo('crash', 'crash please', extra);
      t.equal(r.json.result?.status?.state, 'failed', `${how}: the task failed`);
      t.equal(r.json.result?.status?.message?.metadata?.reason, 'worker_crash', `${how}: reason worker_crash`);
      t.match(r.json.result?.status?.message?.parts?.[0]?.text, /crash|died/i);
      t.equal(server.proc.exitCode, null, `${how}: the server process is alive`);
      await echoWorks(t, `after ${how}`);
      const got = await call('tasks/get', { id: r.json.result.id });
      t.equal(got.json.result.status.state, 'failed', 'stored as failed');
    }
  });

  t.test('a module agent that throws fails its task', async (t) => {
    const r = await sendTo('throws', 'go');
    t.equal(r.json.result?.status?.state, 'failed');
    t.equal(r.json.result?.status?.message?.metadata?.reason, 'agent_error');
    t.match(r.json.result?.status?.message?.parts?.[0]?.text, /agent exploded on purpose/);
    await echoWorks(t, 'after a throw');
  });

  t.test('a module agent that yields an invalid event fails its task', async (t) => {
    const r = await sendTo('invalid', 'go');
    t.equal(r.json.result?.status?.state, 'failed');
    t.equal(r.json.result?.status?.message?.metadata?.reason, 'agent_protocol');
  });

  t.test('a module that fails to load fails its task with a reason', async (t) => {
    const r = await sendTo('missing', 'go');
    t.equal(r.json.result?.status?.state, 'failed');
    t.equal(r.json.result?.status?.message?.metadata?.reason, 'agent_not_found');
    t.match(r.json.result?.status?.message?.parts?.[0]?.text, /failed to load/);
  });

  t.test('a module agent stuck in a busy loop: others are served promptly, and it can be canceled', async (t) => {
    const bystander = await call('message/send', msgB('bystander'));
    const otherId: string = bystander.json.result.id;
    const r = await call('message/send', { ...msgB('loop', { metadata: { agentId: 'loop' } }), configuration: { blocking: false } });
    const id: string = r.json.result.id;
    await waitFor('the loop to start', async () => {
      const g = await call('tasks/get', { id });
      return g.json.result?.status?.message?.parts?.[0]?.text === 'looping' ? true : undefined;
    });
    assertPrompt(t, await getTimes(() => call('tasks/get', { id: otherId }), 50), 'tasks/get of another task');
    t.equal((await call('tasks/get', { id })).json.result.status.state, 'working', 'the loop is still running');
    const c = await call('tasks/cancel', { id });
    t.equal(c.json.result?.status?.state, 'canceled');
    t.equal((await call('tasks/get', { id })).json.result.status.state, 'canceled');
    await echoWorks(t, 'after canceling a busy loop');
  });

  t.test("a busy loop past the agent's deadline fails with reason timeout", async (t) => {
    const t0 = Date.now();
    const r = await sendTo('loop-timeout', 'go');
    t.equal(r.json.result?.status?.state, 'failed');
    t.equal(r.json.result?.status?.message?.metadata?.reason, 'timeout');
    t.ok(Date.now() - t0 < 10_000, 'the deadline ends it');
    await echoWorks(t, 'after a timeout');
  });

  t.test('the server is still healthy', async (t) => {
    const h = await fetch(`${server.url}/healthz`);
    t.equal(h.status, 200);
    t.equal(server.proc.exitCode, null);
  });
});
