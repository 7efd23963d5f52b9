// The relay's metrics registry: its process metrics stop with it, so an admin UI closed in a process that goes on
// (a host embedding the relay, a test run) leaves no GC observer or event-loop monitor behind; the admin UI's live
// streams are counted (open now, cut off for falling behind), scraped from a real admin server over loopback.
import { connect } from 'node:net';
import t from 'tap';
import { createRelayMetrics } from '../../relay/admin/metrics.js';
import { startAdmin } from '../../relay/admin/server.js';
import { parseRelayConfig } from '../../relay/config.js';
import { until } from '../support/a2a-client.js';
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

t.test("the admin UI's open live streams are counted, and those cut off for falling behind", async (t) => {
  const config = parseRelayConfig({
    text: JSON.stringify({
      workspace_id: 'ws1',
      api_key: 'relay-key-Ls9dQ2vB',
      gateway_url: 'ws://127.0.0.1:9',
      agents: [{ name: 'echo', local_url: 'http://127.0.0.1:9' }],
      admin_port: 0,
    }),
  });
  const admin = await startAdmin({ config, log: () => {}, streams: { maxBufferedBytes: 64 * 1024 } });
  t.teardown(() => admin.close());
  const scrape = async (name: string) => total(await (await fetch(`${admin.url}/metrics`)).text(), name);
  t.equal(await scrape('a2a_relay_admin_streams'), 0, 'none open at first');
  const opened = await Promise.all(
    [1, 2].map(async () => {
      const ctl = new AbortController();
      const res = await fetch(`${admin.url}/api/events`, { signal: ctl.signal });
      await res.body!.getReader().read();
      return ctl;
    }),
  );
  t.equal(await scrape('a2a_relay_admin_streams'), 2, 'two open');
  opened[0]!.abort();
  await until(async () => (await scrape('a2a_relay_admin_streams')) === 1, 'one closed: one open');
  t.pass('a closed stream is no longer counted');
  t.equal(await scrape('a2a_relay_admin_streams_cut_total'), 0, 'none cut yet');

  // a raw reader that reads nothing after its request: its share of 40 MB of changes waits, past the bound
  const u = new URL(admin.url);
  const slow = connect(Number(u.port), u.hostname);
  t.teardown(() => slow.destroy());
  slow.pause();
  slow.write(`GET /api/events HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`);
  await until(async () => (await scrape('a2a_relay_admin_streams')) === 2, 'the slow reader is open');
  const view = { state: 'waiting', upSince: undefined, restarts: 0, failures: 1, delayMs: 1000, nextRetryAt: undefined, retryAfterMs: undefined } as const;
  const big = 'x'.repeat(100 * 1024);
  for (let i = 0; i < 400 && (await scrape('a2a_relay_admin_streams')) === 2; i++) admin.observer.tunnel?.({ ...view, lastError: `${big} ${i}` });
  await until(async () => (await scrape('a2a_relay_admin_streams_cut_total')) === 1, 'the slow reader cut off');
  t.equal(await scrape('a2a_relay_admin_streams'), 1, 'and no longer counted as open');
  opened[1]!.abort();
});
