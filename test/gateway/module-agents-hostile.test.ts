// Hostile module agents (written into the test's temp dir) against the real gateway on port 0: a misbehaving agent
// fails its own task with a clear reason; the gateway, other agents' turns and other callers are unharmed.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { msgB, startTestGateway, type TestGateway } from '../support/gateway.js';

t.setTimeout(120_000);

const AGENTS: Record<string, string> = {
  'throws-odd.js': `
export default async function* (ctx) {
  yield { type: 'status', state: 'working' };
  const how = ctx.message.parts[0].text;
  if (how === 'undefined') throw undefined;
  if (how === 'null-proto') throw Object.create(null);
  if (how === 'proxy') throw new Proxy({}, { getPrototypeOf() { throw new Proxy({}, { getPrototypeOf() { throw 1; } }); }, get() { throw 2; } });
  if (how === 'getter') throw { get message() { throw new Error('getter'); }, toString() { throw new Error('toString'); } };
  if (how === 'circular') { const o = { a: 1 }; o.self = o; return Promise.reject(o); }
  throw 'a plain string';
}`,
  'hog.js': `
export default async function* () {
  yield { type: 'status', state: 'working' };
  const hoard = [];
  for (;;) hoard.push(new Array(1_000_000).fill(hoard.length + 0.5));
}`,
  'heap.js': `
import { getHeapStatistics } from 'node:v8';
export default async function* () {
  const heapLimitMb = Math.round(getHeapStatistics().heap_size_limit / 1024 / 1024);
  yield { type: 'artifact', artifact: { parts: [{ kind: 'data', data: { heapLimitMb } }] } };
  yield { type: 'status', state: 'completed' };
}`,
  'huge-working.js': `
export default async function* () {
  const text = 'x'.repeat(2 * 1024 * 1024);
  for (let i = 0; i < 3; i++) yield { type: 'status', state: 'working', message: { parts: [{ kind: 'text', text }] } };
  yield { type: 'status', state: 'completed' };
}`,
  'bad-file.js': `
const FILES = {
  neither: { name: 'a.txt' },
  both: { bytes: 'aGk=', uri: 'https://example.com/a.txt' },
  'not-base64': { bytes: 'not base64!' },
  'not-a-uri': { uri: 'just words' },
};
export default async function* (ctx) {
  const how = ctx.message.parts[0].text;
  yield { type: 'artifact', artifact: { name: 'file', parts: [{ kind: 'file', file: FILES[how] }] } };
  yield { type: 'status', state: 'completed' };
}`,
  'flood.js': `
export default async function* () {
  for (let i = 0; ; i++) yield { type: 'status', state: 'working', message: { parts: [{ kind: 'text', text: 'tick ' + i }] } };
}`,
  'leaves-timer.js': `
export default async function* (ctx) {
  const how = ctx.message.parts[0].text;
  // a second: the turn's end must be judged before the leftover fires, and a loaded CI machine once took more than
  // 100 ms over it (the busy loop then ran in its own turn's end, which timed out)
  if (how === 'exit') setTimeout(() => process.exit(3), 1000);
  if (how === 'spin') setTimeout(() => { for (;;); }, 1000);
  if (how === 'emit') setTimeout(() => { for (let i = 0; i < 5; i++) require('node:worker_threads'); }, 1000);
  if (how === 'wait') await new Promise((r) => setTimeout(r, 1500));
  yield { type: 'status', state: 'completed', message: { parts: [{ kind: 'text', text: 'done, timer left' }] } };
}`,
  'no-export.js': `export const notAnAgent = 1;`,
  'throws-at-import.js': `throw new Error('boom at import');`,
  'syntax.js': `export default async function* ( {`,
  'big-call.js': `
export default async function* (ctx) {
  const how = ctx.message.parts[0].text;
  try {
    const text = how === 'huge' ? 'x'.repeat(9 * 1024 * 1024) : 'hi';
    await ctx.call(how === 'unknown' ? 'no-such-connection' : 'peer', text);
    yield { type: 'status', state: 'completed' };
  } catch (err) {
    yield { type: 'status', state: 'completed', message: { parts: [{ kind: 'data', data: { code: err.code, message: err.message } }] } };
  }
}`,
};

