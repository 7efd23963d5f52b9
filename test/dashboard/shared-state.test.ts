// The dashboard's state is the store's, not one process's: two gateway instances on one Redis prefix share sign-in
// sessions (a cookie made on A works on B, sign-out on B ends it on A), keys' last use (after the flush interval) and
// recent webhook deliveries; on LMDB a session outlives a restart, and an expired one is refused.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, RESP_TYPES } from 'redis';
import t, { type Test } from 'tap';
import { KEY_USAGE_FLUSH_MS } from '../../src/main.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { until } from '../support/a2a-client.js';
import { adminCall as call, adminSignIn as signIn } from '../support/admin-api.js';
import { msgB, startTestGateway, type TestGateway } from '../support/gateway.js';
import { startPair } from '../support/instance-pair.js';
import { REDIS_URL, testPrefix } from '../support/redis.js';
import { startReceiver } from '../support/webhooks.js';

t.setTimeout(120_000);

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** Every key name and value under a Redis prefix, as bytes, for a search. */
async function redisDump(prefix: string): Promise<Buffer> {
  const c = createClient({ url: REDIS_URL });
  c.on('error', () => {});
  await c.connect();
  const parts: Buffer[] = [];
  try {
    for await (const batch of c.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      for (const key of batch) {
        parts.push(Buffer.from(key));
        if ((await c.type(key)) === 'string') {
          const v = await c.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer }).get(key);
          if (v) parts.push(Buffer.from(v));
        }
      }
    }
  } finally {
    await c.close();
  }
  return Buffer.concat(parts);
}

async function pair(t: Test) {
  const prefix = testPrefix('dash-shared');
  // one manual clock for both: flushes and expiries move only when the test says so
  const clock = new ManualClock(T0);
  const [a, b] = await startPair(t, {
    prefix,
    settings: { push: { allowlist: ['127.0.0.1'] }, dashboard: { enabled: true, sessionTtlMs: 3_600_000 } },
    clock,
  });
  return { a, b, clock, prefix };
}

t.test('a session made on A works on B (read and mutation), and signing out on B ends it on A', async (t) => {
  const { a, b } = await pair(t);
  const admin = await a.key({ workspace: 'acme', trust: 'admin' });
  const s = await signIn(a, admin.key);
  t.equal(s.status, 200, 'signed in on A');

  const onB = await call(b, 'GET', '/session', { cookie: s.cookie });
  t.equal(onB.status, 200, 'B knows the session');
  t.match(onB.json, { workspace: 'acme', csrf: s.csrf }, 'with the same workspace and CSRF token');
  t.equal((await call(b, 'GET', '/keys', { cookie: s.cookie })).status, 200, 'a page read on B');
  t.equal((await call(b, 'POST', '/keys', { cookie: s.cookie, body: { trust: 'execute' } })).status, 403, 'B still wants the token');
  const made = await call(b, 'POST', '/keys', { cookie: s.cookie, csrf: s.csrf, body: { name: 'from-b', trust: 'execute' } });
  t.equal(made.status, 200, 'a mutation on B with the token made on A');
  t.equal((await a.gw.store.keys.get(made.json.id))?.name, 'from-b', 'and it happened');

  t.equal((await call(b, 'DELETE', '/session', { cookie: s.cookie, csrf: s.csrf })).status, 200, 'signed out on B');
  t.equal((await call(a, 'GET', '/session', { cookie: s.cookie })).status, 401, 'A refuses the cookie too');
  t.equal((await call(a, 'GET', '/keys', { cookie: s.cookie })).status, 401);
});

t.test('the shared store holds no cookie a reader could sign in with: only a hash of it', async (t) => {
  const { a, b, prefix } = await pair(t);
  const admin = await a.key({ workspace: 'acme', trust: 'admin' });
  const s = await signIn(a, admin.key);
  const token = s.cookie.slice(s.cookie.indexOf('=') + 1);
  t.match(token, /^[A-Za-z0-9_-]{43}$/, 'the cookie carries a token');
  const dump = await redisDump(prefix);
  t.ok(dump.length > 0, 'the store was read');
  t.notOk(dump.includes(Buffer.from(token)), 'the token is in no key name and no value under the prefix');
  t.equal((await call(b, 'GET', '/session', { cookie: s.cookie })).status, 200, 'yet the cookie works on the other instance');
});

