// A request with a key whose stored record is damaged (another version's, a damaged file): the key cannot be
// verified, so the caller is refused (401, as for any key that does not check out), not answered with the gateway's
// own failure, and the log names the key record to repair or revoke, once per key (a caller repeating it floods no
// log). Both engines, the real gateway on port 0.
import t, { type Test } from 'tap';
import type { ConfigInput } from '../../src/config/schema.js';
import { msgB, startTestGateway } from '../support/gateway.js';
import { cleanupPrefix, REDIS_URL, testPrefix } from '../support/redis.js';

async function check(t: Test, config: ConfigInput): Promise<void> {
  const lines: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
  const gw = await startTestGateway({ config, log: (msg, fields) => lines.push({ msg, fields }) });
  t.teardown(() => gw.close());
  const { key, id } = await gw.key();
  const { key: other } = await gw.key();
  const rec = await gw.gw.store.keys.get(id);
  t.ok(rec, 'the key is stored');
  // writes are not validated: a trust no schema of this version accepts
  await gw.gw.store.keys.put({ ...rec!, trust: 'superuser' } as never);

  const got = await gw.rpc({ key, method: 'message/send', params: msgB('hello') });
  t.equal(got.status, 401, 'refused as a key that cannot be verified');
  t.match(got.json.error?.message, /Unauthorized: API key cannot be verified/);
  t.equal(got.headers.get('www-authenticate'), 'Bearer');
  t.notMatch(JSON.stringify(got.json), /superuser|corrupt|stack/, 'nothing of the record in the answer');
  // a caller hammering with the key floods no log: each request is still refused, the record named once
  for (let i = 0; i < 20; i++) {
    const again = await gw.rpc({ key, method: 'message/send', params: msgB('hello') });
    t.equal(again.status, 401, `request ${i + 2}: still 401`);
  }
  const admin = await fetch(`${gw.url}/api/admin/keys`, { headers: { authorization: `Bearer ${key}` } });
  t.equal(admin.status, 401, 'the admin API refuses it too');
  const logged = lines.filter((l) => l.msg.startsWith('API key refused: its stored record is damaged'));
  t.equal(logged.length, 1, 'the log says the key record is damaged, once for all those requests');
  t.equal(logged[0]?.fields?.key, id, 'naming the key id');
  t.notMatch(JSON.stringify(logged), /hash-of|superuser"/, 'never the stored value');
  t.notOk(
    lines.some((l) => l.msg === 'internal error'),
    'not logged as the gateway failing',
  );

  const fine = await gw.rpc({ key: other, method: 'message/send', params: msgB('hello') });
  t.equal(fine.json.result?.status?.state, 'completed', 'another key still works');
}

t.test('lmdb: a key whose record is damaged gets 401', (t) => check(t, {}));

t.test('redis: a key whose record is damaged gets 401', (t) => {
  const prefix = testPrefix('damaged-key');
  t.teardown(() => cleanupPrefix(REDIS_URL, prefix));
  return check(t, { store: 'redis', redisUrl: REDIS_URL, redisPrefix: prefix });
});
