// Webhook URLs into address ranges that are not globally reachable but were taken as public: an IPv4-translated
// literal (::ffff:0:a.b.c.d, which an SIIT translator carries to the IPv4 address it holds), a site's own NAT64 range
// (64:ff9b:1::/48), SRv6 ids, IPv6 documentation and the old 6to4 relay. Each is refused at registration naming the
// field, and a name that resolves to one is refused too; nothing is stored. Real gateway (port 0, real LMDB).
import t from 'tap';
import { msgB, startTestGateway } from '../support/gateway.js';

const PATH = 'params.pushNotificationConfig.url';

t.test('push URLs into ranges that are not globally reachable are refused with the reason; nothing is stored', async (t) => {
  const gw = await startTestGateway({ lookup: async () => [{ address: '64:ff9b:1::a9fe:a9fe', family: 6 }] });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const made = await gw.rpc({ key, method: 'message/send', params: msgB('a task', { metadata: { agentId: 'converse' } }) });
  const taskId: string = made.json.result.id;
  const cases: Array<[string, RegExp]> = [
    ['http://[::ffff:0:7f00:1]/hook', /loopback address ::ffff:0:7f00:1 \(IPv4 127\.0\.0\.1\)/],
    ['http://[::ffff:0:a00:5]:8080/hook', /private address/],
    ['http://[64:ff9b:1::a00:1]/hook', /reserved address 64:ff9b:1::a00:1/],
    ['http://[5f00::1]/hook', /reserved address/],
    ['http://[3fff::1]/hook', /reserved address/],
    ['http://192.88.99.1/hook', /reserved address 192\.88\.99\.1/],
    ['https://hooks.example.com/hook', /resolves to a reserved address 64:ff9b:1::a9fe:a9fe/],
  ];
  for (const [url, why] of cases) {
    const r = await gw.rpc({ key, method: 'tasks/pushNotificationConfig/set', params: { taskId, pushNotificationConfig: { url } } });
    t.equal(r.json.error?.code, -32602, `${url}: -32602`);
    t.equal(r.json.error?.data?.path, PATH, `${url}: names the field`);
    t.match(r.json.error?.message, why, `${url}: says why`);
  }
  const configs = await gw.rpc({ key, method: 'tasks/pushNotificationConfig/list', params: { id: taskId } });
  t.same(configs.json.result, [], 'no config was stored');
});
