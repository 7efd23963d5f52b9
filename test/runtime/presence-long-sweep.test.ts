// A sweep for dead instances' tasks that takes long (many stuck tasks, a slow store) runs beside the instance's beats:
// it goes on beating meanwhile, so another instance never judges it dead (which would fail its running tasks with
// instance_lost). One sweep at a time. Real LMDB in a temp dir, injected clock.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { Presence } from '../../src/runtime/presence.js';
import { openLmdbStore } from '../../src/runtime/store/lmdb/index.js';

const BEAT_MS = 5_000;
const DEAD_AFTER_MS = 20_000;

const until = async (what: string, check: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
};

t.test('an instance whose sweep is still running keeps beating and is not judged dead', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'a2a-presence-sweep-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const store = await openLmdbStore({ path: join(dataDir, 'store') });
  t.teardown(() => store.close());
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const on = (instanceId: string) => new Presence({ meta: store.meta, clock, timers: clock, instanceId, beatMs: BEAT_MS, deadAfterMs: DEAD_AFTER_MS });

  let sweeps = 0;
  let endSweep!: () => void;
  const held = new Promise<void>((r) => {
    endSweep = r;
  });
  const busy = on('busy');
  busy.start(async () => {
    sweeps++;
    if (sweeps === 1) await held; // the first sweep does not end until the test says so
  });
  const other = on('other'); // only judges: another instance's view of the store
  // a beat is stored, and the next one armed: the stored beat is readable a moment before its write's promise
  // resolves and the next beat's timer is set, and a clock moved in between would leave that timer a step behind
  const beat = async () => (await store.meta.get('instance-beat:busy')) === clock.now() && clock.pending > 0;
  await until('the first beat', beat);

  // past the first sweep's start (deadAfterMs of steady beats), then twice deadAfterMs more with it still running
  for (let at = BEAT_MS; at <= 3 * DEAD_AFTER_MS; at += BEAT_MS) {
    clock.advance(BEAT_MS);
    await until(`the beat at +${at} ms`, beat);
    t.equal(await other.isDead('busy'), false, `alive at +${at} ms`);
  }
  t.equal(sweeps, 1, 'its sweep started, and no second one beside it');

  endSweep();
  await busy.idle();
  clock.advance(BEAT_MS);
  await busy.idle();
  t.equal(sweeps, 2, 'the next beat after the long sweep ended sweeps again');
  await busy.stop();
});
