// ListTaskPushNotificationConfigs pages as 1.0 defines it: at most pageSize configs, a nextPageToken to the rest ('' on
// the last page), a page token the gateway did not give out refused naming it. Before, every config came back whatever
// pageSize asked, and any token was taken.
import t from 'tap';
import { startTestGateway } from '../support/gateway.js';

t.test('ListTaskPushNotificationConfigs: pageSize and pageToken are honoured', async (t) => {
  const gw = await startTestGateway({ config: { push: { allowlist: ['127.0.0.1'] } } });
  t.teardown(() => gw.close());
  const { key } = await gw.key();
  const call = (method: string, params: unknown) => gw.rpc({ method, params, key, headers: { 'A2A-Version': '1.0' } });
  const sent = await call('SendMessage', { message: { messageId: 'p-1', role: 'ROLE_USER', parts: [{ text: 'x' }], metadata: { agentId: 'echo' } } });
  const taskId = sent.json.result.task.id;
  for (const id of ['a', 'b', 'c']) await call('CreateTaskPushNotificationConfig', { taskId, id, url: `http://127.0.0.1:9/${id}` });

  const seen: string[] = [];
  let token = '';
  for (let i = 0; i < 4; i++) {
    const r = await call('ListTaskPushNotificationConfigs', { taskId, pageSize: 2, ...(token && { pageToken: token }) });
    t.ok(r.json.result.configs.length <= 2, 'never more than pageSize');
    seen.push(...r.json.result.configs.map((c: { id: string }) => c.id));
    token = r.json.result.nextPageToken;
    t.type(token, 'string', 'nextPageToken is always there');
    if (!token) break;
  }
  t.same(seen, ['a', 'b', 'c'], 'two pages, each config once, in creation order');

  const all = await call('ListTaskPushNotificationConfigs', { taskId });
  t.same(
    all.json.result.configs.map((c: { id: string }) => c.id),
    ['a', 'b', 'c'],
    'no pageSize: every config',
  );
  t.equal(all.json.result.nextPageToken, '');

  const bad = await call('ListTaskPushNotificationConfigs', { taskId, pageToken: 'not-ours' });
  t.equal(bad.json.error?.code, -32602);
  t.equal(bad.json.error?.data[0].metadata.path, 'params.pageToken', 'a tampered token is refused naming the field');
});
