// The relay's metrics registry: its process metrics stop with it, so an admin UI closed in a process that goes on
// (a host embedding the relay, a test run) leaves no GC observer or event-loop monitor behind.
import t from 'tap';
import { createRelayMetrics } from '../../relay/admin/metrics.js';
import { collectGarbage, total } from '../support/gc.js';

t.test("the relay's process metrics count GCs until stopped, and none after", async (t) => {
  const metrics = createRelayMetrics();
  const GC = 'a2a_relay_nodejs_gc_duration_seconds_count';
  const before = total(await metrics.registry.metrics(), GC);
  await collectGarbage();
  t.ok(total(await metrics.registry.metrics(), GC) > before, 'while running, a GC is counted');
  metrics.stop();
  const stopped = total(await metrics.registry.metrics(), GC);
  await collectGarbage();
  t.equal(total(await metrics.registry.metrics(), GC), stopped, 'once stopped, a GC is not counted');
});
