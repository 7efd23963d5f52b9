// A module agent that outruns the main thread: while the main thread is busy, its worker queues batch after batch,
// and Node hands a port's whole queue over in one go. The pool hands the events on a bounded number per event-loop
// turn, so the rest of the gateway (other callers' requests) gets turns in between; every event still arrives, in
// order, before the run's result.
import t from 'tap';
import type { AgentEvent } from '../../src/protocol/agent-events.js';
import { createAgentPool } from '../../src/runtime/pool/index.js';
import { fixture, runInput } from './pool-helpers.js';
import { countLoopTurns } from '../support/loop-turns.js';

const CHUNKS = 20_000;

t.test('a burst queued while the main thread was busy is handed on over many turns, whole and in order', async (t) => {
  const pool = createAgentPool({ minThreads: 1, maxThreads: 1 });
  t.teardown(() => pool.close());
  // the event-loop turn each event was handed on in
  const loop = countLoopTurns();
  t.teardown(loop.stop);
  const perTurn = new Map<number, number>();
  const texts: string[] = [];
  let busy = true;
  const onEvent = (ev: AgentEvent) => {
    // the first event finds the main thread busy with other work (a big write, say) for a while: meanwhile the worker
    // runs on and queues the rest of its burst
    if (busy) {
      busy = false;
      const until = performance.now() + 300;
      while (performance.now() < until);
    }
    perTurn.set(loop.turns(), (perTurn.get(loop.turns()) ?? 0) + 1);
    if (ev.type === 'artifact') texts.push(ev.artifact.parts.map((p) => (p.kind === 'text' ? p.text : '')).join(''));
  };
  const r = await pool.run(runInput({ agent: { id: 'burst', kind: 'module', entry: fixture('burst.js'), options: { chunks: CHUNKS } } }), { onEvent });
  t.equal(r.ok, true, 'the run ends normally');
  t.equal(texts.length, CHUNKS, 'every chunk arrived before the result');
  t.ok(
    texts.every((s, i) => s === `${i},`),
    'in order',
  );
  const most = Math.max(...perTurn.values());
  t.ok(most <= 1_024, `at most a bounded number of events per event-loop turn (most: ${most}, over ${perTurn.size} turns)`);
});
