// The admin API's refusal of a field it does not know (a typo, or a field of another form), as a script calling it with
// an admin key meets it: 400 naming that field (`field` and the message), nothing created or changed. Keys, relays and
// a relay agent's settings each say it as connections already did.
import t from 'tap';
import { adminCall } from '../support/admin-api.js';
import { startTestGateway } from '../support/gateway.js';

t.test('an unknown field is named, at any depth, and nothing is made', async (t) => {
  const tg = await startTestGateway({ config: { dashboard: { enabled: true } } });
  t.teardown(() => tg.close());
  const admin = await tg.key({ workspace: 'acme', trust: 'admin' });
  const relayKey = await tg.key({ workspace: 'acme', trust: 'execute' });
  const call = (method: string, path: string, body: unknown) => adminCall(tg, method, path, { bearer: admin.key, body });
  const keysBefore = (await adminCall(tg, 'GET', '/keys', { bearer: admin.key })).json.keys.length;

  const cases: Array<[string, string, unknown, string]> = [
    ['POST', '/keys', { trust: 'execute', expires: '2030-01-01' }, 'expires'],
    ['POST', '/keys', { trust: 'execute', limits: { perMinute: 5, perHour: 50, perDay: 500 } }, 'limits.perDay'],
    ['POST', '/relays', { name: 'home', key: relayKey.id, label: 'my laptop' }, 'label'],
  ];
  for (const [method, path, body, field] of cases) {
    const r = await call(method, path, body);
    t.equal(r.status, 400, `${method} ${path} with ${field}`);
    t.equal(r.json.field, field, `the error's field is ${field}`);
    t.match(r.json.message, new RegExp(`^${field.replace('.', '\\.')}: is not a field here`), 'and its message starts with it');
  }
  t.equal((await adminCall(tg, 'GET', '/keys', { bearer: admin.key })).json.keys.length, keysBefore, 'no key made');
  t.same((await adminCall(tg, 'GET', '/relays', { bearer: admin.key })).json.relays, [], 'no relay made');

  t.equal((await call('POST', '/relays', { name: 'home', key: relayKey.id })).status, 200);
  const typo = await call('PATCH', '/relays/home/agents/local-echo', { trust: 'execute', key: [admin.id] });
  t.equal(typo.status, 400);
  t.equal(typo.json.field, 'key', "a relay agent's setting with `key` for `keys` names `key`");
  t.same((await tg.gw.store.relays.get('acme', 'home'))?.agents, {}, 'the agent setting is not stored');
});
