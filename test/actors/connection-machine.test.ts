// The connection machine's transitions, one case per row: discovery, backoff with full jitter, circuit open, half-open probe.
import t from 'tap';
import { createActor } from 'xstate';
import { createConnectionMachine, STATE_NAMES, type ConnectionActor, type DiscoveryResult } from '../../src/actors/connection-machine.js';
import { ManualClock } from '../../src/runtime/clock.js';

/** A discovery the test settles by hand: each attempt waits until the test says how it ends. */
function harness(o: { circuitFailures?: number; random?: number } = {}) {
  const clock = new ManualClock();
  const attempts: Array<{ fresh: boolean; ok: (r?: DiscoveryResult) => void; fail: (e: Error) => void }> = [];
  const machine = createConnectionMachine({
    discover: ({ fresh }) =>
      new Promise<DiscoveryResult>((resolve, reject) => {
        attempts.push({ fresh, ok: (r) => resolve(r ?? { dialect: 'B', remoteName: 'remote' }), fail: reject });
      }),
    random: () => o.random ?? 0.5,
    now: () => clock.now(),
    backoffBaseMs: 1_000,
    backoffMaxMs: 8_000,
    circuitFailures: o.circuitFailures ?? 3,
    coolDownMs: 30_000,
  });
  const actor: ConnectionActor = createActor(machine, {
    clock: { setTimeout: (fn: () => void, ms: number) => clock.after(ms, fn), clearTimeout: (cancel: () => void) => cancel() },
  });
  actor.start();
  const settle = () => new Promise<void>((r) => setImmediate(r));
  const state = () => STATE_NAMES[String(actor.getSnapshot().value)];
  const last = () => attempts[attempts.length - 1]!;
  return { clock, actor, attempts, settle, state, last, ctx: () => actor.getSnapshot().context };
}

t.test('discovering -> ready on a card; the dialect and name are kept and failures reset', async (t) => {
  const h = harness();
  t.equal(h.state(), 'discovering');
  t.equal(h.attempts.length, 1);
  t.equal(h.last().fresh, false, 'the first discovery may use the card cache');
  h.last().ok({ dialect: 'A', remoteName: 'peer' });
  await h.settle();
  t.equal(h.state(), 'ready');
  t.same({ dialect: h.ctx().dialect, remoteName: h.ctx().remoteName, failures: h.ctx().failures }, { dialect: 'A', remoteName: 'peer', failures: 0 });
});

t.test('discovering -> backing-off with exponential delays under full jitter, then discovering again', async (t) => {
  const h = harness({ circuitFailures: 5, random: 0.5 });
  const delays: number[] = [];
  for (let i = 0; i < 4; i++) {
    const before = h.clock.now();
    h.last().fail(new Error(`down ${i}`));
    await h.settle();
    t.equal(h.state(), 'backing-off');
    t.equal(h.ctx().lastError, `down ${i}`);
    delays.push(h.ctx().nextRetryAt! - before);
    h.clock.advance(h.ctx().delayMs - 1);
    t.equal(h.state(), 'backing-off', 'no retry before the delay');
    h.clock.advance(1);
    t.equal(h.state(), 'discovering');
  }
  // half of 1s, 2s, 4s, 8s (the cap)
  t.same(delays, [500, 1000, 2000, 4000]);
});

t.test('full jitter: a random near 0 retries almost at once, never at 0 ms', async (t) => {
  const h = harness({ random: 0 });
  h.last().fail(new Error('down'));
  await h.settle();
  t.equal(h.ctx().delayMs, 1);
});

t.test('repeated discovery failures open the circuit; after the cool-down one fresh probe; success closes it', async (t) => {
  const h = harness({ circuitFailures: 3 });
  for (let i = 0; i < 2; i++) {
    h.last().fail(new Error('refused'));
    await h.settle();
    h.clock.advance(h.ctx().delayMs);
  }
  h.last().fail(new Error('refused'));
  await h.settle();
  t.equal(h.state(), 'circuit-open');
  t.equal(h.ctx().failures, 3);
  t.equal(h.ctx().nextRetryAt, h.clock.now() + 30_000, 'the next probe is after the cool-down');
  const n = h.attempts.length;
  h.clock.advance(29_999);
  t.equal(h.attempts.length, n, 'nothing reaches the remote while the circuit is open');
  h.clock.advance(1);
  t.equal(h.state(), 'half-open');
  t.equal(h.last().fresh, true, 'the probe goes past the card cache');
  h.last().ok();
  await h.settle();
  t.equal(h.state(), 'ready');
  t.equal(h.ctx().failures, 0);
  t.equal(h.ctx().lastError, undefined);
});

t.test('a failed probe opens the circuit again for another cool-down', async (t) => {
  const h = harness({ circuitFailures: 1 });
  h.last().fail(new Error('refused'));
  await h.settle();
  t.equal(h.state(), 'circuit-open');
  h.clock.advance(30_000);
  h.last().fail(new Error('still refused'));
  await h.settle();
  t.equal(h.state(), 'circuit-open');
  t.equal(h.ctx().lastError, 'still refused');
});

t.test('ready: call faults count; a success resets them; enough in a row open the circuit', async (t) => {
  const h = harness({ circuitFailures: 3 });
  h.last().ok();
  await h.settle();
  h.actor.send({ type: 'CALL_FAULT', error: 'timeout' });
  h.actor.send({ type: 'CALL_FAULT', error: 'timeout' });
  t.equal(h.state(), 'ready');
  t.equal(h.ctx().failures, 2);
  h.actor.send({ type: 'CALL_OK' });
  t.equal(h.ctx().failures, 0);
  for (let i = 0; i < 3; i++) h.actor.send({ type: 'CALL_FAULT', error: 'ECONNREFUSED' });
  t.equal(h.state(), 'circuit-open');
  t.equal(h.ctx().lastError, 'ECONNREFUSED');
});

t.test('REDISCOVER from ready or backing-off discovers now; STOP from any state stops', async (t) => {
  const h = harness();
  h.last().ok();
  await h.settle();
  h.actor.send({ type: 'REDISCOVER' });
  t.equal(h.state(), 'discovering');
  h.last().fail(new Error('x'));
  await h.settle();
  t.equal(h.state(), 'backing-off');
  h.actor.send({ type: 'REDISCOVER' });
  t.equal(h.state(), 'discovering');
  h.actor.send({ type: 'STOP' });
  t.equal(h.state(), 'stopped');
  t.equal(h.actor.getSnapshot().status, 'done');
  t.equal(h.clock.pending, 0, 'a stopped connection leaves no timer behind');
});

t.test('events that mean nothing in a state are ignored (a call result while discovering)', async (t) => {
  const h = harness();
  h.actor.send({ type: 'CALL_FAULT', error: 'late' });
  h.actor.send({ type: 'CALL_OK' });
  t.equal(h.state(), 'discovering');
  t.equal(h.ctx().failures, 0);
});
