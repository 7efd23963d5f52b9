// The dashboard sub-store through both real engines (LMDB in a temp dir, Redis under a unique prefix): sessions by id
// with their collection (Redis TTL, LMDB sweep), keys' last use only ever raised, deliveries newest first and bounded,
// and a damaged record raised as StoreCorruptError rather than read as absent.
import t, { type Test } from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, type Database, type Key } from 'lmdb';
import { createClient } from 'redis';
import type { DashboardSession, DeliveryRecord } from '../../src/protocol/dashboard.js';
import { StoreCorruptError } from '../../src/runtime/store/errors.js';
import { LMDB_DBS, openLmdbStore } from '../../src/runtime/store/lmdb/index.js';
import { openRedisStore } from '../../src/runtime/store/redis/index.js';
import { redisKeys } from '../../src/runtime/redis/keys.js';
import type { Store } from '../../src/runtime/store/types.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';

const T = Date.UTC(2026, 0, 1);

interface Place {
  open(): Promise<Store>;
  /** the engine-specific check that an abandoned session is collected */
  collected(t: Test, s: Store): Promise<void>;
  /** plants a value no session schema accepts under session id `id` */
  corruptSession(id: string): Promise<void>;
}

const session = (id: string, expiresAt: number): DashboardSession => ({ id, workspace: 'ws-a', keyId: 'k1', csrf: `csrf-${id}`, expiresAt });
const delivery = (n: number): DeliveryRecord => ({
  id: `job-${n}`,
  taskId: `task-${n}`,
  configId: 'cfg',
  attempts: 1,
  result: n % 2 ? 'delivered' : 'retry',
  status: n % 2 ? 200 : null,
  error: n % 2 ? null : 'connection refused',
  at: T + n,
});

async function lmdbPlace(t: Test): Promise<Place> {
  const { path, open: openStore } = await lmdbDir(t);
  return {
    open: openStore,
    async collected(t, s) {
      for (let i = 0; i < 5; i++) await s.dashboard.putSession(session(`old-${i}`, T + i), { now: T - 1 });
      await s.dashboard.putSession(session('new', T + 3_600_000), { now: T + 10 });
      for (let i = 0; i < 5; i++) t.equal(await s.dashboard.getSession(`old-${i}`), undefined, `expired old-${i} swept by the next sign-in`);
      t.ok(await s.dashboard.getSession('new'));
    },
    async corruptSession(id) {
      const raw = open({ path, noSubdir: false, maxDbs: 32 });
      await raw.openDB({ name: 'dashboard-sessions' }).put(id, { id, expiresAt: 'soon' });
      await raw.close();
    },
  };
}

const rawClient = () => createClient({ url: REDIS_URL });
type RawClient = ReturnType<typeof rawClient>;

async function redisPlace(t: Test): Promise<Place> {
  const prefix = testPrefix('store-dashboard');
  const opened: Store[] = [];
  t.teardown(async () => {
    await Promise.all(opened.map((s) => s.close()));
    await cleanupPrefix(REDIS_URL, prefix);
  });
  const raw = async <R>(f: (c: RawClient) => Promise<R>): Promise<R> => {
    const c = rawClient();
    c.on('error', () => {});
    await c.connect();
    try {
      return await f(c);
    } finally {
      await c.close();
    }
  };
  return {
    async open() {
      const s = await openRedisStore({ url: REDIS_URL, prefix });
      opened.push(s);
      return s;
    },
    async collected(t, s) {
      await s.dashboard.putSession(session('ttl', T + 60_000), { now: T });
      const ttl = await raw((c) => c.pTTL(redisKeys(prefix).dashboardSession('ttl')));
      t.ok(ttl > 55_000 && ttl <= 60_000, `Redis drops the session when it expires (PTTL ${ttl})`);
    },
    async corruptSession(id) {
      await raw((c) => c.set(redisKeys(prefix).dashboardSession(id), 'not msgpack of a session'));
    },
  };
}

for (const [name, place] of [
  ['lmdb', lmdbPlace],
  ['redis', redisPlace],
] as const) {
  t.test(`${name}: dashboard store`, async (t) => {
    t.test('sessions: put, get from another instance, delete; collected when abandoned', async (t) => {
      const p = await place(t);
      const a = await p.open();
      const b = await p.open();
      const s = session('s1', T + 60_000);
      await a.dashboard.putSession(s, { now: T });
      t.strictSame(await b.dashboard.getSession('s1'), s, 'every field, read by another instance');
      t.equal(await b.dashboard.getSession('nope'), undefined);
      await b.dashboard.deleteSession('s1');
      t.equal(await a.dashboard.getSession('s1'), undefined, 'deleted for every instance');
      await a.dashboard.deleteSession('s1');
      t.pass('deleting an absent session is fine');
      await p.collected(t, a);
    });

    t.test('a damaged session is StoreCorruptError, not absent', async (t) => {
      const p = await place(t);
      const s = await p.open();
      await p.corruptSession('bad');
      await t.rejects(s.dashboard.getSession('bad'), StoreCorruptError);
    });

    t.test('keys last used: only ever raised, read for the ids asked', async (t) => {
      const p = await place(t);
      const a = await p.open();
      const b = await p.open();
      await a.dashboard.markKeysUsed([
        ['k1', T + 100],
        ['k2', T + 50],
      ]);
      await b.dashboard.markKeysUsed([
        ['k1', T + 10],
        ['k2', T + 70],
      ]);
      await b.dashboard.markKeysUsed([]);
      t.strictSame(
        await a.dashboard.keysLastUsed(['k1', 'k2', 'k3']),
        new Map([
          ['k1', T + 100],
          ['k2', T + 70],
        ]),
        'an older flush from another instance never lowers a time; an unused key has none',
      );
      t.strictSame(await a.dashboard.keysLastUsed([]), new Map());
    });

    t.test('deliveries: newest first, bounded per workspace, workspaces apart', async (t) => {
      const p = await place(t);
      const a = await p.open();
      const b = await p.open();
      for (let n = 1; n <= 7; n++) await a.dashboard.recordDelivery('ws-a', delivery(n), { keep: 5 });
      await b.dashboard.recordDelivery('ws-b', delivery(100), { keep: 5 });
      t.strictSame(
        (await b.dashboard.deliveries('ws-a')).map((d) => d.id),
        ['job-7', 'job-6', 'job-5', 'job-4', 'job-3'],
        'the newest 5',
      );
      t.strictSame((await b.dashboard.deliveries('ws-a'))[1], delivery(6), 'every field');
      t.strictSame(
        (await a.dashboard.deliveries('ws-b')).map((d) => d.id),
        ['job-100'],
      );
      t.strictSame(await a.dashboard.deliveries('ws-none'), []);
    });
  });
}

