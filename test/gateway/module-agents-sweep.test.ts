// A second hostile sweep of module agents: what one agent does to its worker's process, globals and prototypes, what
// it throws, and event values that throw when read. Real gateway on port 0, agents written into the test's temp dir;
// one worker thread, so a later turn runs where the earlier one did unless that worker was replaced.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { createLog } from '../../src/runtime/log.js';
import { msgB, startTestGateway, type TestGateway } from '../support/gateway.js';

t.setTimeout(180_000);

const AGENTS: Record<string, string> = {
  'process.js': `
export default async function* (ctx) {
  const how = ctx.message.parts[0].text;
  yield { type: 'status', state: 'working' };
  if (how === 'exit') process.exit(7);
  if (how === 'chdir') process.chdir('/');
  if (how === 'symbol') throw Symbol('odd');
  if (how === 'bigint') throw 12345678901234567890n;
  if (how === 'huge-throw') throw new Error('x'.repeat(20 * 1024 * 1024));
  if (how === 'huge-timer-throw') {
    setTimeout(() => { throw new Error('y'.repeat(20 * 1024 * 1024)); }, 10);
    await new Promise(() => {});
  }
  yield { type: 'status', state: 'completed' };
}`,
  // leaves a change behind in what every agent on its worker shares
  'polluter.js': `
import { parentPort } from 'node:worker_threads';
export default async function* (ctx) {
  const how = ctx.message.parts[0].text;
  if (how === 'proto') {
    // the classic accident: a deep merge of parsed JSON
    const merge = (a, b) => { for (const k in b) { if (typeof b[k] === 'object') merge(a[k] ??= {}, b[k]); else a[k] = b[k]; } return a; };
    merge({}, JSON.parse('{"__proto__": {"polluted": "yes"}}'));
  }
  if (how === 'array') Array.prototype.includes = () => true;
  if (how === 'json') JSON.stringify = () => '"hijacked"';
  if (how === 'global') globalThis.sharedSecret = 'left by polluter';
  if (how === 'listener') process.on('uncaughtException', () => {});
  // after this turn's last event has gone out: the next run's events would be dropped
  if (how === 'close-port') setImmediate(() => parentPort.close());
  if (how === 'port') {
    // drops the observer's events on their way out of the worker
    const post = parentPort.postMessage;
    parentPort.postMessage = function (m, transfer) {
      if (m && typeof m === 'object' && 'a2aRun' in m && JSON.stringify(m.events).includes('"turns"')) return;
      return post.call(this, m, transfer);
    };
  }
  yield { type: 'status', state: 'completed' };
}`,
  // reports what it finds of the shared state, and how many turns its worker has served it
  'observer.js': `
let turns = 0;
export default async function* () {
  turns++;
  const seen = {
    turns,
    polluted: ({}).polluted ?? null,
    includes: [1].includes(2),
    json: JSON.stringify({ a: 1 }),
    sharedSecret: globalThis.sharedSecret ?? null,
    listeners: process.listenerCount('uncaughtException'),
  };
  yield { type: 'status', state: 'completed', message: { parts: [{ kind: 'data', data: seen }] } };
}`,
  'values.js': `
export default async function* () {
  const data = {};
  Object.defineProperty(data, 'x', { enumerable: true, get() { throw new Error('getter boom'); } });
  yield { type: 'artifact', artifact: { parts: [{ kind: 'data', data }] } };
  yield { type: 'status', state: 'completed' };
}`,
};

const CLEAN = { polluted: null, includes: false, json: '{"a":1}', sharedSecret: null, listeners: 0 };

async function world(t: Test): Promise<{ gw: TestGateway; key: string; logged: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-sweep-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  for (const [name, src] of Object.entries(AGENTS)) await writeFile(join(dir, name), src);
  const mod = (id: string) => ({ id, name: id, kind: 'module', entry: join(dir, `${id}.js`), timeoutMs: 60_000 });
  // the log is kept to say, should a clean turn run on a fresh worker, what the pool was told was left behind
  const logged: string[] = [];
  const gw = await startTestGateway({
    log: createLog({ level: 'info', write: (l) => logged.push(l) }),
    config: {
      agents: [{ id: 'echo', name: 'Echo', entry: 'echo', default: true, timeoutMs: 5000 }, mod('process'), mod('polluter'), mod('observer'), mod('values')],
      pool: { minThreads: 1, maxThreads: 1 },
    } as never,
  });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  return { gw, key, logged };
}

