// Module agents in the real pool: loading by path, and every way one can fail (crash, throw, bad events).
import t from 'tap';
import { createAgentPool } from '../../src/runtime/pool/index.js';
import { fixture, recorder, runInput, userMessage } from './pool-helpers.js';

const pool = createAgentPool({ minThreads: 1, maxThreads: 2 });
t.teardown(() => pool.destroy());

for (const how of ['uncaught exception in a timer', 'process.exit'] as const) {
  t.test(`worker crash (${how}) gives worker_crash, and the next run succeeds`, async (t) => {
    const rec = recorder();
    const message = userMessage('crash', how === 'process.exit' ? { metadata: { exit: true } } : {});
    const result = await pool.run(runInput({ agent: { id: 'crasher', kind: 'module', entry: fixture('crashes-worker.js') }, message }), {
      onEvent: rec.onEvent,
    });
    t.match(result, { ok: false, error: { reason: 'worker_crash', message: how === 'process.exit' ? /exited with code: 3/ : /boom/ } });
    t.match(rec.events, [{ type: 'status', state: 'working' }], 'events sent before the crash were delivered');
    t.same(await pool.run(runInput({ agent: { id: 'echo' } })), { ok: true, events: 2 });
  });
}

t.test('an agent that throws gives agent_error, after the events it yielded', async (t) => {
  const rec = recorder();
  const result = await pool.run(runInput({ agent: { id: 'thrower', kind: 'module', entry: fixture('throws.js') } }), { onEvent: rec.onEvent });
  t.same(result, { ok: false, error: { reason: 'agent_error', message: 'agent exploded on purpose' } });
  t.same(rec.events, [{ type: 'status', state: 'working' }]);
});

t.test('an invalid event gives agent_protocol and stops the agent', async (t) => {
  const rec = recorder();
  const result = await pool.run(runInput({ agent: { id: 'bad', kind: 'module', entry: fixture('invalid-event.js') } }), { onEvent: rec.onEvent });
  t.match(result, { ok: false, error: { reason: 'agent_protocol', message: /invalid event[\s\S]*state/ } });
  t.same(rec.events, [{ type: 'status', state: 'working' }], 'nothing after the invalid event');
});

t.test('other contract breaches give agent_protocol too', async (t) => {
  const entry = fixture('invalid-event.js');
  const notIterable = await pool.run(runInput({ agent: { id: 'bad', kind: 'module', entry, options: { breakage: 'not-iterable' } } }));
  t.match(notIterable, { ok: false, error: { reason: 'agent_protocol', message: /async iterable/ } });
  const rec = recorder();
  const uncloneable = await pool.run(runInput({ agent: { id: 'bad', kind: 'module', entry, options: { breakage: 'uncloneable' } } }), {
    onEvent: rec.onEvent,
  });
  t.match(uncloneable, {
    ok: false,
    error: { reason: 'agent_protocol', message: /a function at event\.artifact\.parts\.0\.data\.fn, which is not JSON data/ },
  });
  t.same(rec.events, [{ type: 'status', state: 'working' }]);
  t.same(await pool.run(runInput({ agent: { id: 'echo' } })), { ok: true, events: 2 }, 'the worker survived');
});

t.test('unknown agents give agent_not_found', async (t) => {
  t.match(await pool.run(runInput({ agent: { id: 'nope' } })), { ok: false, error: { reason: 'agent_not_found', message: /nope/ } });
  const missing = await pool.run(runInput({ agent: { id: 'gone', kind: 'module', entry: fixture('does-not-exist.js') } }));
  t.match(missing, { ok: false, error: { reason: 'agent_not_found', message: /failed to load/ } });
  const noEntry = await pool.run(runInput({ agent: { id: 'x', kind: 'module' } }));
  t.match(noEntry, { ok: false, error: { reason: 'agent_not_found' } });
});

