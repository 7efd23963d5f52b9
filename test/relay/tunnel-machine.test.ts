// The tunnel's supervisor machine on its own: a session that crashes (its code throws) is restarted after backoff like
// any failed connection, and the relay goes on; STOP ends it. The session here is a function standing for the real
// one (test/relay/reconnect.test.ts drives the real sessions), so that a crash can be provoked at will.
import t from 'tap';
import { createActor } from 'xstate';
import { backoffDelay, createTunnelMachine } from '../../relay/tunnel-machine.js';
import type { SessionEnd } from '../../relay/session.js';
import { ManualClock } from '../../src/runtime/clock.js';

t.test('a crashing session is restarted after backoff; STOP ends the machine', async (t) => {
  const clock = new ManualClock();
  let calls = 0;
  let release: ((e: SessionEnd) => void) | undefined;
  const machine = createTunnelMachine({
    baseMs: 1000,
    capMs: 60_000,
    retryAttempts: 0,
    random: () => 0.5,
    now: () => clock.now(),
    connect: () => {
      calls++;
      if (calls === 1) throw new Error('boom in the session');
      return new Promise<SessionEnd>((r) => {
        release = r;
      });
    },
  });
  const actor = createActor(machine, { clock: { setTimeout: (fn: () => void, ms: number) => clock.after(ms, fn), clearTimeout: (c: () => void) => c() } });
  actor.start();
  await new Promise((r) => setImmediate(r));
  const s = actor.getSnapshot();
  t.equal(s.value, 'waiting', 'the crash is a failure, not the end');
  t.equal(s.context.lastError, 'the tunnel crashed: boom in the session');
  t.equal(s.context.delayMs, 500);
  clock.advance(500);
  t.equal(calls, 2, 'restarted');
  t.equal(actor.getSnapshot().value, 'session');
  actor.send({ type: 'STOP' });
  t.equal(actor.getSnapshot().value, 'stopped');
  t.equal(actor.getSnapshot().status, 'done');
  release?.({ kind: 'closed', welcomed: false, held: false, reason: 'x' });
});

t.test('backoffDelay: full jitter under min(cap, base·2^(n-1))', async (t) => {
  const s = { baseMs: 1000, capMs: 60_000, retryAttempts: 0 };
  t.equal(
    backoffDelay(s, 1, () => 0),
    0,
  );
  t.equal(
    backoffDelay(s, 3, () => 0.5),
    2000,
  );
  t.equal(
    backoffDelay(s, 50, () => 0.5),
    30_000,
    'capped, no overflow',
  );
});
