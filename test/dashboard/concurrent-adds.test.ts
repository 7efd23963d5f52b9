// Adds of one name at once (two operators, a script run twice, the CLI beside the dashboard): exactly one is created;
// every other one is refused "already exists" (409), never told it was added while another's record took its place;
// of several relays added with one key at once, one is added; of several rotations of one key at once, one makes a key
// (the others 409 key_conflict).
// An update racing a remove never brings the removed connection or relay back. The real gateway on port 0, its admin
// API over HTTP, both engines.
import t, { type Test } from 'tap';
import type { ConfigInput } from '../../src/config/schema.js';
import { adminCall } from '../support/admin-api.js';
import { startTestGateway } from '../support/gateway.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';

const N = 6;

async function check(t: Test, config: ConfigInput): Promise<void> {
  const tg = await startTestGateway({ config: { ...config, push: { allowlist: ['127.0.0.1'] } } });
  t.teardown(() => tg.close());
  const admin = await tg.key({ workspace: 'acme', trust: 'admin' });
  const call = (method: string, path: string, body?: unknown) => adminCall(tg, method, path, { bearer: admin.key, ...(body !== undefined && { body }) });

  const conns = await Promise.all(Array.from({ length: N }, (_, i) => call('POST', '/connections', { name: 'twin', url: `http://127.0.0.1:9/a${i}` })));
  const made = conns.filter((r) => r.status === 200);
  t.equal(made.length, 1, `one connection add succeeds (got ${conns.map((r) => r.status).join(', ')})`);
  t.ok(
    conns.every((r) => r.status === 200 || (r.status === 409 && /already exists/.test(r.json.message))),
    'the others are refused: it already exists',
  );
  const stored = await call('GET', '/connections/twin');
  t.equal(stored.json.url, made[0]?.json.url, 'the one stored is the one its caller was told of');

  const keys = await Promise.all(Array.from({ length: N }, () => tg.key({ workspace: 'acme', trust: 'execute' })));
  const relays = await Promise.all(keys.map((k) => call('POST', '/relays', { name: 'twin', key: k.id })));
  const added = relays.filter((r) => r.status === 200);
  t.equal(added.length, 1, `one relay add succeeds (got ${relays.map((r) => r.status).join(', ')})`);
  const listed = (await call('GET', '/relays')).json.relays;
  t.equal(listed.length, 1);
  t.equal(listed[0]?.key_id, added[0]?.json.key_id, 'the relay stored is opened by the key its caller was told of');

  // several relays of other names with one key at once: the key opens one of them
  const shared = await tg.key({ workspace: 'acme', trust: 'execute' });
  const sameKey = await Promise.all(Array.from({ length: N }, (_, i) => call('POST', '/relays', { name: `shared${i}`, key: shared.id })));
  const opened = sameKey.filter((r) => r.status === 200);
  t.equal(opened.length, 1, `one relay add with the key succeeds (got ${sameKey.map((r) => r.status).join(', ')})`);
  t.ok(
    sameKey.every(
      (r) =>
        r.status === 200 ||
        (r.status === 400 && r.json.message === `key: ${shared.id} already opens relay ${opened[0]?.json.name}; give each relay its own key`),
    ),
    'the others are told the key already opens that relay',
  );
  t.strictSame(
    (await call('GET', '/relays')).json.relays.filter((r: { key_id: string }) => r.key_id === shared.id).map((r: { name: string }) => r.name),
    [opened[0]?.json.name],
  );
  for (const r of opened) t.equal((await call('DELETE', `/relays/${r.json.name}`)).status, 200);

  // several rotations of one key at once: one makes a key, the others make none and say so
  const rotated = await tg.key({ workspace: 'acme', trust: 'execute' });
  const rotations = await Promise.all(Array.from({ length: N }, () => call('POST', `/keys/${rotated.id}/rotate`)));
  const minted = rotations.filter((r) => r.status === 200);
  t.equal(minted.length, 1, `one rotation succeeds (got ${rotations.map((r) => r.status).join(', ')})`);
  t.ok(
    rotations.every((r) => r.status === 200 || /was rotated by another command at the same time .*; this rotation made no key$/.test(r.json.message)),
    'the others say another rotation came first',
  );
  // a conflict, not bad input: 409 with its own code, so a script can tell "someone else rotated it" from a typo
  t.strictSame(
    rotations.filter((r) => r.status !== 200).map((r) => [r.status, r.json.error]),
    Array.from({ length: N - 1 }, () => [409, 'key_conflict']),
    'each refused rotation is answered 409 key_conflict',
  );
  const successors = (await tg.gw.store.keys.list()).filter((k) => k.rotatedFrom === rotated.id).map((k) => k.id);
  t.strictSame(successors, [minted[0]?.json.id], 'one new key');

  // an update and a remove at once, again and again: whichever lands last, a removed record stays removed
  let back = 0;
  for (let i = 0; i < 8; i++) {
    t.equal((await call('POST', '/connections', { name: `c${i}`, url: 'http://127.0.0.1:9/a' })).status, 200);
    t.equal((await call('PATCH', `/relays/twin/agents/agent${i}`, { trust: 'admin' })).status, 200);
    const [patched, removed, agentSet, relayGone] = await Promise.all([
      call('PATCH', `/connections/c${i}`, { settings: { url: `http://127.0.0.1:9/b${i}` } }),
      call('DELETE', `/connections/c${i}`),
      call('PATCH', `/relays/twin/agents/agent${i}`, { trust: 'execute' }),
      i === 7 ? call('DELETE', '/relays/twin') : Promise.resolve({ status: 0 }),
    ]);
    t.ok(
      [200, 404].includes(patched.status) && [200, 404].includes(agentSet.status),
      `an update is done or finds nothing (${patched.status} ${JSON.stringify(patched.json)}, ${agentSet.status})`,
    );
    if (removed.status === 200 && (await call('GET', `/connections/c${i}`)).status !== 404) back++;
    if (relayGone.status === 200 && (await call('GET', '/relays')).json.relays.length > 0) back++;
  }
  t.equal(back, 0, 'no removed connection or relay came back');
}

t.test('lmdb: one of several adds of one name is created', (t) => check(t, {}));

t.test('redis: one of several adds of one name is created', (t) => {
  const prefix = testPrefix('concurrent-adds');
  t.teardown(() => cleanupPrefix(REDIS_URL, prefix));
  return check(t, { store: 'redis', redisUrl: REDIS_URL, redisPrefix: prefix });
});