t.test('a module agent from a fixture path, absolute or relative to the cwd, with its options', async (t) => {
  for (const entry of [fixture('well-behaved.js'), 'test/fixtures/agents/well-behaved.js']) {
    const rec = recorder();
    const input = runInput({ agent: { id: 'shout', kind: 'module', entry, options: { prefix: '> ' } }, message: userMessage('quiet please') });
    t.same(await pool.run(input, { onEvent: rec.onEvent }), { ok: true, events: 3 });
    t.match(rec.events[1], { type: 'artifact', artifact: { name: 'shout', parts: [{ text: '> QUIET PLEASE' }] } });
  }
});

t.test('a burst of chunks: every event delivered in order before the result', async (t) => {
  const rec = recorder();
  const input = runInput({ agent: { id: 'burst', kind: 'module', entry: fixture('burst.js'), options: { chunks: 120 } } });
  t.same(await pool.run(input, { onEvent: rec.onEvent }), { ok: true, events: 121 });
  const texts = rec.events.flatMap((e) => (e.type === 'artifact' ? e.artifact.parts.map((p) => (p.kind === 'text' ? p.text : '')) : []));
  t.same(
    texts,
    Array.from({ length: 120 }, (_, i) => `${i},`),
  );
  t.equal(rec.events[120]?.type, 'status');
});

t.test('a throwing subscriber does not break the run', async (t) => {
  const before = pool.stats().subscriberErrors;
  const result = await pool.run(runInput({ agent: { id: 'echo' } }), {
    onEvent: () => {
      throw new Error('subscriber bug');
    },
  });
  t.same(result, { ok: true, events: 2 });
  t.equal(pool.stats().subscriberErrors, before + 2);
});

t.test('output nested past the JSON depth bound gives agent_protocol at once, not a run that never ends', async (t) => {
  const entry = fixture('deep-output.js');
  const started = Date.now();
  const deep = await pool.run(runInput({ agent: { id: 'deep', kind: 'module', entry, timeoutMs: 60_000 } }));
  t.match(deep, { ok: false, error: { reason: 'agent_protocol', message: /nested deeper than \d+ levels/ } });
  t.ok(Date.now() - started < 30_000, 'answered long before the deadline');
  const fine = await pool.run(runInput({ agent: { id: 'deep', kind: 'module', entry, options: { levels: 40 } } }));
  t.same(fine, { ok: true, events: 1 }, 'output within the bound passes');
});

t.test('a worker is replaced after a module run that left a timer in it, and only then', async (t) => {
  const own = createAgentPool({ minThreads: 1, maxThreads: 1 });
  t.teardown(() => own.destroy());
  const clean = runInput({ agent: { id: 'shout', kind: 'module', entry: fixture('well-behaved.js') } });
  t.match(await own.run(clean), { ok: true });
  t.match(await own.run(clean), { ok: true });
  const setup = runInput({ agent: { id: 'setup', kind: 'module', entry: fixture('timer-at-import.js') } });
  t.match(await own.run(setup), { ok: true });
  t.match(await own.run(setup), { ok: true });
  t.equal(own.stats().workers.recycled, 0, 'a module run that leaves nothing behind keeps its worker, as does one whose module set up a timer when it loaded');
  const leaver = runInput({ agent: { id: 'leaver', kind: 'module', entry: fixture('leaves-timer.js') } });
  t.same(await own.run(leaver), { ok: true, events: 1 }, 'the run itself succeeds');
  t.equal(own.stats().workers.recycled, 1, 'its worker is ended');
  // on the leaver's worker, its busy loop would have fired 100 ms into this run and held it past its deadline
  const slow = runInput({ agent: { id: 'slow' }, message: userMessage('go', { parts: [{ kind: 'data', data: { ms: 300, steps: 1 } }] }) });
  t.match(await own.run(slow, { timeoutMs: 10_000 }), { ok: true });
});