async function world(t: Test, extra: Record<string, unknown> = {}): Promise<{ gw: TestGateway; key: string; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-hostile-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  for (const [name, src] of Object.entries(AGENTS)) await writeFile(join(dir, name), src);
  const mod = (id: string, file: string, more: Record<string, unknown> = {}) => ({ id, name: id, kind: 'module', entry: join(dir, file), ...more });
  const gw = await startTestGateway({
    config: {
      agents: [
        // room to be served late: during a flood a loaded machine's main thread is mostly the flood's (echo once took
        // over 5 s in CI); that it is served is this file's business, how fast is the bench's
        { id: 'echo', name: 'Echo', entry: 'echo', default: true, timeoutMs: 60_000 },
        mod('odd', 'throws-odd.js'),
        mod('hog', 'hog.js', { timeoutMs: 20_000 }),
        mod('heap', 'heap.js'),
        mod('flood', 'flood.js', { timeoutMs: 4_000 }),
        mod('badfile', 'bad-file.js'),
        mod('hugeworking', 'huge-working.js'),
        mod('timer', 'leaves-timer.js', { timeoutMs: 15_000 }),
        mod('noexport', 'no-export.js'),
        mod('importthrows', 'throws-at-import.js'),
        mod('syntax', 'syntax.js'),
        mod('bigcall', 'big-call.js'),
      ],
      ...extra,
    } as never,
  });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  return { gw, key, dir };
}

const send = (gw: TestGateway, key: string, agentId: string, text: string) =>
  gw.rpc({ key, method: 'message/send', params: msgB(text, { metadata: { agentId } }) });

const reasonOf = (r: { json: any }) => r.json.result?.status?.message?.metadata?.reason;
const textOf = (r: { json: any }): string => r.json.result?.status?.message?.parts?.[0]?.text ?? '';

t.test('with the default pool settings', async (t) => {
  const { gw, key } = await world(t);
  const echoWorks = async (t: Test, why: string) => {
    const r = await gw.rpc({ key, method: 'message/send', params: msgB(`echo ${why}`) });
    t.equal(r.json.result?.status?.state, 'completed', `echo still works ${why} (${reasonOf(r) ?? '-'}: ${textOf(r).slice(0, 200)})`);
  };

  t.test("a worker's heap is capped by default (512 MB), far below the process's own multi-GB default", async (t) => {
    const r = await send(gw, key, 'heap', 'go');
    const limitMb: number = r.json.result?.artifacts?.[0]?.parts?.[0]?.data?.heapLimitMb;
    t.ok(limitMb > 400 && limitMb < 700, `the agent's heap limit is about 512 MB (${limitMb})`);
  });

  t.test('whatever an agent throws, its task fails as agent_error with words', async (t) => {
    const cases: Array<[string, RegExp]> = [
      ['string', /^a plain string$/],
      ['undefined', /^the agent threw undefined$/],
      ['null-proto', /^the agent threw an object that is not an Error$/],
      ['proxy', /^the agent threw a value that cannot be read$/],
      ['getter', /^the agent threw a value that cannot be read$/],
      ['circular', /^the agent threw an object that is not an Error$/],
    ];
    for (const [how, text] of cases) {
      const r = await send(gw, key, 'odd', how);
      t.equal(r.json.result?.status?.state, 'failed', `${how}: failed`);
      t.equal(reasonOf(r), 'agent_error', `${how}: agent_error, not a dead worker`);
      t.match(textOf(r), text, `${how}: said plainly`);
    }
    await echoWorks(t, 'after odd throws');
  });

  t.test('ctx.call misuse: an unknown connection, a message bigger than a whole task', async (t) => {
    const unknown = await send(gw, key, 'bigcall', 'unknown');
    t.same(unknown.json.result?.status?.message?.parts?.[0]?.data, {
      code: 'no_connection',
      message: "no connection 'no-such-connection' in workspace 'ws1'",
    });
    const huge = await send(gw, key, 'bigcall', 'huge');
    t.same(
      huge.json.result?.status?.message?.parts?.[0]?.data,
      { code: 'invalid_request', message: 'message: larger than its limit of 8388608 bytes (tasks.maxTaskBytes)' },
      'a 9 MB call is refused in the worker, before it is copied out or sent',
    );
    await echoWorks(t, 'after ctx.call misuse');
  });

  t.test('a file part that is not a file fails the turn (agent_protocol) naming the field; nothing of it is stored', async (t) => {
    const cases: Array<[string, RegExp]> = [
      ['neither', /artifact\.parts\.0\.file: a file has one of bytes or uri/],
      ['both', /artifact\.parts\.0\.file: a file has one of bytes or uri/],
      ['not-base64', /artifact\.parts\.0\.file\.bytes: must be base64/],
      ['not-a-uri', /artifact\.parts\.0\.file\.uri: must be an absolute URI/],
    ];
    for (const [how, text] of cases) {
      const r = await send(gw, key, 'badfile', how);
      t.equal(r.json.result?.status?.state, 'failed', `${how}: failed`);
      t.equal(reasonOf(r), 'agent_protocol', `${how}: agent_protocol`);
      t.match(textOf(r), text, `${how}: names the field`);
      const got = await gw.rpc({ key, method: 'tasks/get', params: { id: r.json.result?.id } });
      t.same(got.json.result?.artifacts, [], `${how}: no artifact stored`);
    }
  });

  t.test("an agent that yields progress in an endless loop is slowed to the gateway's pace and ends at its deadline", async (t) => {
    const flood = send(gw, key, 'flood', 'go');
    // while it floods, other callers are served (how fast is the bench's business, not a test's: a timed assertion
    // here failed in CI under load)
    await echoWorks(t, 'during a flood');
    const r = await flood;
    t.equal(r.json.result?.status?.state, 'failed');
    t.equal(reasonOf(r), 'timeout', 'paced, it runs until its 4 s deadline instead of failing on its backlog');
    await echoWorks(t, 'after a flood');
  });

  t.test('a module that fails to load fails its task naming the agent (its path redacted for callers)', async (t) => {
    const cases: Array<[string, RegExp]> = [
      ['noexport', /^agent noexport: its module <path> exports no default function and no run\(\)$/],
      ['importthrows', /^agent importthrows: its module <path> failed to load: boom at import$/],
      ['syntax', /^agent syntax: its module <path> failed to load: /],
    ];
    for (const [id, text] of cases) {
      const r = await send(gw, key, id, 'go');
      t.equal(reasonOf(r), 'agent_not_found', `${id}: agent_not_found`);
      t.match(textOf(r), text, `${id}: names the agent and its file`);
    }
  });
});

