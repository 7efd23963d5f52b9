// A damaged key last-used time, meta expiry, key record or connection status (bytes that are not msgpack, a value that is not a time) is reported
// naming its kind and id and then replaced by the write that meets it: one damaged value no longer fails every
// flush of every key's last use, nor every instance beat. A read of several keys' last use leaves a damaged one out.
// Real LMDB in a temp dir, real Redis under a unique prefix.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { open as lmdbOpen } from 'lmdb';
import { createClient } from 'redis';
import type { StoreCorruptError } from '../../src/runtime/store/errors.js';
import { LMDB_DBS, openLmdbStore } from '../../src/runtime/store/lmdb/index.js';
import { openRedisStore } from '../../src/runtime/store/redis/index.js';
import { redisKeys } from '../../src/runtime/redis/keys.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';

/** 0xc1 is a code msgpack never uses */
const NOT_MSGPACK = Buffer.from([0xc1, 0xc1, 0xc1]);
const T = Date.UTC(2026, 0, 1);

const told = (seen: StoreCorruptError[]) => seen.map((e) => `${e.record} ${e.id}`);

t.test('lmdb: a damaged last-used time or meta expiry is reported and replaced, never fails the write', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'a2a-damaged-usage-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const path = join(dataDir, 'store');
  const s0 = await openLmdbStore({ path });
  await s0.meta.put('instance-beat:i1', T, { now: T, expiresAt: T + 1_000 });
  const key = {
    id: 'k-dmg',
    hash: 'h-new',
    workspaceId: 'ws-a',
    trust: 'execute' as const,
    scopes: [],
    agents: [],
    createdAt: T,
    expiresAt: null,
    revokedAt: null,
  };
  await s0.close();
  const raw = lmdbOpen({ path, noSubdir: false, maxDbs: 32 });
  await raw.openDB({ name: LMDB_DBS.dashboardKeyUsed, encoding: 'binary' }).put('k-bad', NOT_MSGPACK);
  await raw.openDB({ name: LMDB_DBS.dashboardKeyUsed, encoding: 'binary' }).put('k-worse', NOT_MSGPACK);
  await raw.openDB({ name: LMDB_DBS.metaExpires, encoding: 'binary' }).put('instance-beat:i1', NOT_MSGPACK);
  await raw.openDB({ name: LMDB_DBS.connectionStatus, encoding: 'binary' }).put(['ws-a', 'c1'], NOT_MSGPACK);
  await raw.openDB({ name: LMDB_DBS.keys, encoding: 'binary' }).put('k-dmg', NOT_MSGPACK);
  await raw.close();

  const seen: StoreCorruptError[] = [];
  const s = await openLmdbStore({ path, onCorrupt: (e) => seen.push(e) });
  t.teardown(() => s.close());

  const last = await s.dashboard.keysLastUsed(['k-bad', 'k-worse']);
  t.strictSame([...last], [], 'a read of last uses leaves the damaged ones out');
  await s.dashboard.markKeysUsed([
    ['k-bad', T + 5],
    ['k-good', T + 6],
  ]);
  t.strictSame(
    [...(await s.dashboard.keysLastUsed(['k-bad', 'k-good']))],
    [
      ['k-bad', T + 5],
      ['k-good', T + 6],
    ],
    'the flush stored every key, the damaged one replaced',
  );
  t.ok(told(seen).includes('key-usage k-bad'), 'the damaged last use is reported by kind and id');
  t.ok(told(seen).includes('key-usage k-worse'));

  // the beat is put again with a later expiry: its old index entry [T + 1_000, key] must go with the damaged expiry
  await s.meta.put('instance-beat:i1', T + 2, { now: T + 2, expiresAt: T + 10_000 });
  t.equal(await s.meta.get('instance-beat:i1'), T + 2, 'the put over a damaged expiry is stored');
  t.ok(told(seen).includes('meta instance-beat:i1'), 'the damaged expiry is reported by kind and id');
  await s.meta.put('instance-beat:i2', T + 2_000, { now: T + 2_000, expiresAt: T + 20_000 });
  t.equal(await s.meta.get('instance-beat:i1'), T + 2, 'a sweep past the old expiry leaves the beat put later');
  await s.meta.put('instance-beat:i3', T + 10_001, { now: T + 10_001, expiresAt: T + 30_000 });
  t.equal(await s.meta.get('instance-beat:i1'), undefined, 'and collects it at its new expiry');

  const status = await s.connections.getStatus('ws-a', 'c1').catch((e: unknown) => e);
  t.match(status, { name: 'StoreCorruptError', record: 'connection-status', id: 'ws-a/c1' }, 'a damaged connection status is named as one');
  await s.keys.put(key as never);
  t.match(await s.keys.get('k-dmg'), { id: 'k-dmg', hash: 'h-new' }, 'a key put over a damaged record replaces it');
  t.ok(told(seen).includes('key k-dmg'), 'the damaged key record is reported by kind and id');
  t.notMatch(JSON.stringify(seen.map((e) => e.message)), /0xC1|c1c1/i, 'never the stored bytes');
});

t.test('redis: a damaged last-used time is left out of a read and replaced by the next flush', async (t) => {
  const prefix = testPrefix('damaged-usage');
  const seen: StoreCorruptError[] = [];
  const s = await openRedisStore({ url: REDIS_URL, prefix, onCorrupt: (e) => seen.push(e) });
  t.teardown(async () => {
    await s.close();
    await cleanupPrefix(REDIS_URL, prefix);
  });
  const c = createClient({ url: REDIS_URL });
  await c.connect();
  await c.hSet(redisKeys(prefix).keyLastUsed, 'k-bad', 'not a time');
  await c.close();
  t.strictSame([...(await s.dashboard.keysLastUsed(['k-bad']))], [], 'left out of the read');
  t.ok(told(seen).includes('key-usage k-bad'), 'and reported by kind and id');
  await s.dashboard.markKeysUsed([['k-bad', T + 5]]);
  t.strictSame([...(await s.dashboard.keysLastUsed(['k-bad']))], [['k-bad', T + 5]], 'replaced by the next flush');
});
