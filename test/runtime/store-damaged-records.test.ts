// Damaged stored records (another version's, or a damaged file) on both engines: the gateway still starts, serves the
// other records, names each damaged one in its log (never a secret), and a request that reads one gets a clear error.
// The CLI lists the others (valid JSON), names the damaged ones on stderr, and removes a damaged connection or relay.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { open as lmdbOpen } from 'lmdb';
import { createClient } from 'redis';
import { connectionField, redisKeys } from '../../src/runtime/redis/keys.js';
import { LMDB_DBS, openLmdbStore } from '../../src/runtime/store/lmdb/index.js';
import { openRedisStore } from '../../src/runtime/store/redis/index.js';
import { taskKey, type Store } from '../../src/runtime/store/types.js';
import { hashKey, loadSecret } from '../../src/runtime/keys.js';
import { createKeyCli, rpcAt, runCli, startChildServer } from '../support/child-server.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';
import { sampleConnection, sampleKey, sampleTask } from '../support/store-records.js';

t.setTimeout(300_000);

const SEALED = 'AQ-sealed-credentials-of-c-bad';

/**
 * Writes (writes are not validated: that is the point) a good working task and one record of each kind a server lists
 * at start that no schema of this version accepts.
 */
async function plant(store: Store): Promise<void> {
  // no owner: left running by the previous process of this data dir, so recovery fails it at start
  await store.tasks.create({ ...sampleTask({ id: 'ok', state: 'working' }), owner: undefined });
  await store.tasks.create({ ...sampleTask({ id: 'bad', state: 'working' }), artifacts: 'from a newer version' } as never);
  await store.connections.insert(sampleConnection({ name: 'c-good' }));
  await store.connections.insert({ ...sampleConnection({ name: 'c-bad' }), dialect: 'V9', sealed: SEALED } as never);
  await store.relays.insert({ workspace: 'ws-a', name: 'r-bad', keyId: 'key-of-r-bad', agents: 'not a map' } as never);
  await store.keys.put({ ...sampleKey({ id: 'key-bad' }), trust: 'superuser' } as never);
  await store.tasks.create({ ...sampleTask({ id: 'bytes', state: 'working' }), owner: undefined });
  await store.close();
}

/** Bytes that are not msgpack at all (0xc1 is a code msgpack never uses), in place of a connection and a running task. */
const NOT_MSGPACK = Buffer.from([0xc1, 0xc1, 0xc1]);