t.test("a key used on A shows its last use on B's keys page once A flushes", async (t) => {
  const { a, b, clock } = await pair(t);
  const admin = await b.key({ workspace: 'acme', trust: 'admin' });
  const bot = await a.key({ workspace: 'acme', trust: 'execute' });
  const s = await signIn(b, admin.key);
  const lastUsed = async () => (await call(b, 'GET', '/keys', { cookie: s.cookie })).json.keys.find((k: any) => k.id === bot.id).last_used_at;

  const used = await a.rpc({ method: 'message/send', key: bot.key, params: { ...msgB('hi'), metadata: { agentId: 'echo' } } });
  t.equal(used.status, 200, 'the key was used on A');
  const usedAt = new Date(clock.now()).toISOString();
  t.equal(await lastUsed(), null, 'B cannot know before A flushes');
  clock.advance(KEY_USAGE_FLUSH_MS - 1);
  await a.gw.usage.idle();
  t.equal(await lastUsed(), null, 'not before the interval');
  clock.advance(1);
  await a.gw.usage.idle();
  t.equal(await lastUsed(), usedAt, 'after one flush interval B shows when A saw it');
  t.match(
    (await call(a, 'GET', '/keys', { bearer: admin.key })).json.keys.find((k: any) => k.id === bot.id),
    { last_used_at: usedAt },
    'and A too',
  );
});

t.test('a webhook delivery is listed by both instances', async (t) => {
  const { a, b } = await pair(t);
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  const admin = await a.key({ workspace: 'acme', trust: 'admin' });
  const sent = await a.rpc({
    method: 'message/send',
    key: admin.key,
    params: { ...msgB('hook'), metadata: { agentId: 'echo' }, configuration: { pushNotificationConfig: { id: 'cfg-1', url: rx.url } } },
  });
  t.equal(sent.status, 200);
  const taskId: string = sent.json.result.id;
  await until(() => rx.deliveries.length > 0, 'a delivery arrived');
  for (const g of [a, b]) await g.gw.push.idle();
  for (const g of [a, b]) await g.gw.deliveries.idle();
  for (const [name, g] of [
    ['A', a],
    ['B', b],
  ] as const) {
    const list = (await call(g, 'GET', '/webhooks', { bearer: admin.key })).json.deliveries;
    t.match(list[list.length - 1], { task_id: taskId, config_id: 'cfg-1', result: 'delivered', status: 200, error: null, attempts: 1 }, `${name} lists it`);
  }
});

t.test('lmdb: a session outlives a restart on the same data dir; an expired one is refused', async (t) => {
  const clock = new ManualClock(T0);
  // a data dir of the test's: the support helper removes one it made itself when the gateway closes
  const dataDir = await mkdtemp(join(tmpdir(), 'a2a-dash-'));
  let again: TestGateway | undefined;
  t.teardown(async () => {
    await again?.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const first = await startTestGateway({ clock, timers: clock, dataDir, config: { dashboard: { enabled: true, sessionTtlMs: 60_000 } } });
  const admin = await first.key({ workspace: 'acme', trust: 'admin' });
  const s = await signIn(first, admin.key);
  t.equal(s.status, 200);
  await first.close();
  const file = await readFile(join(dataDir, 'store', 'data.mdb'));
  t.notOk(file.includes(Buffer.from(s.cookie.slice(s.cookie.indexOf('=') + 1))), 'the LMDB file holds no cookie token, only its hash');

  again = await startTestGateway({ clock, timers: clock, dataDir, config: { dashboard: { enabled: true, sessionTtlMs: 60_000 } } });
  const back = await call(again, 'GET', '/session', { cookie: s.cookie });
  t.equal(back.status, 200, 'still signed in after the restart');
  t.equal(back.json.csrf, s.csrf, 'with the same CSRF token');
  t.equal((await call(again, 'POST', '/keys', { cookie: s.cookie, csrf: s.csrf, body: { trust: 'execute' } })).status, 200, 'and it may act');

  clock.advance(60_000);
  t.equal((await call(again, 'GET', '/session', { cookie: s.cookie })).status, 401, 'refused once it expires');
  t.equal((await call(again, 'GET', '/keys', { cookie: s.cookie })).status, 401);
});