t.test('module agents against their own worker', async (t) => {
  const { gw, key, logged } = await world(t);
  const send = (agentId: string, text: string) => gw.rpc({ key, method: 'message/send', params: msgB(text, { metadata: { agentId } }) });
  const status = (r: { json: any }) => r.json.result?.status;
  const reason = (r: { json: any }) => status(r)?.message?.metadata?.reason;
  const text = (r: { json: any }): string => status(r)?.message?.parts?.[0]?.text ?? '';

  t.test('process.exit() and process.chdir() fail their own turn only', async (t) => {
    const exit = await send('process', 'exit');
    t.equal(reason(exit), 'worker_crash');
    t.match(text(exit), /worker exited with code: 7/);
    const chdir = await send('process', 'chdir');
    t.equal(reason(chdir), 'agent_error');
    t.match(text(chdir), /process\.chdir\(\) is not supported in workers/);
    t.equal(status(await send('process', 'fine')).state, 'completed');
  });

  t.test('odd throws are said plainly; a huge one is cut, not stored and served whole', async (t) => {
    t.equal(text(await send('process', 'symbol')), 'the agent threw Symbol(odd)');
    t.equal(text(await send('process', 'bigint')), 'the agent threw 12345678901234567890');
    for (const how of ['huge-throw', 'huge-timer-throw']) {
      const r = await send('process', how);
      t.equal(status(r).state, 'failed', `${how}: failed`);
      t.equal(reason(r), how === 'huge-throw' ? 'agent_error' : 'worker_crash', `${how}: its reason`);
      t.ok([...text(r)].length <= 4200, `${how}: the message is cut (${text(r).length} chars)`);
      t.ok(JSON.stringify(r.json).length < 16 * 1024, `${how}: the answer is small (${JSON.stringify(r.json).length} bytes), not 20 MB`);
    }
  });

  t.test('an event whose getter throws as it is read fails the turn as agent_protocol', async (t) => {
    const r = await send('values', 'go');
    t.equal(reason(r), 'agent_protocol');
    t.equal(text(r), 'agent yielded an event that cannot be read: getter boom');
  });

  t.test('what one agent changes of the shared globals never reaches the next turn: its worker is replaced', async (t) => {
    // one turn first, so that the two turns compared are neither a fresh worker's first (the subtest before ended its
    // worker); the failures once seen here under load were a deadline firing ahead of an answer already waiting
    // (fixed in the pool: the deadline decides one setImmediate later)
    const turnsOf = (r: { json: any }) => status(r)?.message?.parts?.[0]?.data?.turns;
    const pair = async () => {
      await send('observer', 'look');
      const first = await send('observer', 'look');
      const second = await send('observer', 'look');
      return { first, second, kept: turnsOf(second) === turnsOf(first) + 1 };
    };
    const recycles = () => logged.filter((l) => l.includes('agent worker replaced')).map((l) => JSON.parse(l) as { agent: string; left: string[] });
    let { first, second, kept } = await pair();
    // A file-system request still in flight 2 s after a turn's end recycles its worker by design (its callback would
    // run in the next agent's turn). Once, in CI on a loaded machine, a clean turn's worker was replaced for a file
    // close ('CloseReq') that outlived that wait. That excuse alone earns one more try; a worker replaced every time,
    // or for anything else, still fails here (a repeat of the same kinds is not logged again, so the retry must pass).
    const fsOnly = (r: { left: string[] }) => r.left.every((k) => /^(FSReqCallback|FSReqPromise|CloseReq)$/.test(k));
    const observerRecycles = () => recycles().filter((r) => r.agent === 'observer');
    if (!kept && observerRecycles().length > 0 && observerRecycles().every(fsOnly)) ({ first, second, kept } = await pair());
    // the states and reasons in the message say why, should a turn between them have failed (a timeout under load)
    const seenBy = (r: { json: any }) => `${status(r)?.state}/${reason(r) ?? '-'}/${turnsOf(r)}`;
    t.ok(kept, `a clean agent keeps its worker (first ${seenBy(first)}, second ${seenBy(second)}; recycles logged: ${JSON.stringify(recycles())})`);
    for (const [how, what] of [
      ['proto', 'Object.prototype polluted by a deep merge of JSON'],
      ['array', 'Array.prototype.includes replaced'],
      ['json', 'JSON.stringify replaced'],
      ['global', 'a global set'],
      ['listener', "an 'uncaughtException' listener on process"],
      ['port', "a wrapper on the worker's parentPort.postMessage that drops its events"],
      ['close-port', "the worker's parentPort closed"],
    ] as const) {
      const r = await send('polluter', how);
      if (how === 'close-port') {
        // no answer can leave its worker but as a dead worker's
        t.equal(reason(r), 'worker_crash', `${how}: the turn fails as its worker ends`);
        t.match(text(r), /worker exited with code: 86/);
      } else t.equal(status(r).state, 'completed', `${how}: the polluting turn keeps its result (${reason(r) ?? '-'}: ${text(r).slice(0, 200)})`);
      const o = await send('observer', 'look');
      t.equal(status(o).state, 'completed', `${how}: the next turn runs`);
      const { turns, ...seen } = status(o).message.parts[0].data;
      t.same(seen, CLEAN, `${how}: the next turn does not see ${what}`);
      t.equal(turns, 1, `${how}: it runs on a fresh worker`);
    }
  });
});

t.test("a turn that pollutes Object.prototype on a fresh worker keeps its result (the worker's check was built before it)", async (t) => {
  // the first module turn on the worker: before the fix, the event schema's first parse ran after the pollution and
  // failed the turn as agent_protocol ("Cannot read properties of undefined (reading 'values')")
  const { gw, key } = await world(t);
  const r = await gw.rpc({ key, method: 'message/send', params: msgB('proto', { metadata: { agentId: 'polluter' } }) });
  t.equal(r.json.result?.status?.state, 'completed', JSON.stringify(r.json.result?.status).slice(0, 300));
  const o = await gw.rpc({ key, method: 'message/send', params: msgB('look', { metadata: { agentId: 'observer' } }) });
  const { turns, ...seen } = o.json.result?.status?.message?.parts?.[0]?.data ?? {};
  t.same(seen, CLEAN, 'the next turn does not see the pollution');
  t.equal(turns, 1, 'it runs on a fresh worker');
});
