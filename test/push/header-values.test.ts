// A push config's token and bearer credential are sent as HTTP headers on every delivery: one that HTTP cannot carry
// (a line break, a character outside printable ASCII) or that receivers refuse (past 4,096 characters) is refused when
// the config is registered, naming the field, with nothing stored, in every dialect and on an inline send. A token at
// the limit is delivered intact. Real gateway (port 0, real LMDB), a real receiver on loopback, the injected clock.
import t from 'tap';
import { msgB } from '../support/gateway.js';
import { drive, pushStage } from '../support/webhooks.js';

const V1 = { 'A2A-Version': '1.0' };
const BAD: Array<[string, string, RegExp]> = [
  ['a line break (header injection)', 'tok\r\nX-Injected: 1', /must be printable ASCII/],
  ['a character outside ASCII', 'jeton-€', /must be printable ASCII/],
  ['4,097 characters', 'x'.repeat(4097), /at most 4096 characters/],
];

t.test('tokens and credentials HTTP cannot carry are refused at registration; nothing is stored', async (t) => {
  const { gw, rx, key } = await pushStage(t, { push: { maxAttempts: 2, backoffBaseMs: 1_000, backoffMaxMs: 1_000 } });
  const made = await gw.rpc({ key, method: 'message/send', params: msgB('a task', { metadata: { agentId: 'converse' } }) });
  const taskId: string = made.json.result.id;

  for (const [what, value, message] of BAD) {
    const calls = [
      {
        name: 'rev B set, token',
        path: 'params.pushNotificationConfig.token',
        call: () => gw.rpc({ key, method: 'tasks/pushNotificationConfig/set', params: { taskId, pushNotificationConfig: { url: rx.url, token: value } } }),
      },
      {
        name: 'rev B set, credentials',
        path: 'params.pushNotificationConfig.authentication.credentials',
        call: () =>
          gw.rpc({
            key,
            method: 'tasks/pushNotificationConfig/set',
            params: { taskId, pushNotificationConfig: { url: rx.url, authentication: { schemes: ['Bearer'], credentials: value } } },
          }),
      },
      {
        name: '1.0 create, token',
        path: 'params.token',
        call: () => gw.rpc({ key, method: 'CreateTaskPushNotificationConfig', params: { taskId, url: rx.url, token: value }, headers: V1 }),
      },
      {
        name: '1.0 create, credentials',
        path: 'params.authentication.credentials',
        call: () =>
          gw.rpc({
            key,
            method: 'CreateTaskPushNotificationConfig',
            params: { taskId, url: rx.url, authentication: { scheme: 'Bearer', credentials: value } },
            headers: V1,
          }),
      },
    ];
    for (const c of calls) {
      const r = await c.call();
      t.equal(r.json.error?.code, -32602, `${what}, ${c.name}: refused as invalid params`);
      t.match(r.json.error?.message, c.path, `${what}, ${c.name}: the message names ${c.path}`);
      t.match(r.json.error?.message, message, `${what}, ${c.name}: and says why`);
    }
    const inline = await gw.rpc({
      key,
      method: 'message/send',
      params: { ...msgB('inline'), configuration: { blocking: true, pushNotificationConfig: { url: rx.url, token: value } } },
    });
    t.match(inline.json.error?.message, 'params.configuration.pushNotificationConfig.token', `${what}: an inline config on a send is refused too`);
  }
  const configs = await gw.rpc({ key, method: 'tasks/pushNotificationConfig/list', params: { id: taskId } });
  t.same(configs.json.result, [], 'no config was stored');
  const tasks = await gw.rpc({ key, method: 'tasks/list', params: {} });
  t.equal(tasks.json.result.totalSize, 1, 'no task was made by a refused send');
  t.same(await gw.gw.store.pushJobs.list(), [], 'no delivery waits');
});

t.test('a printable token of 4,096 characters and a bearer credential are delivered as given', async (t) => {
  const { clock, gw, rx, key } = await pushStage(t);
  const token = `a b\tc${'~!#$%&*+-.^_|'.repeat(400)}`.slice(0, 4096);
  t.equal(token.length, 4096);
  const sent = await gw.rpc({
    key,
    method: 'message/send',
    params: {
      ...msgB('deliver me'),
      configuration: { blocking: true, pushNotificationConfig: { url: rx.url, token, authentication: { schemes: ['Bearer'], credentials: 'cred-123' } } },
    },
  });
  t.equal(sent.json.result?.status?.state, 'completed');
  const done = await drive({ gw: gw.gw, clock, stepMs: 1_000, done: () => rx.deliveries.some((d) => d.status === 200) });
  t.ok(done, 'delivered');
  const d = rx.deliveries.find((x) => x.status === 200)!;
  t.equal(d.headers['x-a2a-notification-token'], token, 'the token arrives intact');
  t.equal(d.headers.authorization, 'Bearer cred-123');
});
