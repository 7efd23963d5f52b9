// The agent pool with real worker threads: the builtin agents, cancellation and timeouts.
import t from 'tap';
import { createAgentPool } from '../../src/runtime/pool/index.js';
import { recorder, runInput, userMessage } from './pool-helpers.js';

const pool = createAgentPool({ minThreads: 1, maxThreads: 2 });
t.teardown(() => pool.destroy());

t.test('echo: one artifact with the message parts, then completed, all before the result', async (t) => {
  const rec = recorder();
  const message = userMessage('hi there', {
    parts: [
      { kind: 'text', text: 'hi there' },
      { kind: 'data', data: { n: 1 } },
    ],
  });
  const result = await pool.run(runInput({ agent: { id: 'echo' }, message }), { onEvent: rec.onEvent });
  t.same(result, { ok: true, events: 2 });
  t.same(rec.events, [
    { type: 'artifact', artifact: { name: 'echo', parts: message.parts } },
    { type: 'status', state: 'completed' },
  ]);
});

t.test('echo without a subscriber still counts its events', async (t) => {
  t.same(await pool.run(runInput({ agent: { id: 'echo' } })), { ok: true, events: 2 });
});

t.test('a builtin is picked by entry before id', async (t) => {
  const rec = recorder();
  const result = await pool.run(runInput({ agent: { id: 'my-echo', entry: 'echo' } }), { onEvent: rec.onEvent });
  t.equal(result.ok, true);
  t.equal(rec.events[0]?.type, 'artifact');
});

t.test('converse: asks for input each turn, summarises on "done"', async (t) => {
  const agent = { id: 'converse' };
  const first = userMessage('hello');
  const r1 = recorder();
  t.same(await pool.run(runInput({ agent, message: first }), { onEvent: r1.onEvent }), { ok: true, events: 1 });
  t.match(r1.events, [{ type: 'status', state: 'input-required', message: { parts: [{ kind: 'text', text: /Turn 1/ }] } }]);

  const reply = { role: 'agent' as const, parts: [{ kind: 'text' as const, text: 'more?' }], messageId: 'a-1' };
  const second = userMessage('world');
  const r2 = recorder();
  await pool.run(runInput({ agent, history: [first, reply], message: second }), { onEvent: r2.onEvent });
  t.match(r2.events, [{ type: 'status', state: 'input-required', message: { parts: [{ text: /Turn 2: got "world"/ }] } }]);

  // the gateway may already have appended the current message to the history: it must not count twice
  const done = userMessage('  DONE ');
  const r3 = recorder();
  const result = await pool.run(runInput({ agent, history: [first, reply, second, done], message: done }), { onEvent: r3.onEvent });
  t.same(result, { ok: true, events: 2 });
  t.match(r3.events[0], {
    type: 'artifact',
    artifact: {
      name: 'summary',
      parts: [
        { kind: 'text', text: /^3 user turns/ },
        { kind: 'data', data: { turns: 3, texts: ['hello', 'world', '  DONE '] } },
      ],
    },
  });
  t.same(r3.events[1], { type: 'status', state: 'completed' });
});

t.test('slow: progress and artifact chunks arrive live and in order', async (t) => {
  const rec = recorder();
  const message = userMessage('go', { parts: [{ kind: 'data', data: { ms: 240, steps: 4 } }] });
  const result = await pool.run(runInput({ agent: { id: 'slow' }, message }), { onEvent: rec.onEvent });
  const resolvedAt = performance.now();
  t.same(result, { ok: true, events: 9 });
  t.same(
    rec.events.map((e) =>
      e.type === 'status' ? `${e.state}` : e.type === 'artifact' ? `chunk${e.artifact.append ? '+' : ''}${e.artifact.lastChunk ? '!' : ''}` : e.type,
    ),
    ['working', 'chunk', 'working', 'chunk+', 'working', 'chunk+', 'working', 'chunk+!', 'completed'],
  );
  t.match(rec.events[2], { type: 'status', message: { parts: [{ text: 'step 2/4' }], metadata: { step: 2, steps: 4 } } });
  const ids = new Set(rec.events.flatMap((e) => (e.type === 'artifact' ? [e.artifact.artifactId] : [])));
  t.equal(ids.size, 1, 'every chunk belongs to one artifact');
  // Step 1 is reported ~60 ms in and the run ends ~240 ms in: a batched-at-the-end delivery would fail this.
  t.ok(resolvedAt - (rec.at[0] ?? resolvedAt) > 90, 'the first progress event arrived well before the result');
});

t.test('slow reads its parameters from message metadata too', async (t) => {
  const rec = recorder();
  const message = userMessage('go', { metadata: { ms: 1, steps: 2, mode: 'cpu' } });
  t.same(await pool.run(runInput({ agent: { id: 'slow' }, message }), { onEvent: rec.onEvent }), { ok: true, events: 5 });
  t.match(rec.events[4], { type: 'status', state: 'completed', message: { parts: [{ text: /in 2 steps \(cpu\)/ }] } });
});

for (const mode of ['sleep', 'cpu'] as const) {
  t.test(`cancel of a running ${mode}-mode slow run ends its worker, and the pool serves the next run`, async (t) => {
    const before = pool.stats().workers.destroyed;
    const rec = recorder();
    const ac = new AbortController();
    const message = userMessage('go', { parts: [{ kind: 'data', data: { ms: 20_000, steps: 400, mode } }] });
    const started = performance.now();
    const running = pool.run(runInput({ agent: { id: 'slow' }, message }), { onEvent: rec.onEvent, signal: ac.signal });
    await rec.first;
    ac.abort();
    const result = await running;
    t.equal(result.ok, false);
    if (!result.ok) t.equal(result.error.reason, 'canceled');
    t.ok(performance.now() - started < 10_000, 'canceled long before the agent would have finished');
    const seen = rec.events.length;
    t.ok(pool.stats().workers.destroyed > before, 'the worker running the agent was terminated');
    t.same(await pool.run(runInput({ agent: { id: 'echo' } })), { ok: true, events: 2 });
    t.equal(rec.events.length, seen, 'no event is delivered after the run settled');
  });
}

t.test('a cooperative run canceled before it reached a worker settles as canceled, with no events', async (t) => {
  const rec = recorder();
  const ac = new AbortController();
  const running = pool.run(runInput({ agent: { id: 'echo' } }), { signal: ac.signal, onEvent: rec.onEvent });
  ac.abort();
  t.match(await running, { ok: false, error: { reason: 'canceled' } });
  t.same(rec.events, []);
});

t.test('a signal aborted before the call cancels without running', async (t) => {
  const result = await pool.run(runInput({ agent: { id: 'echo' } }), { signal: AbortSignal.abort() });
  t.match(result, { ok: false, error: { reason: 'canceled' } });
});

t.test('timeout: a run past timeoutMs fails with timeout; the agent spec supplies the default', async (t) => {
  const message = userMessage('go', { parts: [{ kind: 'data', data: { ms: 20_000, steps: 2, mode: 'cpu' } }] });
  const started = performance.now();
  const byOption = await pool.run(runInput({ agent: { id: 'slow' }, message }), { timeoutMs: 150 });
  t.match(byOption, { ok: false, error: { reason: 'timeout', message: /150 ms/ } });
  const bySpec = await pool.run(runInput({ agent: { id: 'slow', timeoutMs: 120 }, message }));
  t.match(bySpec, { ok: false, error: { reason: 'timeout', message: /120 ms/ } });
  t.ok(performance.now() - started < 10_000);
  t.same(await pool.run(runInput({ agent: { id: 'echo' } })), { ok: true, events: 2 });
});
