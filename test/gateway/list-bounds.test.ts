// tasks/list (and 1.0's ListTasks) through the real server: a page is at most 100 tasks whatever the caller asks, and a
// page token is one this gateway gave out (a keyset cursor; anything else, an old offset too, is -32602 naming it), so
// no call asks the server for more than one page of answer.
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

t.test('a page token is one this gateway gave out: anything else is refused naming the field', async (t) => {
  const first = (await list({ pageSize: 2 })).json.result;
  t.match(first.nextPageToken, /\S/, 'a token to the second page');
  const second = (await list({ pageSize: 2, pageToken: first.nextPageToken })).json.result;
  t.equal(second.tasks.length, 1, 'which holds the rest');
  t.equal(second.nextPageToken, '');
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const foreign = [
    '999999999', // an offset, as builds before gave out
    '0',
    'x',
    ' 1',
    `k1.${b64([1.5, 'task'])}`, // not a time
    `k1.${b64([1, ''])}`, // not an id
    `k1.${b64({ time: 1, id: 'task' })}`,
    `k1.${b64([1, 'task']).slice(0, -2)}`, // cut short
    `k1.${b64([1, 'x'.repeat(300)])}`, // an id longer than any
    `${first.nextPageToken}!`,
  ];
  for (const pageToken of foreign) {
    const r = await list({ pageToken });
    t.equal(r.json.error?.code, -32602, `tasks/list pageToken '${pageToken}'`);
    t.equal(r.json.error?.data.path, 'params.pageToken');
    t.equal((await listV1({ pageToken })).json.error?.data[0].metadata.path, 'params.pageToken', `ListTasks pageToken '${pageToken}'`);
  }
});