t.test('a worker is replaced after a module run that left a BroadcastChannel, a Worker or a non-persistent fs.promises.watch', async (t) => {
  const own = createAgentPool({ minThreads: 1, maxThreads: 1 });
  t.teardown(() => own.destroy());
  const entry = fixture('leaves-unlisted.js');
  t.match(await own.run(runInput({ agent: { id: 'none', kind: 'module', entry } })), { ok: true });
  t.equal(own.stats().workers.recycled, 0, 'a run that leaves nothing keeps its worker');
  for (const [n, leave] of ['broadcast', 'worker', 'watch'].entries()) {
    t.same(await own.run(runInput({ agent: { id: leave, kind: 'module', entry, options: { leave } } })), { ok: true, events: 1 }, `${leave}: the run succeeds`);
    t.equal(own.stats().workers.recycled, n + 1, `${leave}: its worker is ended`);
  }
});

t.test('an fs.promises.watch left iterating recycles the worker, named in the recycle, on a fresh worker and net of closed watchers', async (t) => {
  const lefts: string[][] = [];
  const own = createAgentPool({ minThreads: 1, maxThreads: 1, onRecycle: (r) => lefts.push([...r.left]) });
  t.teardown(() => own.destroy());
  const entry = fixture('leaves-unlisted.js');
  const ended = runInput({ agent: { id: 'watch-ended', kind: 'module', entry, options: { leave: 'watch-ended' } } });
  t.same(await own.run(ended), { ok: true, events: 1 });
  t.equal(own.stats().workers.recycled, 0, 'promise watchers ended in the turn: its worker is kept');
  // each turn after the first runs on the worker that replaced the one before: a fresh worker's first turn
  for (let n = 1; n <= 6; n++) {
    // fs.watch's callback kind is counted among the live handles, as the worker's own watchers were while closing
    const [leave, named] = n % 2 ? ['watch', 'fs.promises.watch'] : ['watch-callback', 'FSEventWrap'];
    t.same(await own.run(runInput({ agent: { id: leave, kind: 'module', entry, options: { leave } } })), { ok: true, events: 1 });
    t.equal(own.stats().workers.recycled, n, `turn ${n}: its worker is ended`);
    t.ok(lefts[n - 1]?.includes(named), `turn ${n}: the recycle names ${named} (${lefts[n - 1]?.join(', ')})`);
  }
  // the turn closed the watcher its module opened at import: as many watchers are open at its end as at its start
  const swaps = runInput({ agent: { id: 'swaps', kind: 'module', entry: fixture('swaps-watcher.js') } });
  t.same(await own.run(swaps), { ok: true, events: 1 });
  t.equal(own.stats().workers.recycled, 7, 'a watcher started where the turn closed another: its worker is ended');
  t.same(lefts[6], ['fs.promises.watch'], 'named alone: the live-handle count nets out');
});

t.test("a module agent's output past maxOutputBytes fails its run in the worker, before it crosses threads", async (t) => {
  const own = createAgentPool({ minThreads: 1, maxThreads: 1, maxOutputBytes: 1024 * 1024 });
  t.teardown(() => own.destroy());
  const rec = recorder();
  const huge = runInput({ agent: { id: 'huge', kind: 'module', entry: fixture('huge-artifact.js') } });
  const result = await own.run(huge, { onEvent: rec.onEvent });
  t.match(result, { ok: false, error: { reason: 'output_too_large', message: /limit of 1048576 bytes \(tasks\.maxTaskBytes\)/ } });
  t.same(rec.events, [{ type: 'status', state: 'working' }], 'the artifact never reached the main thread');
  const small = runInput({ agent: { id: 'small', kind: 'module', entry: fixture('huge-artifact.js'), options: { mb: 0 } } });
  t.match(await own.run(small), { ok: true, events: 3 }, 'output within the bound passes');
  t.match(await own.run(runInput({ agent: { id: 'echo' } })), { ok: true }, 'builtins are not measured');
});
