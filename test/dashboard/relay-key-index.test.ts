// A relay's key opens one relay: a second relay with the key is refused, and removing the relay frees its key. The
// insert finds the key through the store's key index (kept with the records), not by reading every relay; a store
// written before the index (its relays, no index) gets one at its first add and still refuses a taken key; an index
// entry whose relay was removed by a version that knew no index frees the key. The real gateway on port 0, its admin
// API over HTTP, both engines; records "from before" are written raw, as that version wrote them.
import { join } from 'node:path';
import { open as lmdbOpen } from 'lmdb';
import { createClient } from 'redis';
import t, { type Test } from 'tap';
import type { ConfigInput } from '../../src/config/schema.js';
import type { RelayRecord } from '../../src/protocol/relays.js';
import { connectionField, redisKeys } from '../../src/runtime/redis/keys.js';
import { LMDB_DBS } from '../../src/runtime/store/lmdb/index.js';
import { packr } from '../../src/runtime/store/redis/values.js';
import { adminCall } from '../support/admin-api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';

/** Writes and removes relay records as a version without the key index did: the record alone. */
interface Raw {
  put(rec: RelayRecord): Promise<void>;
  remove(workspace: string, name: string): Promise<void>;
  close(): Promise<void>;
}

function lmdbRaw(tg: TestGateway): Raw {
  const root = lmdbOpen({ path: join(tg.dataDir, 'store'), noSubdir: false, maxDbs: 32 });
  // the store's own encoding (plain msgpack); lmdb-js's typings do not list useRecords
  const db = root.openDB({ name: LMDB_DBS.relays, cache: false, ...({ useRecords: false } as object) });
  return {
    put: async (rec) => void (await db.put([rec.workspace, rec.name], rec)),
    remove: async (workspace, name) => void (await db.remove([workspace, name])),
    close: () => root.close(),
  };
}

async function redisRaw(prefix: string): Promise<Raw> {
  const client = createClient({ url: REDIS_URL });
  client.on('error', () => {});
  await client.connect();
  const k = redisKeys(prefix);
  return {
    put: async (rec) => void (await client.hSet(k.relays, connectionField(rec.workspace, rec.name), packr.pack(rec))),
    remove: async (workspace, name) => void (await client.hDel(k.relays, connectionField(workspace, name))),
    close: async () => void (await client.close()),
  };
}

async function check(t: Test, config: ConfigInput, raw: (tg: TestGateway) => Promise<Raw>): Promise<void> {
  const tg = await startTestGateway({ config });
  t.teardown(() => tg.close());
  const admin = await tg.key({ workspace: 'acme', trust: 'admin' });
  const call = (method: string, path: string, body?: unknown) => adminCall(tg, method, path, { bearer: admin.key, ...(body !== undefined && { body }) });
  const r = await raw(tg);
  t.teardown(() => r.close());

  // a relay written before the index (no add by this version yet): the first add builds the index and is refused
  const legacyKey = await tg.key({ workspace: 'acme', trust: 'execute' });
  const now = Date.now();
  await r.put({ id: 'relay_legacy', workspace: 'acme', name: 'legacy', keyId: legacyKey.id, agents: {}, createdAt: now, updatedAt: now });
  const refusedLegacy = await call('POST', '/relays', { name: 'newer', key: legacyKey.id });
  t.equal(refusedLegacy.status, 400, 'a key opening a relay stored before the index is refused');
  t.equal(refusedLegacy.json.message, `key: ${legacyKey.id} already opens relay legacy; give each relay its own key`);

  // a second relay with a key is refused, naming the relay it opens
  const k = await tg.key({ workspace: 'acme', trust: 'execute' });
  t.equal((await call('POST', '/relays', { name: 'one', key: k.id })).status, 200);
  const second = await call('POST', '/relays', { name: 'two', key: k.id });
  t.equal(second.status, 400, 'a second relay with the key is refused');
  t.equal(second.json.message, `key: ${k.id} already opens relay one; give each relay its own key`);
  t.equal(second.json.field, 'key');
  t.strictSame(
    (await call('GET', '/relays')).json.relays.map((x: { name: string }) => x.name),
    ['legacy', 'one'],
    'nothing was added',
  );

  // removing the relay frees its key; the key then opens the new relay only
  t.equal((await call('DELETE', '/relays/one')).status, 200);
  t.equal((await call('POST', '/relays', { name: 'two', key: k.id })).status, 200, 'the key of a removed relay opens a new one');
  const third = await call('POST', '/relays', { name: 'three', key: k.id });
  t.equal(third.json.message, `key: ${k.id} already opens relay two; give each relay its own key`, 'and is taken again');

  // a relay removed by a version without the index leaves its entry behind: that entry takes no key
  await r.remove('acme', 'two');
  t.equal((await call('POST', '/relays', { name: 'four', key: k.id })).status, 200, 'an entry whose relay is gone frees the key');
  // one removed by this version frees the legacy relay's key as well
  t.equal((await call('DELETE', '/relays/legacy')).status, 200);
  t.equal((await call('POST', '/relays', { name: 'newer', key: legacyKey.id })).status, 200);
  t.strictSame(
    (await call('GET', '/relays')).json.relays.map((x: { name: string; key_id: string }) => [x.name, x.key_id]),
    [
      ['four', k.id],
      ['newer', legacyKey.id],
    ],
  );
}

t.test('lmdb: a key opens one relay; removing the relay frees it', (t) => check(t, {}, async (tg) => lmdbRaw(tg)));

t.test('redis: a key opens one relay; removing the relay frees it', (t) => {
  const prefix = testPrefix('relay-key-index');
  t.teardown(() => cleanupPrefix(REDIS_URL, prefix));
  return check(t, { store: 'redis', redisUrl: REDIS_URL, redisPrefix: prefix }, () => redisRaw(prefix));
});
