// The pool keeps agents apart: a busy-looping agent holds one thread, not the pool; closing settles every run.
import t from 'tap';
import { createAgentPool } from '../../src/runtime/pool/index.js';
import { fixture, recorder, runInput, userMessage } from './pool-helpers.js';

t.test('a cpu-busy agent on one thread does not stop echo runs on the other', async (t) => {
  const pool = createAgentPool({ minThreads: 2, maxThreads: 2 });
  t.teardown(() => pool.destroy());
  // both threads up and warm, so the measurement below is not a thread start-up
  await Promise.all(Array.from({ length: 8 }, () => pool.run(runInput({ agent: { id: 'echo' } }))));

  const rec = recorder();
  const ac = new AbortController();
  const message = userMessage('spin', { parts: [{ kind: 'data', data: { ms: 30_000, steps: 300, mode: 'cpu' } }] });
  const busy = pool.run(runInput({ agent: { id: 'slow' }, message }), { onEvent: rec.onEvent, signal: ac.signal });
  await rec.first;

  const started = performance.now();
  const echoes = await Promise.all(Array.from({ length: 50 }, (_, i) => pool.run(runInput({ agent: { id: 'echo' }, message: userMessage(`e${i}`) }))));
  t.ok(
    echoes.every((r) => r.ok),
    'every echo run succeeded',
  );
  t.ok(performance.now() - started < 5_000, 'echo runs finished while the busy agent still held its thread');
  t.equal(pool.stats().inFlight, 1, 'the busy run is still going');

  ac.abort();
  t.match(await busy, { ok: false, error: { reason: 'canceled' } });
});

t.test('many concurrent echo runs each get their own events', async (t) => {
  const pool = createAgentPool({ minThreads: 2, maxThreads: 2 });
  t.teardown(() => pool.destroy());
  const results = await Promise.all(
    Array.from({ length: 300 }, async (_, i) => {
      const rec = recorder();
      const r = await pool.run(runInput({ agent: { id: 'echo' }, message: userMessage(`n${i}`) }), { onEvent: rec.onEvent });
      return { r, rec, i };
    }),
  );
  for (const { r, rec, i } of results) {
    if (!r.ok || rec.events.length !== 2) return t.fail(`run ${i} went wrong: ${JSON.stringify(r)}`);
    t.match(rec.events[0], { type: 'artifact', artifact: { parts: [{ text: `n${i}` }] } }, `run ${i}`);
  }
  t.equal(pool.stats().succeeded, 300);
});

t.test('close lets running runs finish, then refuses new ones', async (t) => {
  const pool = createAgentPool({ minThreads: 1, maxThreads: 1 });
  const message = userMessage('go', { parts: [{ kind: 'data', data: { ms: 60, steps: 2 } }] });
  const running = pool.run(runInput({ agent: { id: 'slow' }, message }));
  // still waiting in the batcher when close() is called
  const queuedEcho = pool.run(runInput({ agent: { id: 'echo' } }));
  const closed = pool.close();
  t.match(await pool.run(runInput({ agent: { id: 'echo' } })), { ok: false, error: { reason: 'pool_closed' } });
  await closed;
  t.same(await running, { ok: true, events: 5 });
  t.same(await queuedEcho, { ok: true, events: 2 }, 'a run accepted before close was still served');
  t.equal(pool.close(), pool.close(), 'close is idempotent');
  await pool.close();
});

t.test('destroy settles runs in progress as pool_closed', async (t) => {
  const pool = createAgentPool({ minThreads: 1, maxThreads: 1 });
  const rec = recorder();
  const message = userMessage('go', { parts: [{ kind: 'data', data: { ms: 20_000, steps: 200 } }] });
  const running = pool.run(runInput({ agent: { id: 'slow' }, message }), { onEvent: rec.onEvent });
  await rec.first;
  await pool.destroy();
  t.match(await running, { ok: false, error: { reason: 'pool_closed' } });
});

t.test('a heap cap turns an out-of-memory agent into worker_crash, not a dead process', async (t) => {
  // roomy enough for a worker that loads tap's and tsx's hooks before the agent
  const pool = createAgentPool({ minThreads: 1, maxThreads: 1, maxHeapMb: 96 });
  t.teardown(() => pool.destroy());
  const result = await pool.run(runInput({ agent: { id: 'hog', kind: 'module', entry: fixture('hogs-memory.js') } }), { timeoutMs: 30_000 });
  t.match(result, { ok: false, error: { reason: 'worker_crash' } });
  t.same(await pool.run(runInput({ agent: { id: 'echo' } })), { ok: true, events: 2 });
});
