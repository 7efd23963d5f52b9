// A push config stored before `user:password@` in a webhook URL was refused keeps working, but no read shows the
// password: set (re-registering another), get and list in every dialect read `user:********@host`, a user name alone
// reads `********@host`, while deliveries still use the stored URL (Node sends its userinfo as Basic auth). Before,
// every read showed the password in the clear. Real gateway (port 0, real LMDB), a real receiver, injected clock.
import t from 'tap';
import { msgB } from '../support/gateway.js';
import { drive, pushStage } from '../support/webhooks.js';

const V1 = { 'A2A-Version': '1.0' };

t.test('a stored URL with credentials reads masked everywhere; delivery uses it as stored', async (t) => {
  const { clock, gw, rx, key } = await pushStage(t);
  const made = await gw.rpc({ key, method: 'message/send', params: msgB('a task', { metadata: { agentId: 'converse' } }) });
  const taskId: string = made.json.result.id;
  t.equal(made.json.result.status.state, 'input-required');
  const stored = `http://hooks:s3cret-pw@127.0.0.1:${rx.port}/hook?x=1`;
  const tokenOnly = `http://t0ken-as-user@127.0.0.1:${rx.port}/other`;
  // what an earlier build stored (its registration took them)
  await gw.gw.store.pushConfigs.put({ id: 'old-pw', taskId: `ws1/${taskId}`, url: stored, createdAt: 1, disabled: false });
  await gw.gw.store.pushConfigs.put({ id: 'old-user', taskId: `ws1/${taskId}`, url: tokenOnly, createdAt: 2, disabled: false });
  const masked = `http://hooks:********@127.0.0.1:${rx.port}/hook?x=1`;
  const maskedUser = `http://********@127.0.0.1:${rx.port}/other`;

  const reads = [
    await gw.rpc({ key, method: 'tasks/pushNotificationConfig/get', params: { id: taskId, pushNotificationConfigId: 'old-pw' } }),
    await gw.rpc({ key, method: 'tasks/pushNotificationConfig/list', params: { id: taskId } }),
    await gw.rpc({ key, method: 'tasks/pushNotification/get', params: { id: taskId } }),
    await gw.rpc({ key, method: 'GetTaskPushNotificationConfig', params: { taskId, id: 'old-pw' }, headers: V1 }),
    await gw.rpc({ key, method: 'ListTaskPushNotificationConfigs', params: { taskId }, headers: V1 }),
  ];
  for (const r of reads) t.notMatch(JSON.stringify(r.json), /s3cret-pw|t0ken-as-user/, `no read shows the credentials: ${JSON.stringify(r.json)}`);
  t.equal(reads[0]!.json.result.pushNotificationConfig.url, masked, 'rev B get: the password masked, the rest as stored');
  t.same(
    reads[1]!.json.result.map((c: { pushNotificationConfig: { url: string } }) => c.pushNotificationConfig.url),
    [masked, maskedUser],
    'rev B list: both masked (a user name alone is masked whole)',
  );
  t.equal(reads[2]!.json.result.pushNotificationConfig.url, maskedUser, 'rev A get (the newest config)');
  t.equal(reads[3]!.json.result.url, masked, '1.0 get');
  t.same(
    reads[4]!.json.result.configs.map((c: { url: string }) => c.url),
    [masked, maskedUser],
    '1.0 list',
  );

  await gw.rpc({ key, method: 'message/send', params: msgB('done', { taskId }) });
  const done = await drive({ gw: gw.gw, clock, stepMs: 1_000, done: () => rx.deliveries.filter((d) => d.status === 200).length >= 4 });
  t.ok(done, 'both configs delivered to');
  const withPw = rx.deliveries.filter((d) => d.path === '/hook?x=1');
  t.ok(withPw.length > 0, 'delivered to the stored URL');
  t.ok(
    withPw.every((d) => d.headers.authorization === `Basic ${Buffer.from('hooks:s3cret-pw').toString('base64')}`),
    "with the stored URL's credentials",
  );
});