async function check(t: Test, o: { dataDir: string; env: Record<string, string>; open: () => Promise<Store> }): Promise<void> {
  const [{ key }, victim] = await Promise.all([
    createKeyCli(o.dataDir, { workspace: 'ws-a', trust: 'admin', env: o.env }),
    createKeyCli(o.dataDir, { workspace: 'ws-a', trust: 'admin', env: o.env }),
  ]);
  const store = await o.open();
  await store.keys.put({ ...(await store.keys.get(victim.id))!, trust: 'superuser' } as never);
  await store.close();
  const victimHash = hashKey(await loadSecret({ dataDir: o.dataDir }), victim.key);
  const server = await startChildServer({ dataDir: o.dataDir, env: o.env });
  t.teardown(() => server.kill('SIGKILL'));
  t.pass('the gateway starts');

  const ok = await rpcAt(server.url, { key, method: 'tasks/get', params: { id: 'ok' } });
  t.equal(ok.json.result?.status?.state, 'failed', 'the good running task was recovered (failed as left running) like any other');
  const list = await rpcAt(server.url, { key, method: 'tasks/list', params: {} });
  t.same(
    list.json.result?.tasks?.map((x: { id: string }) => x.id),
    ['ok'],
    'tasks/list answers with the readable tasks, leaving the damaged one out',
  );
  const bad = await rpcAt(server.url, { key, method: 'tasks/get', params: { id: 'bad' } });
  t.equal(bad.status, 200);
  t.equal(bad.json.error?.code, -32603, 'reading the damaged task is an internal error');
  t.notMatch(JSON.stringify(bad.json), /\n\s+at |node_modules|\.ts:\d/, 'with no stack');

  const refused = await rpcAt(server.url, { key: victim.key, method: 'tasks/get', params: { id: 'ok' } });
  t.equal(refused.status, 401, 'a request with a damaged key is refused: the key cannot be verified');
  t.match(refused.json.error?.message, /API key cannot be verified/);
  t.notMatch(JSON.stringify(refused.json), /\n\s+at |node_modules|\.ts:\d/, 'with no stack');

  const logged = server.output().stderr;
  t.match(logged, `stored key record \\"${victim.id}\\" is corrupt (trust: `, 'the log names the damaged key by its id');
  t.notMatch(logged, victimHash, 'never by its hash');
  for (const [record, id] of [
    ['connection', 'ws-a/c-bad'],
    ['relay', 'ws-a/r-bad'],
    ['task', 'ws-a/bad'],
    ['connection', 'ws-a/c-bytes'],
    ['task', 'ws-a/bytes'],
  ]) {
    const line = logged.split('\n').find((l) => l.includes('damaged stored record') && l.includes(`"id":"${id}"`));
    t.ok(line, `the log names the damaged ${record} ${id}`);
    t.match(line ?? '', `"record":"${record}"`);
  }
  t.match(logged, /stored connection record \\"ws-a\/c-bad\\" is corrupt \(dialect: /, 'and says what is wrong with it');
  t.match(logged, /stored task record \\"ws-a\/bytes\\" is corrupt \(it does not decode\)/, 'or that it does not decode');
  t.notMatch(logged, SEALED, 'never the sealed credentials');

  const cli = (args: string[]) => runCli([...args, '--data-dir', o.dataDir], { env: o.env });
  const [keys, connections, relays] = await Promise.all([
    cli(['keys', 'list', '--json']),
    cli(['connections', 'list', '--json']),
    cli(['relays', 'list', '--json']),
  ]);
  t.equal(keys.code, 0, keys.stderr);
  t.same(
    JSON.parse(keys.stdout).map((k: { workspace: string }) => k.workspace),
    ['ws-a'],
    'keys list: the readable key, as JSON',
  );
  t.match(keys.stderr, /warning: stored key record "key-bad" is corrupt \(trust: .*\); it is left out/, 'keys list names the damaged key');
  t.same(
    JSON.parse(connections.stdout).map((c: { name: string }) => c.name),
    ['c-good'],
    'connections list: the readable connection',
  );
  t.match(connections.stderr, /stored connection record "ws-a\/c-bad" is corrupt \(dialect: /, 'connections list names the damaged one');
  t.match(connections.stderr, /stored connection record "ws-a\/c-bytes" is corrupt \(it does not decode\)/, 'and the one that does not decode');
  t.notMatch(connections.stdout + connections.stderr, SEALED, 'never its sealed credentials');
  t.same(JSON.parse(relays.stdout), [], 'relays list: none readable');
  t.match(relays.stderr, /stored relay record "ws-a\/r-bad" is corrupt/, 'relays list names the damaged one');

  const [removedConnection, removedRelay] = await Promise.all([
    cli(['connections', 'remove', 'c-bad', '--workspace', 'ws-a']),
    cli(['relays', 'remove', 'r-bad', '--workspace', 'ws-a', '--json']),
  ]);
  t.equal(removedConnection.code, 0, removedConnection.stderr);
  t.match(removedConnection.stdout, 'connection c-bad removed from workspace ws-a (its record was damaged)', 'a damaged connection can be removed');
  t.equal(removedRelay.code, 0, removedRelay.stderr);
  t.same(JSON.parse(removedRelay.stdout), { workspace: 'ws-a', name: 'r-bad', damaged: true }, 'a damaged relay can be removed');
  const [after, gone] = await Promise.all([cli(['connections', 'list', '--json']), cli(['connections', 'show', 'c-bad', '--workspace', 'ws-a'])]);
  t.notMatch(after.stderr, 'c-bad', 'the damaged connection is gone');
  t.match(gone.stderr, /no connection named c-bad in workspace ws-a/);
}

t.test('lmdb: damaged records keep neither the gateway nor the CLI from serving the others', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'a2a-damaged-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const open = () => openLmdbStore({ path: join(dataDir, 'store') });
  await plant(await open());
  const raw = lmdbOpen({ path: join(dataDir, 'store'), noSubdir: false, maxDbs: 32 });
  await raw.openDB({ name: LMDB_DBS.connections, encoding: 'binary' }).put(['ws-a', 'c-bytes'], NOT_MSGPACK);
  await raw.openDB({ name: LMDB_DBS.tasks, encoding: 'binary' }).put(taskKey('ws-a', 'bytes'), NOT_MSGPACK);
  await raw.close();
  await check(t, { dataDir, env: {}, open });
});

t.test('redis: damaged records keep neither the gateway nor the CLI from serving the others', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'a2a-damaged-'));
  const prefix = testPrefix('damaged');
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  t.teardown(() => cleanupPrefix(REDIS_URL, prefix));
  const open = () => openRedisStore({ url: REDIS_URL, prefix });
  await plant(await open());
  const raw = createClient({ url: REDIS_URL });
  raw.on('error', () => {});
  await raw.connect();
  const k = redisKeys(prefix);
  await raw.hSet(k.connections, connectionField('ws-a', 'c-bytes'), NOT_MSGPACK);
  await raw.set(k.task(taskKey('ws-a', 'bytes')), NOT_MSGPACK);
  await raw.close();
  await check(t, { dataDir, env: { A2A_STORE: 'redis', REDIS_URL, A2A_REDIS_PREFIX: prefix }, open });
});