/** A fresh LMDB directory for a test, removed after it with every store opened on it. */
async function lmdbDir(t: Test): Promise<{ path: string; open(): Promise<Store> }> {
  const path = await mkdtemp(join(tmpdir(), 'a2a-dash-'));
  const opened: Store[] = [];
  t.teardown(async () => {
    await Promise.all(opened.map((s) => s.close()));
    await rm(path, { recursive: true, force: true });
  });
  return {
    path,
    async open() {
      const s = await openLmdbStore({ path });
      opened.push(s);
      return s;
    },
  };
}

/** Runs `f` on one of the store's sub-databases, opened raw as the store opens it (plain msgpack, no records). */
async function rawLmdb<R>(path: string, name: string, f: (db: Database<unknown, Key>) => R | Promise<R>): Promise<R> {
  const env = open({ path, noSubdir: false, maxDbs: 32 });
  const plain: Record<string, unknown> = { useRecords: false };
  try {
    return await f(env.openDB<unknown, Key>({ name, cache: false, ...plain }));
  } finally {
    await env.close();
  }
}

t.test('lmdb: each delivery attempt is one record of its own, appended and trimmed, the others neither read nor rewritten', async (t) => {
  const dir = await lmdbDir(t);
  const s = await dir.open();
  for (let n = 1; n <= 7; n++) await s.dashboard.recordDelivery('ws-a', delivery(n), { keep: 5 });
  await s.dashboard.recordDelivery('ws-b', delivery(100), { keep: 5 });
  const stored = await rawLmdb(dir.path, LMDB_DBS.dashboardDeliveryLog, (db) => [...db.getRange()].map((e) => [e.key, e.value]));
  t.strictSame(
    stored,
    [...[3, 4, 5, 6, 7].map((n) => [['ws-a', n], delivery(n)]), [['ws-b', 1], delivery(100)]],
    'one record per attempt, the newest 5 of ws-a',
  );

  // a record damaged on disk: the next attempts are still recorded (none reads it), the listing says it is damaged
  // until it falls out of the newest 5
  await rawLmdb(dir.path, LMDB_DBS.dashboardDeliveryLog, (db) => db.put(['ws-a', 4], { id: 'job-4', at: 'yesterday' }));
  await s.dashboard.recordDelivery('ws-a', delivery(8), { keep: 5 });
  await t.rejects(s.dashboard.deliveries('ws-a'), StoreCorruptError);
  await s.dashboard.recordDelivery('ws-a', delivery(9), { keep: 5 });
  t.strictSame(
    (await s.dashboard.deliveries('ws-a')).map((d) => d.id),
    ['job-9', 'job-8', 'job-7', 'job-6', 'job-5'],
    'the damaged record fell out with the others',
  );
});

t.test("lmdb: an older version's delivery lists are moved to the log on open, shown the same, and go on from there", async (t) => {
  const dir = await lmdbDir(t);
  const older = [3, 2, 1].map(delivery);
  await rawLmdb(dir.path, LMDB_DBS.dashboardDeliveries, async (lists) => {
    await lists.put('ws-a', older);
    await lists.put('ws-b', [{ id: 'not a delivery record' }]);
  });
  const s = await dir.open();
  t.strictSame(await s.dashboard.deliveries('ws-a'), older, 'every record, newest first');
  t.strictSame(await s.dashboard.deliveries('ws-b'), [], 'a damaged list is dropped, as the older version replaced it');
  await s.dashboard.recordDelivery('ws-a', delivery(4), { keep: 3 });
  t.strictSame(
    (await s.dashboard.deliveries('ws-a')).map((d) => d.id),
    ['job-4', 'job-3', 'job-2'],
    'a new attempt goes on top; the oldest falls out',
  );
  const left = await rawLmdb(dir.path, LMDB_DBS.dashboardDeliveries, (lists) => lists.getKeysCount());
  t.equal(left, 0, 'the older lists are gone, so a later open has nothing to move');
  const again = await dir.open();
  t.strictSame(
    (await again.dashboard.deliveries('ws-a')).map((d) => d.id),
    ['job-4', 'job-3', 'job-2'],
    'reopened: the same',
  );
});
