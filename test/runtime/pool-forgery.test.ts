// A hostile module agent posting event batches under other runs' ids: without a run's key they are dropped and counted,
// and the victim run sees only its own agent's events.
import t from 'tap';
import { createAgentPool } from '../../src/runtime/pool/index.js';
import { fixture, recorder, runInput, userMessage } from './pool-helpers.js';

t.test('forged event batches never reach another run; malformed ones never crash the pool', async (t) => {
  const pool = createAgentPool({ minThreads: 2, maxThreads: 2 });
  t.teardown(() => pool.close());
  const victim = recorder();
  // a slow builtin runs meanwhile: its run id is among those the forger guesses
  const slow = pool.run(
    runInput({ agent: { id: 'slow', kind: 'builtin', entry: 'slow' }, message: userMessage('x', { parts: [{ kind: 'data', data: { ms: 1500, steps: 3 } }] }) }),
    { onEvent: victim.onEvent },
  );
  await victim.first;
  const forger = await pool.run(runInput({ agent: { id: 'forger', kind: 'module', entry: fixture('forger.js'), options: { upTo: 50 } } }), {
    onEvent: () => {},
  });
  t.equal(forger.ok, true, 'the forger itself ends normally');
  const r = await slow;
  t.equal(r.ok, true);
  const texts = victim.events.flatMap((e) => (e.type === 'artifact' ? e.artifact.parts.map((p) => (p.kind === 'text' ? p.text : '')) : []));
  t.notOk(texts.includes('forged'), 'no forged artifact reached the victim');
  t.notOk(
    victim.events.some((e) => e.type === 'status' && e.state === 'completed' && !e.message),
    'no forged status reached the victim',
  );
  t.ok(pool.stats().forged >= 1, `forged batches counted: ${pool.stats().forged}`);
});

t.test('a module agent that posts a malformed event under its own run fails its run, nothing else', async (t) => {
  const pool = createAgentPool({ minThreads: 1, maxThreads: 1 });
  t.teardown(() => pool.close());
  const seen = recorder();
  const r = await pool.run(runInput({ agent: { id: 'bad', kind: 'module', entry: fixture('own-forger.js') } }), { onEvent: seen.onEvent });
  t.equal(r.ok, false);
  t.equal(!r.ok && r.error.reason, 'agent_protocol');
  t.same(seen.events, [], 'the malformed event was not delivered');
});
