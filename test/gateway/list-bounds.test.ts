// tasks/list (and 1.0's ListTasks) through the real server: a page is at most 100 tasks whatever the caller asks, and a
// page token is a bounded offset (a huge or foreign one is -32602, one past the end an empty page), so no call asks the
// server for more than one page of answer.
import t from 'tap';
import { startTestGateway, msgB, type TestGateway } from '../support/gateway.js';

const V1 = { 'A2A-Version': '1.0' };
let gw: TestGateway;
let key: string;
t.before(async () => {
  gw = await startTestGateway();
  key = (await gw.key()).key;
  for (let i = 0; i < 3; i++) await gw.rpc({ method: 'message/send', key, params: msgB(`task ${i}`) });
});
t.teardown(() => gw.close());

const list = (params: unknown) => gw.rpc({ method: 'tasks/list', key, params });
const listV1 = (params: unknown) => gw.rpc({ method: 'ListTasks', key, params, headers: V1 });

t.test('a page size past 100 is refused naming the field, in both names', async (t) => {
  for (const pageSize of [101, 1e9, 2 ** 53, -1, 0, 1.5]) {
    const b = await list({ pageSize });
    t.equal(b.json.error?.code, -32602, `tasks/list pageSize ${pageSize}`);
    t.equal(b.json.error?.data.path, 'params.pageSize');
    const v1 = await listV1({ pageSize });
    t.equal(v1.json.error?.code, -32602, `ListTasks pageSize ${pageSize}`);
    t.equal(v1.json.error?.data[0].metadata.path, 'params.pageSize');
  }
  t.equal((await list({ pageSize: 100 })).json.result.tasks.length, 3, '100 is the largest page');
});

t.test('a page token is a bounded offset: past the end is an empty page, anything else is refused', async (t) => {
  const end = await list({ pageToken: '999999999' });
  t.same(end.json.result.tasks, [], 'an offset past the end: an empty page');
  t.equal(end.json.result.nextPageToken, '');
  for (const pageToken of ['9999999999', '1e9', '-1', 'x', ' 1', '0x10']) {
    t.equal((await list({ pageToken })).json.error?.data.path, 'params.pageToken', `tasks/list pageToken '${pageToken}'`);
    t.equal((await listV1({ pageToken })).json.error?.data[0].metadata.path, 'params.pageToken', `ListTasks pageToken '${pageToken}'`);
  }
});
