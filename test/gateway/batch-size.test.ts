// Batch size cap: a batch over `maxBatchSize` is answered with one -32600 error naming its size and the limit, and
// nothing of it runs (no task, no rate-limit budget spent); the cap is read from the config file and env.
import t from 'tap';
import { loadConfig } from '../../src/config/load.js';
import { msgA, startTestGateway } from '../support/gateway.js';
import { storedTasks } from '../support/tasks.js';

const list = (n: number) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'agents/list', params: {} }));

t.test('the default cap is 100: a batch of 101 is one -32600 naming its size and the limit; 100 run', async (t) => {
  const gw = await startTestGateway();
  t.teardown(() => gw.close());
  const { key } = await gw.key();

  const over = await gw.rpc({ key, body: JSON.stringify(list(101)) });
  t.equal(over.status, 200);
  t.notOk(Array.isArray(over.json), 'one error, not an array of answers');
  t.equal(over.json.id, null);
  t.equal(over.json.error.code, -32600);
  t.match(over.json.error.message, /\b101\b/, 'names the batch size');
  t.match(over.json.error.message, /\b100\b/, 'names the limit');
  t.match(over.json.error.data, { field: 'batch', size: 101, limit: 100 });

  const at = await gw.rpc({ key, body: JSON.stringify(list(100)) });
  t.equal(at.json.length, 100, 'a batch at the cap is answered call by call');
  t.ok(
    (at.json as Array<{ result?: unknown }>).every((a) => a.result !== undefined),
    'every call of it ran',
  );
});

t.test('an over-size batch runs nothing: no task is stored and no rate-limit budget is spent', async (t) => {
  const gw = await startTestGateway({ config: { maxBatchSize: 3 } });
  t.teardown(() => gw.close());
  const { key } = await gw.key({ limits: { perMinute: 3, perHour: 10 } });
  const before = await storedTasks(gw);

  const sends = [1, 2, 3, 4].map((i) => ({ jsonrpc: '2.0', id: `s${i}`, method: 'tasks/send', params: msgA(`hi ${i}`, { id: `cap-${i}` }) }));
  const r = await gw.rpc({ key, body: JSON.stringify(sends) });
  t.equal(r.json.error.code, -32600);
  t.match(r.json.error.message, /4 calls .*limit of 3/);
  t.same(await storedTasks(gw), before, 'no task was stored');

  // the whole minute's budget (3) is still there: a batch at the cap runs in full
  const ok = await gw.rpc({ key, body: JSON.stringify(sends.slice(0, 3)) });
  t.same(
    (ok.json as Array<{ result?: { status: { state: string } } }>).map((a) => a.result?.status.state),
    ['completed', 'completed', 'completed'],
  );
});

t.test('maxBatchSize comes from the config and A2A_MAX_BATCH_SIZE, and must be a positive integer', async (t) => {
  t.equal((await loadConfig({ env: {}, flags: {} })).maxBatchSize, 100, 'default');
  t.equal((await loadConfig({ env: { A2A_MAX_BATCH_SIZE: '7' }, flags: {} })).maxBatchSize, 7, 'env applies');
  await t.rejects(loadConfig({ env: { A2A_MAX_BATCH_SIZE: '0' }, flags: {} }), /maxBatchSize \(A2A_MAX_BATCH_SIZE\)/);
});
