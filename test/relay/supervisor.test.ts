// The supervisor on its own, with a real XState machine whose action throws on BOOM and a ManualClock: a crash restarts
// a fresh actor (its cleanup run once), restarts beyond the bound wait for the window, stop() ends it for good, and an
// incarnation that cannot even be made is bounded the same way.
import t from 'tap';
import { createActor, setup } from 'xstate';
import { supervise } from '../../relay/supervisor.js';
import { ManualClock } from '../../src/runtime/clock.js';

const machine = setup({ types: {} as { events: { type: 'BOOM' } } }).createMachine({
  on: {
    BOOM: {
      actions: () => {
        throw new Error('boom');
      },
    },
  },
});
const tick = () => new Promise<void>((r) => setImmediate(r));

t.test('a crash restarts a fresh actor, at most maxRestarts in the window; stop() ends it', async (t) => {
  const clock = new ManualClock();
  const log: Array<{ msg: string; f?: Record<string, unknown> }> = [];
  let made = 0;
  let disposed = 0;
  const s = supervise({
    name: 'toy',
    log: (msg, f) => log.push({ msg, ...(f && { f }) }),
    clock,
    timers: clock,
    maxRestarts: 2,
    windowMs: 10_000,
    create: () => {
      made++;
      return { actor: createActor(machine), dispose: () => disposed++ };
    },
  });
  const first = s.current();
  first.send({ type: 'BOOM' });
  t.equal(first.getSnapshot().status, 'error', 'the actor crashed');
  await tick();
  t.not(s.current(), first, 'a fresh actor');
  t.equal(s.current().getSnapshot().status, 'active');
  t.match({ made, disposed, restarts: s.restarts() }, { made: 2, disposed: 1, restarts: 1 });
  t.match(log, [{ msg: 'relay actor crashed, restarting it', f: { actor: 'toy', error: /boom/, restarts: 1 } }]);

  clock.advance(4_000);
  s.current().send({ type: 'BOOM' });
  await tick();
  t.equal(s.restarts(), 2);
  s.current().send({ type: 'BOOM' });
  await tick();
  t.equal(s.restarts(), 2, 'a third crash within the window waits');
  t.equal(s.current().getSnapshot().status, 'error');
  t.equal(s.restartAt(), clock.now() + 6_000, 'until the first restart leaves the window');
  t.match(log.at(-1), { msg: 'relay actor crashed too often, restart delayed', f: { retry_in_ms: 6_000, max_restarts: 2 } });
  t.equal(disposed, 3, 'each crashed actor cleaned up once');
  clock.advance(5_999);
  t.equal(s.restarts(), 2);
  clock.advance(1);
  t.equal(s.restarts(), 3, 'restarted when the window lets it');
  t.equal(s.current().getSnapshot().status, 'active');

  s.current().send({ type: 'BOOM' });
  await tick();
  const pending = s.restartAt();
  t.ok(pending, 'another wait');
  s.stop();
  clock.advance(60_000);
  await tick();
  t.equal(s.restarts(), 3, 'stop() cancels the waiting restart');
  t.equal(disposed, 4);
});

t.test('an incarnation that cannot be made is retried within the same bound', async (t) => {
  const clock = new ManualClock();
  const log: string[] = [];
  let failMaking = false;
  const s = supervise({
    name: 'toy',
    log: (msg) => log.push(msg),
    clock,
    timers: clock,
    maxRestarts: 3,
    windowMs: 10_000,
    create: () => {
      if (failMaking) throw new Error('cannot make it');
      return { actor: createActor(machine) };
    },
  });
  failMaking = true;
  s.current().send({ type: 'BOOM' });
  for (let i = 0; i < 5; i++) await tick();
  t.equal(s.restarts(), 3, 'three tries, then the wait');
  t.equal(log.at(-1), 'relay actor crashed too often, restart delayed');
  failMaking = false;
  clock.advance(10_000);
  t.equal(s.current().getSnapshot().status, 'active', 'made when it can be');
  s.stop();
});
