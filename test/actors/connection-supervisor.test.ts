// The connection supervisor over a real store and the real A2A client: a crashed actor is replaced and its connection
// carries on; actors follow the store (added, changed, removed); a record that cannot start leaves the others running.
import t, { type Test } from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConnectionSupervisor } from '../../src/actors/connection-supervisor.js';
import { addConnection, openCredentials, removeConnection } from '../../src/runtime/connection-admin.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { parseAllowlist } from '../../src/runtime/net/guard.js';
import { openLmdbStore } from '../../src/runtime/store/lmdb/index.js';
import type { Store } from '../../src/runtime/store/types.js';
import { testClient, until } from '../support/a2a-client.js';

const SECRET = Buffer.from('supervisor-test-secret-0123456789');
const SETTINGS = { backoffBaseMs: 1_000, backoffMaxMs: 8_000, circuitFailures: 5, coolDownMs: 30_000, readyWaitMs: 5_000, rescanMs: 60_000 };

/** A port nothing listens on: every connection to it is refused at once. */
async function deadPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

async function setup(t: Test, random: () => number) {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-sup-'));
  const store: Store = await openLmdbStore({ path: dir });
  const clock = new ManualClock();
  const logs: string[] = [];
  const client = testClient({ clock, timers: clock });
  const sup = new ConnectionSupervisor({
    connections: store.connections,
    client,
    openCredentials: (rec) => openCredentials({ secret: SECRET }, rec),
    keepResult: async () => {},
    clock,
    timers: clock,
    random,
    settings: SETTINGS,
    log: (msg, f) => logs.push(`${msg} ${JSON.stringify(f)}`),
  });
  const admin = { connections: store.connections, secret: SECRET, clock, allowlist: parseAllowlist(['127.0.0.1']) };
  t.teardown(async () => {
    await sup.stop();
    await client.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { store, clock, logs, sup, admin };
}

t.test('a crashed actor is restarted by its supervisor, and the connection goes on backing off', async (t) => {
  // the jitter source fails once: the machine's backoff action throws inside the actor, which crashes it
  let calls = 0;
  const h = await setup(t, () => {
    if (calls++ === 0) throw new Error('jitter source broke');
    return 0.5;
  });
  const port = await deadPort();
  await addConnection(h.admin, { workspace: 'w', name: 'dead', url: `http://127.0.0.1:${port}`, credentials: { kind: 'none' } });
  await h.sup.rescan();
  await until(() => h.logs.some((l) => l.startsWith('connection actor crashed; restarting it')), 'the crash is noticed');
  t.match(h.logs.find((l) => l.includes('crashed'))!, /jitter source broke/);
  await until(() => h.sup.status('w', 'dead')?.state === 'backing-off', 'the fresh actor backs off');
  const s = h.sup.status('w', 'dead')!;
  t.equal(s.failures, 1, 'the new actor counted its own failure');
  t.match(s.lastError, /ECONNREFUSED|refused/);
  await until(async () => (await h.store.connections.getStatus('w', 'dead'))?.state === 'backing-off', 'the status reaches the store');
});

t.test('actors follow the store: a removed connection stops, a record that cannot open is logged and the rest start', async (t) => {
  const h = await setup(t, () => 0.5);
  const port = await deadPort();
  await addConnection(h.admin, { workspace: 'w', name: 'a', url: `http://127.0.0.1:${port}`, credentials: { kind: 'none' } });
  await addConnection(
    { ...h.admin, secret: Buffer.from('another-secret-entirely-0123456789') },
    { workspace: 'w', name: 'foreign', url: `http://127.0.0.1:${port}`, credentials: { kind: 'bearer', token: 'sealed-elsewhere' } },
  );
  await h.sup.rescan();
  t.ok(h.sup.status('w', 'a'), 'the good record runs');
  t.equal(h.sup.status('w', 'foreign'), undefined, 'the record sealed under another secret does not');
  t.ok(h.logs.some((l) => l.startsWith('connection not started') && l.includes('foreign')));
  t.notOk(h.logs.join('\n').includes('sealed-elsewhere'), 'no secret in the log');
  // its card read settles first (refused): the timer left to cancel is then the backoff's own, not the read's deadline,
  // which a read still in flight on a loaded machine would hold until the refusal arrives
  await until(() => h.sup.status('w', 'a')?.state === 'backing-off', 'the dead remote is backed off from');
  t.ok(h.clock.pending > 0, 'the backoff waits on a timer');
  await removeConnection(h.admin, { workspace: 'w', name: 'a' });
  await h.sup.rescan();
  t.equal(h.sup.status('w', 'a'), undefined, 'a removed connection stops');
  t.equal(h.clock.pending, 0, 'and leaves no timer behind');
});