t.test('an agent that allocates without end ends its own worker at the cap (pool.maxHeapMb), not the gateway', async (t) => {
  const { gw, key } = await world(t, { pool: { maxHeapMb: 128 } });
  const r = await send(gw, key, 'hog', 'go');
  t.equal(r.json.result?.status?.state, 'failed');
  t.equal(reasonOf(r), 'worker_crash', 'its worker hit the cap and died');
  t.match(textOf(r), /memory/i, 'the reason says memory');
  const e = await gw.rpc({ key, method: 'message/send', params: msgB('still here') });
  t.equal(e.json.result?.status?.state, 'completed');
});

t.test('what an agent leaves running after its turn never runs in another turn: its worker is replaced', async (t) => {
  // one thread, so the next turn would be served by the same worker
  const { gw, key } = await world(t, { pool: { minThreads: 1, maxThreads: 1 } });
  for (const [how, what] of [
    ['spin', 'a busy loop'],
    ['exit', 'process.exit()'],
  ] as const) {
    const r = await send(gw, key, 'timer', how);
    t.equal(r.json.result?.status?.state, 'completed', `the turn that left ${what} behind completed`);
    // the next turn takes longer than the leftover's 1 s delay: on the same worker, the leftover would fire in it
    const next = await send(gw, key, 'timer', 'wait');
    t.equal(next.json.result?.status?.state, 'completed', `the next turn is not hit by ${what}`);
    t.equal(reasonOf(next), undefined);
    t.equal((await gw.rpc({ key, method: 'message/send', params: msgB(`after ${how}`) })).json.result?.status?.state, 'completed');
  }
});

t.test('a progress status bigger than the whole task may hold stops the turn (output_too_large)', async (t) => {
  const { gw, key } = await world(t, { tasks: { maxTaskBytes: 1024 * 1024 } });
  const r = await send(gw, key, 'hugeworking', 'go');
  t.equal(r.json.result?.status?.state, 'failed', 'a 2 MB working message in a task of at most 1 MB');
  t.equal(reasonOf(r), 'output_too_large');
  t.match(textOf(r), /tasks\.maxTaskBytes/);
  const got = await gw.rpc({ key, method: 'tasks/get', params: { id: r.json.result.id } });
  t.ok(JSON.stringify(got.json).length < 64 * 1024, 'none of it was kept');
});
