// A push config's `url` carries no credentials and fits a request line, and its authentication schemes are a bounded
// list of short names: anything else is refused at registration naming the field, in every dialect and on an inline
// send, with nothing stored. Before, `https://user:pass@host/` was stored in the clear and every read of the config
// (set, get, list) showed the password, while the token beside it read `********`; a 500 KB URL or 100,000 schemes
// were stored, and such a URL failed every delivery. Real gateway (port 0, real LMDB), a real receiver, injected clock.
import t from 'tap';
import { msgB, startTestGateway } from '../support/gateway.js';
import { drive, pushStage } from '../support/webhooks.js';

const V1 = { 'A2A-Version': '1.0' };

t.test('credentials in the URL, over-long URLs and scheme lists are refused naming the field; nothing is stored', async (t) => {
  const gw = await startTestGateway({ config: { push: { allowlist: ['127.0.0.1'] } } });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const made = await gw.rpc({ key, method: 'message/send', params: msgB('a task', { metadata: { agentId: 'converse' } }) });
  const taskId: string = made.json.result.id;
  const withPassword = 'http://hooks:s3cret-pw@127.0.0.1:9/hook';

  const cases: Array<{ what: string; path: string; why: RegExp; call: () => ReturnType<typeof gw.rpc> }> = [
    {
      what: 'rev B set, user:password@',
      path: 'params.pushNotificationConfig.url',
      why: /must not carry credentials/,
      call: () => gw.rpc({ key, method: 'tasks/pushNotificationConfig/set', params: { taskId, pushNotificationConfig: { url: withPassword } } }),
    },
    {
      what: 'rev A set, a user name alone',
      path: 'params.pushNotificationConfig.url',
      why: /must not carry credentials/,
      call: () => gw.rpc({ key, method: 'tasks/pushNotification/set', params: { id: taskId, pushNotificationConfig: { url: 'http://tok3n@127.0.0.1:9/' } } }),
    },
    {
      what: '1.0 create, user:password@',
      path: 'params.url',
      why: /must not carry credentials/,
      call: () => gw.rpc({ key, method: 'CreateTaskPushNotificationConfig', params: { taskId, url: withPassword }, headers: V1 }),
    },
    {
      what: 'inline on a send',
      path: 'params.configuration.pushNotificationConfig.url',
      why: /must not carry credentials/,
      call: () => gw.rpc({ key, method: 'message/send', params: { ...msgB('inline'), configuration: { pushNotificationConfig: { url: withPassword } } } }),
    },
    {
      what: 'a URL of 500,000 characters',
      path: 'params.pushNotificationConfig.url',
      why: /at most 4096 characters/,
      call: () =>
        gw.rpc({
          key,
          method: 'tasks/pushNotificationConfig/set',
          params: { taskId, pushNotificationConfig: { url: `http://127.0.0.1:9/${'a'.repeat(500_000)}` } },
        }),
    },
    {
      what: 'a URL of 2,000 characters that percent-encodes to 18,000',
      path: 'params.pushNotificationConfig.url',
      why: /at most 4096 characters once written as sent/,
      call: () =>
        gw.rpc({
          key,
          method: 'tasks/pushNotificationConfig/set',
          params: { taskId, pushNotificationConfig: { url: `http://127.0.0.1:9/${'中'.repeat(1980)}` } },
        }),
    },
    {
      what: '100,000 schemes',
      path: 'params.pushNotificationConfig.authentication.schemes',
      why: /at most 16 schemes/,
      call: () =>
        gw.rpc({
          key,
          method: 'tasks/pushNotificationConfig/set',
          params: {
            taskId,
            pushNotificationConfig: { url: 'http://127.0.0.1:9/', authentication: { schemes: Array.from({ length: 100_000 }, () => 'Bearer') } },
          },
        }),
    },
    {
      what: 'a scheme of 500,000 characters',
      path: 'params.pushNotificationConfig.authentication.schemes.1',
      why: /at most 64 characters/,
      call: () =>
        gw.rpc({
          key,
          method: 'tasks/pushNotificationConfig/set',
          params: { taskId, pushNotificationConfig: { url: 'http://127.0.0.1:9/', authentication: { schemes: ['Bearer', 'x'.repeat(500_000)] } } },
        }),
    },
    {
      what: '1.0 create, a scheme of 65 characters',
      path: 'params.authentication.scheme',
      why: /at most 64 characters/,
      call: () =>
        gw.rpc({
          key,
          method: 'CreateTaskPushNotificationConfig',
          params: { taskId, url: 'http://127.0.0.1:9/', authentication: { scheme: 'x'.repeat(65) } },
          headers: V1,
        }),
    },
  ];
  for (const c of cases) {
    const r = await c.call();
    const error = r.json.error;
    t.equal(error?.code, -32602, `${c.what}: -32602`);
    const path = Array.isArray(error?.data) ? error.data[0].metadata.path : error?.data?.path;
    t.equal(path, c.path, `${c.what}: names ${c.path}`);
    t.match(error?.message, c.why, `${c.what}: says why`);
    t.notMatch(JSON.stringify(r.json), /s3cret-pw/, `${c.what}: the answer does not repeat the password`);
  }
  const configs = await gw.rpc({ key, method: 'tasks/pushNotificationConfig/list', params: { id: taskId } });
  t.same(configs.json.result, [], 'no config was stored');
  const tasks = await gw.rpc({ key, method: 'tasks/list', params: {} });
  t.equal(tasks.json.result.totalSize, 1, 'no task was made by the refused send');
});

t.test('a URL of 4,096 characters with a query and 16 schemes are taken, and delivered to as given', async (t) => {
  const { clock, gw, rx, key } = await pushStage(t);
  const base = `${rx.url}?sig=`;
  const url = base + 'q'.repeat(4096 - base.length);
  t.equal(url.length, 4096);
  const schemes = ['Bearer', ...Array.from({ length: 15 }, (_, i) => `X-Scheme-${i}`.padEnd(64, 'z'))];
  const sent = await gw.rpc({
    key,
    method: 'message/send',
    params: { ...msgB('deliver me'), configuration: { blocking: true, pushNotificationConfig: { url, authentication: { schemes, credentials: 'cred-1' } } } },
  });
  t.equal(sent.json.result?.status?.state, 'completed');
  const listed = await gw.rpc({ key, method: 'tasks/pushNotificationConfig/list', params: { id: sent.json.result.id } });
  t.equal(listed.json.result[0]?.pushNotificationConfig.url, url, 'stored as sent');
  t.same(listed.json.result[0]?.pushNotificationConfig.authentication.schemes, schemes);
  const done = await drive({ gw: gw.gw, clock, stepMs: 1_000, done: () => rx.deliveries.some((d) => d.status === 200) });
  t.ok(done, 'delivered');
  const d = rx.deliveries.find((x) => x.status === 200)!;
  t.equal(d.path, url.slice(url.indexOf('/hook')), 'the whole path and query arrive');
  t.equal(d.headers.authorization, 'Bearer cred-1');
});
